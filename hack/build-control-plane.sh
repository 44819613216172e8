#!/usr/bin/env bash
# Builds the local control plane (kube-apiserver, kube-controller-manager, kube-scheduler, kubectl,
# etcd, kwok, kwokctl) from Go modules into a versioned cache outside the repository.
# Prints the bin directory on stdout; progress goes to stderr. Reuses a complete cache.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=versions.env disable=SC1091 # plain KEY=VALUE lines
source "$here/versions.env"
# shellcheck source=SCRIPTDIR/lib.sh
source "$here/lib.sh"

bin_dir="$(cache_root)/k8s/${KUBERNETES_VERSION}-etcd${ETCD_VERSION}-kwok${KWOK_VERSION}/bin"
log() { printf '[build-control-plane %s] %s\n' "$(date +%T)" "$*" >&2; }
start_cached_build "$bin_dir" kube-apiserver kube-controller-manager kube-scheduler kubectl etcd kwok kwokctl
command -v go >/dev/null || die "Go is needed to build the local control plane (go >= 1.24 on PATH)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# GOTOOLCHAIN=auto (the default here) fetches a newer Go toolchain through the module proxy when the
# installed one is older than a module needs (Kubernetes 1.35 needs go 1.25); set GOTOOLCHAIN=local to forbid.
export CGO_ENABLED=0 GOFLAGS=-mod=mod GOTOOLCHAIN=${GOTOOLCHAIN:-auto}

build_kubernetes() {
  local mod="$work/kubernetes" ldflags pkg
  local pkgs=(cmd/kube-apiserver cmd/kube-controller-manager cmd/kube-scheduler cmd/kubectl)
  log "resolving k8s.io/kubernetes $KUBERNETES_VERSION and its staging modules"
  kubernetes_wrapper_module "$mod" "$KUBERNETES_VERSION" "${pkgs[@]}"
  ldflags=$(kubernetes_ldflags "$KUBERNETES_VERSION")
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
finish_cached_build "$bin_dir"
log "built in $(( $(date +%s) - start ))s into $bin_dir"
echo "$bin_dir"
