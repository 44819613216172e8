#!/usr/bin/env bash
# Proves that an unpacked MPI application image root file system works, in a chroot (as root): it has
# bash and no Flux (flux-lammps: `flux --version` instead), its MPI programs lack no shared library, and
# its program runs on 2 ranks that share one MPI_COMM_WORLD: LAMMPS's melt example under OpenMPI's mpirun
# (lammps-openmpi, and flux-lammps, the Flux image with LAMMPS), NetPIPE up to 1 KiB under MPICH's
# mpiexec (mpich).
# Mounts /proc, /dev and /sys (binds) and a /tmp inside only for the checks; unmounts them whatever happens.
# Usage: bash hack/check-mpi-image-rootfs.sh lammps-openmpi|flux-lammps|mpich ROOTFS
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 lammps-openmpi|flux-lammps|mpich ROOTFS" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "error: the chroot check needs root" >&2; exit 1; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
source "$here/lib.sh"
name=$1
root=$(realpath "$2")
case "$name" in
  lammps-openmpi | flux-lammps) programs=(/usr/bin/lmp /usr/bin/orterun) ;;
  mpich) programs=(/usr/bin/NPmpich2 /usr/bin/mpiexec.hydra) ;;
  *) die "unknown MPI image $name (lammps-openmpi, flux-lammps or mpich)" ;;
esac
for p in "${programs[@]}"; do [ -x "$root$p" ] || die "$root has no $p"; done

trap unmount_chroots EXIT
chroot_mounts "$root"

# A clean environment, as a container would have: the image's PATH and HOME only, in /tmp.
in_root() {
  chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    /bin/bash -c 'cd /tmp && exec "$@"' bash "$@"
}

if [ "$name" = flux-lammps ]; then
  echo "== bash, flux --version"
  in_root bash --version | head -n 1
  in_root flux --version
else
  echo "== bash, no Flux"
  in_root bash --version | head -n 1
  if in_root bash -c 'command -v flux'; then die "the image has a flux command"; fi
  echo "no flux command"
fi

echo "== shared libraries of ${programs[*]} (ldd)"
for p in "${programs[@]}"; do
  if in_root ldd "$p" | grep 'not found'; then die "$p lacks shared libraries in the image"; fi
done
echo "all found"

case "$name" in
  lammps-openmpi | flux-lammps)
    echo "== lmp -h | head"
    # lmp -h ends early on the pipe: its exit status is not the check's.
    in_root bash -c 'lmp -h | head -n 4 || true'
    echo "== mpirun --allow-run-as-root --oversubscribe -np 2 lmp -log none -in /usr/share/lammps/examples/melt/in.melt"
    # --oversubscribe: 2 ranks even on a machine with 1 core.
    out=$(in_root timeout 300 mpirun --allow-run-as-root --oversubscribe -np 2 \
      lmp -log none -in /usr/share/lammps/examples/melt/in.melt 2>&1) || {
      echo "$out"
      die "mpirun lmp failed"
    }
    loop=$(grep '^Loop time of .* on 2 procs' <<<"$out") || {
      echo "$out"
      die "LAMMPS did not run its melt example on 2 procs"
    }
    grep -E '^(LAMMPS|  [0-9]+ by [0-9]+ by [0-9]+ MPI processor grid)' <<<"$out"
    echo "$loop"
    ;;
  mpich)
    echo "== mpichversion"
    in_root mpichversion | head -n 1
    echo "== mpiexec -n 2 NPmpich2 -u 1024 -p 0 -n 100"
    out=$(in_root timeout 300 mpiexec -n 2 NPmpich2 -u 1024 -p 0 -n 100 -o /tmp/np.out 2>&1) || {
      echo "$out"
      die "mpiexec NPmpich2 failed"
    }
    # Each rank names itself (`0: host`, `1: host`) before the loop; rank 0 writes the figures.
    ranks=$(grep -cE '^[01]: ' <<<"$out" || true)
    [ "$ranks" -eq 2 ] || {
      echo "$out"
      die "NetPIPE did not start 2 ranks"
    }
    grep -E '^[01]: ' <<<"$out"
    echo "the largest message: bytes, Mbps, seconds"
    in_root tail -n 1 /tmp/np.out
    ;;
esac
echo "== ok"
