#!/usr/bin/env bash
# Builds what the local cluster's real node runs besides Debian's containerd: kubelet and kube-proxy (from
# the same pinned Kubernetes modules as the control plane), CoreDNS (cluster DNS) and the pod sandbox's
# `pause` binary (static, from the Kubernetes module's source), into a versioned cache folder.
# Prints the bin directory on stdout; progress goes to stderr. Reuses a complete cache.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=versions.env disable=SC1091 # plain KEY=VALUE lines
source "$here/versions.env"
# shellcheck source=SCRIPTDIR/lib.sh
source "$here/lib.sh"

bin_dir="$(cache_root)/k8s/${KUBERNETES_VERSION}-node-coredns${COREDNS_VERSION}/bin"
log() { printf '[build-real-node %s] %s\n' "$(date +%T)" "$*" >&2; }

start_cached_build "$bin_dir" kubelet kube-proxy coredns pause
command -v go >/dev/null || die "Go is needed to build the real node (go >= 1.26 on PATH)"
ensure_debian_packages "the pause binary" gcc libc6-dev
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export CGO_ENABLED=0 GOFLAGS=-mod=mod GOTOOLCHAIN=${GOTOOLCHAIN:-auto}
start=$(date +%s)

mod="$work/kubernetes"
pkgs=(cmd/kubelet cmd/kube-proxy)
log "resolving k8s.io/kubernetes $KUBERNETES_VERSION for kubelet and kube-proxy"
kubernetes_wrapper_module "$mod" "$KUBERNETES_VERSION" "${pkgs[@]}"
ldflags=$(kubernetes_ldflags "$KUBERNETES_VERSION")
for pkg in "${pkgs[@]}"; do
  log "building $(basename "$pkg")"
  (cd "$mod" && go build -trimpath -ldflags "$ldflags" -o "$bin_dir.partial/$(basename "$pkg")" "k8s.io/kubernetes/$pkg") >&2
done

log "building pause (static) from the Kubernetes module's build/pause/linux/pause.c"
src=$(cd "$mod" && go list -m -f '{{.Dir}}' k8s.io/kubernetes)
gcc -Os -static -o "$bin_dir.partial/pause" "$src/build/pause/linux/pause.c" -DVERSION="$KUBERNETES_VERSION"
strip "$bin_dir.partial/pause"

# CoreDNS's main package lives in its root module; its go.mod needs a recent Go.
dns="$work/coredns"
mkdir -p "$dns"
printf 'module local/coredns-build\n\ngo 1.26\n' >"$dns/go.mod"
log "building coredns $COREDNS_VERSION (about 6 minutes the first time)"
(cd "$dns" && go get "github.com/coredns/coredns@$COREDNS_VERSION" &&
  go build -trimpath -ldflags "-s -w" -o "$bin_dir.partial/coredns" github.com/coredns/coredns) >&2

finish_cached_build "$bin_dir"
log "built in $(($(date +%s) - start)) s into $bin_dir"
echo "$bin_dir"
