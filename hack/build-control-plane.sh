#!/usr/bin/env bash
# Builds the local control plane (kube-apiserver, kube-controller-manager, kube-scheduler, kubectl,
# etcd, kwok, kwokctl) from Go modules into a versioned cache outside the repository.
# Prints the bin directory on stdout; progress goes to stderr. Reuses a complete cache.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=versions.env disable=SC1091 # plain KEY=VALUE lines
source "$here/versions.env"

cache_root=${FLUX_OPERATOR_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/flux-operator}
bin_dir="$cache_root/k8s/${KUBERNETES_VERSION}-etcd${ETCD_VERSION}-kwok${KWOK_VERSION}/bin"
binaries=(kube-apiserver kube-controller-manager kube-scheduler kubectl etcd kwok kwokctl)

complete() {
  local b
  for b in "${binaries[@]}"; do [ -x "$bin_dir/$b" ] || return 1; done
}
if complete; then echo "$bin_dir"; exit 0; fi

command -v go >/dev/null || { echo "error: Go is needed to build the local control plane (go >= 1.24 on PATH)" >&2; exit 1; }
log() { printf '[build-control-plane %s] %s\n' "$(date +%T)" "$*" >&2; }

# One build at a time per version (two test runs may start at once); the second reuses the first's result.
mkdir -p "$(dirname "$bin_dir")"
exec 9>"$bin_dir.lock"
if ! flock -n 9; then
  log "another build of $bin_dir is running; waiting for it"
  flock 9
fi
if complete; then echo "$bin_dir"; exit 0; fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rm -rf "$bin_dir.partial"
mkdir -p "$bin_dir.partial"
# GOTOOLCHAIN=auto (the default here) fetches a newer Go toolchain through the module proxy when the
# installed one is older than a module needs (Kubernetes 1.35 needs go 1.25); set GOTOOLCHAIN=local to forbid.
export CGO_ENABLED=0 GOFLAGS=-mod=mod GOTOOLCHAIN=${GOTOOLCHAIN:-auto}

build_kubernetes() {
  local mod="$work/kubernetes" minor patch staging ldflags pkg version="$KUBERNETES_VERSION"
  mkdir -p "$mod"
  minor=$(echo "$version" | cut -d. -f2)
  patch=$(echo "$version" | cut -d. -f3)
  # The kubernetes module replaces its staging modules with local folders, which `go install` refuses;
  # a wrapper module pins each of them to its published v0.<minor>.<patch> instead.
  local gomod
  gomod=$(go mod download -json "k8s.io/kubernetes@$version" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
  staging=$(sed -n 's#^\s*\(k8s.io/[a-z0-9-]*\) => ./staging/.*#\1#p' "$gomod")
  {
    echo "module local/control-plane-build"
    echo
    echo "go $(sed -n 's/^go //p' "$gomod")"
    echo
    echo "require k8s.io/kubernetes $version"
    echo
    echo "replace ("
    for m in $staging; do echo "	$m => $m v0.$minor.$patch"; done
    echo ")"
  } >"$mod/go.mod"
  local pkgs=(cmd/kube-apiserver cmd/kube-controller-manager cmd/kube-scheduler cmd/kubectl)
  log "resolving k8s.io/kubernetes $version ($(echo "$staging" | wc -w) staging modules)"
  (cd "$mod" && for pkg in "${pkgs[@]}"; do go get "k8s.io/kubernetes/$pkg@$version"; done) >&2
  local date; date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  ldflags="-s -w"
  for v in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $v.gitVersion=$version -X $v.gitMajor=1 -X $v.gitMinor=$minor -X $v.gitTreeState=clean -X $v.buildDate=$date"
  done
  for pkg in "${pkgs[@]}"; do
    log "building $(basename "$pkg")"
    (cd "$mod" && go build -trimpath -ldflags "$ldflags" -o "$bin_dir.partial/$(basename "$pkg")" "k8s.io/kubernetes/$pkg") >&2
  done
}

build_etcd() {
  local mod="$work/etcd"
  mkdir -p "$mod"
  printf 'module local/etcd-build\n\ngo 1.24\n' >"$mod/go.mod"
  log "building etcd $ETCD_VERSION"
  (cd "$mod" && go get "go.etcd.io/etcd/server/v3@$ETCD_VERSION" \
    && go build -trimpath -ldflags "-s -w" -o "$bin_dir.partial/etcd" go.etcd.io/etcd/server/v3) >&2
}

build_kwok() {
  local mod="$work/kwok" c
  mkdir -p "$mod"
  printf 'module local/kwok-build\n\ngo 1.24\n' >"$mod/go.mod"
  log "building kwok and kwokctl $KWOK_VERSION"
  (cd "$mod" && go get "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION" "sigs.k8s.io/kwok/cmd/kwokctl@$KWOK_VERSION") >&2
  for c in kwok kwokctl; do
    (cd "$mod" && go build -trimpath -ldflags "-s -w -X sigs.k8s.io/kwok/pkg/consts.Version=${KWOK_VERSION#v}" -o "$bin_dir.partial/$c" "sigs.k8s.io/kwok/cmd/$c") >&2
  done
}

start=$(date +%s)
build_etcd
build_kwok
build_kubernetes
rm -rf "$bin_dir"
mv "$bin_dir.partial" "$bin_dir"
log "built in $(( $(date +%s) - start ))s into $bin_dir"
echo "$bin_dir"
