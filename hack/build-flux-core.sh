#!/usr/bin/env bash
# Builds flux-core from the source archive in ../shared/deps (no registry has it) once per version and
# prefix into the cache, installed under <cache>/flux-core/<version>-<PREFIX as a name>/root with that
# prefix (its Python is PREFIX/bin/python3, compiled in). PREFIX is /mnt/flux/view unless given: the
# Flux view's; the Flux images take a copy relocated to /opt/flux-core
# (workbench/src/images/flux-core.ts), so a first run builds flux-core once.
# Prints that root on stdout; progress goes to stderr. Reuses a complete build.
# The machine is Debian 12 like the image's bookworm root file system, so the build runs in the image.
# Usage: hack/build-flux-core.sh [PREFIX]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=versions.env disable=SC1091 # plain KEY=VALUE lines
source "$here/versions.env"
# shellcheck source=SCRIPTDIR/lib.sh
source "$here/lib.sh"

version=$FLUX_CORE_VERSION
prefix=${1:-/mnt/flux/view}
case $prefix in
/usr | /usr/*) die "PREFIX must not be in /usr: the build gives itself PREFIX/bin/python3 on a tmpfs over PREFIX's first existing parent" ;;
/*/*) name=$version-$(echo "${prefix#/}" | tr / -) ;;
*) die "PREFIX must be an absolute path of at least two parts without spaces, not '$prefix'" ;;
esac
[[ $prefix =~ ^[A-Za-z0-9/_.-]+$ ]] || die "PREFIX may hold only letters, digits and / _ . -, not '$prefix'"
archive="$(deps_dir)/flux-core-$version.tar.gz"
out="$(cache_root)/flux-core/$name"
root="$out/root"
log() { printf '[build-flux-core %s] %s\n' "$(date +%T)" "$*" >&2; }

complete() { [ -x "$root$prefix/bin/flux" ] && [ -f "$out/complete" ]; }
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

# flux-core is configured with PYTHON=PREFIX/bin/python3, the interpreter its commands will run under
# (the view's own Python; in a Flux image, a link to Debian's at the relocated prefix). configure and make run that path, so each
# build step runs in a mount namespace of its own where a tmpfs over PREFIX's first existing parent holds
# PREFIX/bin/python3 -> Debian's python3: nothing of the host changes.
[ "$(id -u)" -eq 0 ] || die "building flux-core for $prefix needs root (a mount namespace gives it $prefix/bin/python3)"
python=$prefix/bin/python3
parent=$prefix
while [ ! -d "$parent" ]; do parent=$(dirname "$parent"); done
[ "$parent" != / ] || die "no parent of $prefix but / exists to mount a tmpfs on"
in_build() {
  # shellcheck disable=SC2016 # expanded by the inner bash
  unshare --mount --propagation private -- bash -c \
    'mount -t tmpfs -o mode=0755 flux-core-build "$1" && mkdir -p "$2/bin" && ln -s /usr/bin/python3 "$2/bin/python3" && shift 2 && exec "$@"' \
    in-build "$parent" "$prefix" "$@"
}

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
in_build ./configure --prefix="$prefix" --disable-docs \
  PYTHON="$python" >"$work/configure.log" 2>&1 || { tail -40 "$work/configure.log" >&2; die "configure failed"; }
log "make -j$(nproc) (about 10 minutes on 2 cores)"
in_build make -j"$(nproc)" >"$work/make.log" 2>&1 || { tail -60 "$work/make.log" >&2; die "make failed"; }
rm -rf "$root"
in_build make install DESTDIR="$root" >"$work/install.log" 2>&1 || { tail -40 "$work/install.log" >&2; die "make install failed"; }
# Libtool archives and static libraries are of no use in an image.
find "$root" \( -name '*.la' -o -name '*.a' \) -delete
touch "$out/complete"
log "built flux-core $version (prefix $prefix) in $(($(date +%s) - start)) s into $root ($(du -sh "$root" | cut -f1))"
echo "$root"
