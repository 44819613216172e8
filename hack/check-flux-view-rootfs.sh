#!/usr/bin/env bash
# Runs the Flux view the way a pod does, in chroots (as root): the view image's own command copies the
# view into a folder standing for the shared volume, bound at /mnt/flux in both root file systems, then
# hack/flux-view-checks.sh runs in the application's root file system, as root and as uid 1000 (who has
# no entry in its /etc/passwd). Mounts /proc, /dev, /sys and a /tmp only for the checks and unmounts
# them whatever happens.
# Usage: bash hack/check-flux-view-rootfs.sh VIEW_ROOTFS APP_ROOTFS SHARED_DIR
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 VIEW_ROOTFS APP_ROOTFS SHARED_DIR" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "error: the chroot check needs root" >&2; exit 1; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
source "$here/lib.sh"
view_root=$(realpath "$1")
app_root=$(realpath "$2")
shared=$(realpath "$3")
[ -x "$view_root/usr/local/bin/flux-view-copy" ] || { echo "error: $view_root has no usr/local/bin/flux-view-copy" >&2; exit 1; }
[ -x "$app_root/bin/bash" ] || { echo "error: $app_root has no bin/bash" >&2; exit 1; }

trap unmount_chroots EXIT
chmod 0777 "$shared" # as an emptyDir is
chroot_bind "$shared" "$view_root/mnt/flux"
chroot_bind "$shared" "$app_root/mnt/flux"
for r in "$view_root" "$app_root"; do chroot_mounts "$r"; done
cp "$here/flux-view-checks.sh" "$app_root/tmp/flux-view-checks.sh"

# A clean environment, as a container has: the image's PATH (and a HOME).
chroot_bin=$(command -v chroot)
in_view() { env -i PATH=/usr/local/bin:/bin "$chroot_bin" "$@"; }
echo "== the view image's command as uid 1000: flux-view-copy /mnt/flux"
start=$(date +%s%N)
in_view --userspec=1000:1000 "$view_root" flux-view-copy /mnt/flux
echo "copy took $((($(date +%s%N) - start) / 1000000)) ms"
[ -f "$shared/view.complete" ] || { echo "error: no view.complete after the copy" >&2; exit 1; }
echo "== again, as root: a complete copy of the same view stays"
in_view "$view_root" flux-view-copy /mnt/flux
echo "== a mount path the view was not built for is refused, naming the one to use"
mkdir -p "$view_root/mnt/elsewhere"
status=0
refusal=$(in_view "$view_root" flux-view-copy /mnt/elsewhere 2>&1) || status=$?
echo "exit $status: $refusal"
[ "$status" -eq 2 ] || { echo "error: flux-view-copy /mnt/elsewhere exited $status, not 2" >&2; exit 1; }
[ ! -e "$view_root/mnt/elsewhere/view" ] || { echo "error: flux-view-copy /mnt/elsewhere copied anyway" >&2; exit 1; }

for user in 0:0 1000:1000; do
  echo "== the checks in the application's root file system as $user"
  env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp \
    "$chroot_bin" --userspec="$user" "$app_root" /bin/bash /tmp/flux-view-checks.sh /mnt/flux/view
done
echo "== ok"
