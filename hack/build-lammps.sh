#!/usr/bin/env bash
# Builds LAMMPS with the REAXFF package (Debian 12's `lmp` lacks it: `Unrecognized pair style 'reax/c'`)
# from Debian 12's lammps source package, once per source version and build options, into the cache:
# <cache>/lammps/<version>-<key of the options>/root holds usr/local/bin/lmp (5 MB, stripped; MPI:
# Debian's OpenMPI; LAMMPS's own library linked in statically) and LAMMPS's LICENSE. Prints that root on
# stdout; progress goes to stderr, each step's output to a log whose tail is printed when the step fails.
# Reuses a complete build. The source comes with `apt-get source` through a deb-src line of this build's
# own apt configuration and state (<cache>/lammps/apt; the machine's /etc/apt is left as it is),
# downloaded once into <cache>/lammps/source.
# The machine is Debian 12 like the image's bookworm root file system, so the build runs in the image.
# Usage: hack/build-lammps.sh
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
source "$here/lib.sh"

# Debian 12's lammps source package (upstream's stable release of 29 September 2021, update 2).
version=20220106.git7586adbb6a+ds1-2
suite=bookworm
# Only what the Go operator's LAMMPS examples (in.reaxc.hns: pair reax/c, fix qeq/reax) and LJ melt
# (the core) need; no OpenMP, no image or compression libraries: lmp then needs only libmpi at run time.
options=(
  -DCMAKE_BUILD_TYPE=Release
  -DCMAKE_INSTALL_PREFIX=/usr/local
  -DBUILD_MPI=on
  -DBUILD_OMP=off
  -DBUILD_SHARED_LIBS=off
  -DPKG_REAXFF=on
  -DWITH_JPEG=off
  -DWITH_PNG=off
  -DWITH_GZIP=off
  -DWITH_FFMPEG=off
)

base="$(cache_root)/lammps"
key=$(printf '%s\n' "$version" "${options[@]}" | sha256sum | cut -c1-12)
out="$base/$(echo "$version" | tr ':~' '__')-$key"
root="$out/root"
lmp="$root/usr/local/bin/lmp"
log() { printf '[build-lammps %s] %s\n' "$(date +%T)" "$*" >&2; }

complete() { [ -x "$lmp" ] && [ -f "$out/complete" ]; }
if complete; then echo "$root"; exit 0; fi

ensure_debian_packages "the LAMMPS build" cmake make g++ libopenmpi-dev openmpi-bin dpkg-dev xz-utils

mkdir -p "$out"
exec 9>"$out.lock"
if ! flock -n 9; then
  log "another build of LAMMPS $version ($key) is running; waiting for it"
  flock 9
fi
if complete; then echo "$root"; exit 0; fi

start=$(date +%s)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# run_logged NAME COMMAND...: runs COMMAND with its output in $work/NAME.log, and on failure prints the
# log's tail and stops.
run_logged() {
  local name=$1
  shift
  "$@" >"$work/$name.log" 2>&1 || {
    tail -60 "$work/$name.log" >&2
    die "$name failed (the lines above end $work/$name.log)"
  }
}

# The source package, once: its .dsc, upstream tarball and Debian changes, hash-checked by apt against
# the signed Sources index of this build's own apt state.
dsc="$base/source/lammps_${version#*:}.dsc"
if [ ! -f "$dsc" ]; then
  apt_dir="$base/apt"
  mkdir -p "$apt_dir/sources.list.d" "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$base/source"
  echo "deb-src http://deb.debian.org/debian $suite main" >"$apt_dir/sources.list"
  # The download runs as root: the sandbox user _apt cannot enter the cache under root's home.
  apt_options=(
    -o "Dir::Etc::SourceList=$apt_dir/sources.list"
    -o "Dir::Etc::SourceParts=$apt_dir/sources.list.d"
    -o "Dir::State::Lists=$apt_dir/lists"
    -o "Dir::Cache=$apt_dir/cache"
    -o "APT::Sandbox::User=root"
  )
  download() { env -C "$base/source" apt-get "${apt_options[@]}" source --download-only "lammps=$version"; }
  if ! compgen -G "$apt_dir/lists/*_Sources" >/dev/null; then
    log "apt-get update of this build's deb-src line ($suite main)"
    run_logged apt-update apt-get "${apt_options[@]}" update
  fi
  log "apt-get source lammps=$version"
  if ! download >"$work/apt-source.log" 2>&1; then
    log "not found with this build's package lists as they are: apt-get update, then again"
    run_logged apt-update apt-get "${apt_options[@]}" update
    run_logged apt-source download
  fi
  [ -f "$dsc" ] || die "apt-get source lammps=$version did not make $dsc"
fi

log "unpacking the source package (Debian's patches applied)"
run_logged dpkg-source dpkg-source -x "$dsc" "$work/src"
log "cmake ${options[*]}"
run_logged cmake cmake -S "$work/src/cmake" -B "$work/build" "${options[@]}"
log "make -j$(nproc) lmp (10 minutes of CPU: about 6 minutes on 2 idle cores, 25 beside another build)"
run_logged make make -C "$work/build" -j"$(nproc)" lmp

rm -rf "$root"
install -D -m 0755 -s "$work/build/lmp" "$lmp"
install -D -m 0644 "$work/src/LICENSE" "$root/usr/local/share/doc/lammps/LICENSE"
"$lmp" -h >"$work/help.txt" 2>&1 || true
grep -q 'REAXFF' "$work/help.txt" || { cat "$work/help.txt" >&2; die "the built lmp does not list REAXFF among its packages"; }
printf '%s\n' "lammps $version (Debian's source package)" "${options[@]}" >"$out/options"
touch "$out/complete"
log "built LAMMPS $version with REAXFF in $(($(date +%s) - start)) s into $root ($(du -sh "$root" | cut -f1))"
echo "$root"
