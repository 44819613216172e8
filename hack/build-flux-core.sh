#!/usr/bin/env bash
# Builds flux-core from the source archive in ../shared/deps (no registry has it) once per version into
# the cache, installed under <cache>/flux-core/<version>/root with prefix /usr (what a Flux image holds).
# Prints that root on stdout; progress goes to stderr. Reuses a complete build.
# The machine is Debian 12 like the image's bookworm root file system, so the build runs in the image.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=versions.env disable=SC1091 # plain KEY=VALUE lines
source "$here/versions.env"
# shellcheck source=SCRIPTDIR/lib.sh
source "$here/lib.sh"

version=$FLUX_CORE_VERSION
archive="$(deps_dir)/flux-core-$version.tar.gz"
out="$(cache_root)/flux-core/$version"
root="$out/root"
log() { printf '[build-flux-core %s] %s\n' "$(date +%T)" "$*" >&2; }

complete() { [ -x "$root/usr/bin/flux" ] && [ -f "$out/complete" ]; }
if complete; then echo "$root"; exit 0; fi

[ -f "$archive" ] || die "the flux-core source $archive is missing (set FLUX_OPERATOR_DEPS to the folder that holds it)"
ensure_debian_packages "the flux-core build" autoconf automake libtool pkg-config make gcc g++ \
  libzmq3-dev uuid-dev libjansson-dev liblz4-dev libarchive-dev libhwloc-dev libsqlite3-dev lua5.1 \
  liblua5.1-0-dev lua-posix python3-dev python3-cffi python3-ply python3-setuptools python3-yaml \
  libncurses-dev libmunge-dev

mkdir -p "$out"
exec 9>"$out.lock"
if ! flock -n 9; then
  log "another build of flux-core $version is running; waiting for it"
  flock 9
fi
if complete; then echo "$root"; exit 0; fi

start=$(date +%s)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log "unpacking $archive"
tar -xzf "$archive" -C "$work"
src=$(find "$work" -mindepth 1 -maxdepth 1 -type d | head -n1)
# Debian's python (with its cffi, ply, yaml) and not a version manager's shim found earlier on PATH.
export PATH="/usr/bin:/bin:$PATH"
cd "$src"
log "autogen (the archive has no .git: FLUX_VERSION names the version)"
FLUX_VERSION=$version ./autogen.sh >"$work/autogen.log" 2>&1 || { tail -40 "$work/autogen.log" >&2; die "autogen.sh failed"; }
log "configure"
./configure --prefix=/usr --sysconfdir=/etc --localstatedir=/var --disable-docs \
  PYTHON=/usr/bin/python3 >"$work/configure.log" 2>&1 || { tail -40 "$work/configure.log" >&2; die "configure failed"; }
log "make -j$(nproc) (about 10 minutes on 2 cores)"
make -j"$(nproc)" >"$work/make.log" 2>&1 || { tail -60 "$work/make.log" >&2; die "make failed"; }
rm -rf "$root"
make install DESTDIR="$root" >"$work/install.log" 2>&1 || { tail -40 "$work/install.log" >&2; die "make install failed"; }
# Libtool archives and static libraries are of no use in an image.
find "$root" \( -name '*.la' -o -name '*.a' \) -delete
touch "$out/complete"
log "built flux-core $version in $(($(date +%s) - start)) s into $root ($(du -sh "$root" | cut -f1))"
echo "$root"
