#!/usr/bin/env bash
# Proves that an unpacked Flux image root file system works, in a chroot (as root): /usr/bin/flux is
# there (flux-core's own prefix found from it: /opt/flux-core, linked into /usr, whose files name no
# longer the view's prefix it was relocated from), flux-broker and the job shell's initrc where the
# entrypoint looks for an image's Flux, no flux-core program or library lacks a
# shared library, `flux --version`, the Python bindings, a 2-broker instance running a 2-node job, and,
# when the image has /run/munge, munged started as the munge user.
# Mounts /proc, /dev and /sys (binds) and a /tmp inside only for the checks; unmounts them whatever happens.
# Usage: bash hack/check-image-rootfs.sh ROOTFS
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 ROOTFS" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "error: the chroot check needs root" >&2; exit 1; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
source "$here/lib.sh"
root=$(realpath "$1")
[ -x "$root/usr/bin/flux" ] || { echo "error: $root has no usr/bin/flux" >&2; exit 1; }

trap unmount_chroots EXIT
chroot_mounts "$root"

# A clean environment, as a container would have: the image's PATH and HOME only.
in_root() {
  chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "$@"
}

echo "== flux-core's prefix, and what the entrypoint looks for under /usr and /etc"
# shellcheck disable=SC2016 # expanded inside the chroot
prefix=$(in_root sh -c 'dirname "$(dirname "$(readlink -f /usr/bin/flux)")"')
echo "/usr/bin/flux -> $prefix/bin/flux"
# The images' flux-core is the view's build relocated (workbench/src/images/relocate.ts): nothing may
# still name the view's prefix, which a MiniCluster's state volume hides (/mnt/flux).
if [ "$prefix" != /mnt/flux/view ]; then
  left=$(grep -rlF /mnt/flux/view "$root$prefix" || true)
  [ -z "$left" ] || die "files of $prefix still name /mnt/flux/view: $(echo "$left" | head -n 5 | paste -sd' ')"
  echo "no file of $prefix names /mnt/flux/view"
fi
for p in /usr/libexec/flux/cmd/flux-broker /etc/flux/shell/initrc.lua "$prefix/bin/python3"; do
  in_root test -e "$p" || die "the image has no $p"
  echo "$p"
done

echo "== shared libraries of flux-core (ldd)"
# shellcheck disable=SC2016 # expanded inside the chroot
not_found=$(in_root sh -c '
  find "$1/bin/flux" "$1/lib/flux" "$1/libexec/flux" "$1/lib/lua" "$1"/lib/libflux* \
    "$1"/lib/python3*/site-packages/_flux -type f \( -name "*.so*" -o -perm -u+x \) |
    while read -r f; do ldd "$f" 2>/dev/null | sed -n "s|^\s*\(.* not found\)|$f: \1|p"; done' sh "$prefix")
if [ -n "$not_found" ]; then
  echo "$not_found"
  echo "error: shared libraries missing in the image" >&2
  exit 1
fi
echo "all found"

echo "== flux --version"
in_root flux --version

echo "== python3 -c 'import flux'"
in_root python3 -c 'import flux, flux.job; print(flux.__file__)'

echo "== flux start -s 2 flux run -N2 hostname"
in_root timeout 120 flux start -s 2 flux run -N2 hostname

if [ -d "$root/run/munge" ]; then
  echo "== munged as munge (/run/munge is there)"
  in_root runuser -u munge -- munged
  in_root sh -c 'munge -n | unmunge | head -n 3'
  # shellcheck disable=SC2016 # expanded inside the chroot
  in_root runuser -u munge -- sh -c 'kill "$(cat /run/munge/munged.pid)"'
fi
echo "== ok"
