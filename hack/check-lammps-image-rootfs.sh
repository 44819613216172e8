#!/usr/bin/env bash
# Proves that an unpacked root file system of the LAMMPS image with REAXFF works, in a chroot (as root):
# bash and no Flux, lmp on PATH lacks no shared library and lists REAXFF among its packages, and it runs
# on 2 ranks under OpenMPI's mpirun: LJ melt, then the Go operator's LAMMPS case in reaxff/HNS with the
# box replicated N times along each axis (`lmp -v x N -v y N -v z N -in in.reaxc.hns -nocite`; N is 1
# unless given: the Go suite's N=2 has 8 times the atoms).
# Mounts /proc, /dev and /sys (binds) and a /tmp inside only for the checks; unmounts them whatever happens.
# Usage: bash hack/check-lammps-image-rootfs.sh ROOTFS [N]
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 2 ]; then echo "usage: $0 ROOTFS [N]" >&2; exit 2; fi
[ "$(id -u)" -eq 0 ] || { echo "error: the chroot check needs root" >&2; exit 1; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
source "$here/lib.sh"
root=$(realpath "$1")
n=${2:-1}
[[ $n =~ ^[1-9][0-9]?$ ]] || die "N must be a number from 1 to 99, not '$n'"
hns=/usr/share/lammps/examples/reaxff/HNS
for p in /usr/local/bin/lmp /usr/bin/mpirun "$hns/in.reaxc.hns" /usr/share/lammps/examples/melt/in.melt; do
  [ -e "$root$p" ] || die "$root has no $p"
done

trap unmount_chroots EXIT
chroot_mounts "$root"

# A clean environment, as a container would have: the image's PATH and HOME only, in DIR.
# in_root DIR COMMAND...
in_root() {
  local dir=$1
  shift
  # shellcheck disable=SC2016 # expanded by the inner bash
  chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    /bin/bash -c 'cd "$1" && shift && exec "$@"' bash "$dir" "$@"
}

echo "== bash, no Flux"
in_root /tmp bash --version | head -n 1
if in_root /tmp bash -c 'command -v flux'; then die "the image has a flux command"; fi
echo "no flux command"

echo "== lmp on PATH and its shared libraries (ldd)"
lmp=$(in_root /tmp bash -c 'command -v lmp') || die "no lmp on the image's PATH"
echo "$lmp"
if in_root /tmp ldd "$lmp" | grep 'not found'; then die "$lmp lacks shared libraries in the image"; fi
echo "all found"

echo "== lmp -h: installed packages"
help=$(in_root /tmp lmp -h 2>&1) || true
grep -A3 '^Installed packages:' <<<"$help" || { echo "$help"; die "lmp -h lists no installed packages"; }
grep -A3 '^Installed packages:' <<<"$help" | grep -qw REAXFF || die "lmp does not list REAXFF among its packages"

# run_lmp WHAT DIR ARGS...: lmp on 2 ranks under mpirun in DIR (--oversubscribe: 2 ranks even on a
# machine with 1 core); prints the LAMMPS version, the processor grid and the loop time.
run_lmp() {
  local what=$1 dir=$2 out loop
  shift 2
  echo "== ($dir) mpirun --allow-run-as-root --oversubscribe -np 2 lmp $*"
  out=$(in_root "$dir" timeout 600 mpirun --allow-run-as-root --oversubscribe -np 2 lmp "$@" 2>&1) || {
    echo "$out"
    die "mpirun lmp ($what) failed"
  }
  loop=$(grep '^Loop time of .* on 2 procs' <<<"$out") || {
    echo "$out"
    die "LAMMPS did not run $what on 2 procs"
  }
  grep -E '^(LAMMPS \(|  [0-9]+ by [0-9]+ by [0-9]+ MPI processor grid|Created [0-9]+ atoms|  [0-9]+ atoms)' <<<"$out" || true
  echo "$loop"
}
run_lmp 'LJ melt' /usr/share/lammps/examples/melt -log none -in in.melt
# The examples' folders belong to the image: the log goes to /tmp.
run_lmp 'the HNS example' "$hns" -log /tmp/log.hns -v x "$n" -v y "$n" -v z "$n" -in in.reaxc.hns -nocite
echo "== ok"
