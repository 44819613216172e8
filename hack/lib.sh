# Shared by the hack/ build scripts: the cache and deps folders, and Debian packages on demand.
# shellcheck shell=bash

die() {
  printf 'error: %s\n' "$*" >&2
  exit 1
}

# Same rule as workbench/src/localcluster/paths.ts: $FLUX_OPERATOR_CACHE, else $XDG_CACHE_HOME/flux-operator.
cache_root() {
  echo "${FLUX_OPERATOR_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/flux-operator}"
}

# Third-party sources (flux-core, the Go operator) sit beside the project, never inside it.
deps_dir() {
  local root
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  echo "${FLUX_OPERATOR_DEPS:-$(dirname "$root")/shared/deps}"
}

# ensure_debian_packages WHAT PACKAGE...: installs the missing ones with apt-get when running as root,
# else stops with one line naming them.
ensure_debian_packages() {
  local what=$1 missing=() p
  shift
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
    die "$what needs these Debian packages: ${missing[*]} (install them: sudo apt-get install ${missing[*]})"
  fi
  printf '[packages] installing for %s: %s\n' "$what" "${missing[*]}" >&2
  # One apt-get at a time: two builds may ask at once.
  (
    flock 8
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1 ||
      { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }
  ) 8>/tmp/flux-operator-apt.lock || die "apt-get install ${missing[*]} failed (needed by $what)"
}

# kubernetes_wrapper_module DIR VERSION PACKAGE...: a Go module in DIR that requires k8s.io/kubernetes at
# VERSION with each staging module pinned to its published v0.<minor>.<patch> (the kubernetes module
# replaces them with local folders, which a dependent module cannot use), and resolves PACKAGEs.
kubernetes_wrapper_module() {
  local dir=$1 version=$2 minor patch gomod staging m pkg
  shift 2
  mkdir -p "$dir"
  minor=$(echo "$version" | cut -d. -f2)
  patch=$(echo "$version" | cut -d. -f3)
  gomod=$(go mod download -json "k8s.io/kubernetes@$version" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
  staging=$(sed -n 's#^\s*\(k8s.io/[a-z0-9-]*\) => ./staging/.*#\1#p' "$gomod")
  {
    echo "module local/kubernetes-build"
    echo
    echo "go $(sed -n 's/^go //p' "$gomod")"
    echo
    echo "require k8s.io/kubernetes $version"
    echo
    echo "replace ("
    for m in $staging; do echo "	$m => $m v0.$minor.$patch"; done
    echo ")"
  } >"$dir/go.mod"
  for pkg in "$@"; do (cd "$dir" && go get "k8s.io/kubernetes/$pkg@$version") >&2; done
}

# kubernetes_ldflags VERSION: what `kubectl version` and the components report about themselves.
kubernetes_ldflags() {
  local version=$1 minor date v flags="-s -w"
  minor=$(echo "$version" | cut -d. -f2)
  date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  for v in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    flags+=" -X $v.gitVersion=$version -X $v.gitMajor=1 -X $v.gitMinor=$minor -X $v.gitTreeState=clean -X $v.buildDate=$date"
  done
  echo "$flags"
}

# Cached builds of a folder of binaries. start_cached_build BIN_DIR BINARY...: when BIN_DIR holds every
# BINARY, prints it and exits; otherwise takes BIN_DIR's build lock (a second build of the same version
# waits for the first, then reuses its result) and makes an empty BIN_DIR.partial to build into.
# finish_cached_build BIN_DIR: moves the finished build into place.
cached_build_complete() {
  local dir=$1 b
  shift
  for b in "$@"; do [ -x "$dir/$b" ] || return 1; done
}

start_cached_build() {
  local dir=$1
  if cached_build_complete "$@"; then
    echo "$dir"
    exit 0
  fi
  mkdir -p "$(dirname "$dir")"
  exec 9>"$dir.lock"
  if ! flock -n 9; then
    printf '[build %s] another build of %s is running; waiting for it\n' "$(date +%T)" "$dir" >&2
    flock 9
  fi
  if cached_build_complete "$@"; then
    echo "$dir"
    exit 0
  fi
  rm -rf "$dir.partial"
  mkdir -p "$dir.partial"
}

finish_cached_build() {
  rm -rf "$1"
  mv "$1.partial" "$1"
}

# Mounts of the chroot checks (check-image-rootfs.sh, check-flux-view-rootfs.sh), undone in reverse
# order by unmount_chroots, which the script sets as its EXIT trap. chroot_bind SRC DIR binds SRC at DIR
# (made when missing); chroot_mounts ROOT gives ROOT a /proc, the host's /dev and /sys (hwloc reads the
# CPU topology from /sys: Flux discovers its resources with hwloc) and a /tmp of its own.
chroot_mounted=()
unmount_chroots() {
  local i
  for ((i = ${#chroot_mounted[@]} - 1; i >= 0; i--)); do
    umount "${chroot_mounted[i]}" 2>/dev/null || umount -l "${chroot_mounted[i]}"
  done
}

chroot_bind() { mkdir -p "$2" && mount --bind "$1" "$2" && chroot_mounted+=("$2"); }

chroot_mounts() {
  local root=$1
  mkdir -p "$root/proc" "$root/dev" "$root/sys" "$root/tmp"
  mount -t proc proc "$root/proc" && chroot_mounted+=("$root/proc")
  chroot_bind /dev "$root/dev"
  chroot_bind /sys "$root/sys"
  mount -t tmpfs -o mode=1777 tmpfs "$root/tmp" && chroot_mounted+=("$root/tmp")
}
