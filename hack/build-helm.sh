#!/usr/bin/env bash
# Builds Helm from its Go module (helm.sh/helm/v3) into a versioned cache outside the repository, for
# the tests that lint and render deploy/helm/flux-operator. Helm is not packaged in Debian, and nothing
# but the Go module proxy is reachable, so it is built from source like the local control plane.
# Prints the helm binary's path on stdout; progress goes to stderr. Reuses a complete cache.
set -euo pipefail
HELM_VERSION=v3.22.0

cache_root=${FLUX_OPERATOR_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/flux-operator}
bin_dir="$cache_root/helm/$HELM_VERSION/bin"
if [ -x "$bin_dir/helm" ]; then echo "$bin_dir/helm"; exit 0; fi

command -v go >/dev/null || export PATH="/usr/local/go/bin:$PATH"
command -v go >/dev/null || { echo "error: Go is needed to build Helm (go >= 1.24 on PATH)" >&2; exit 1; }
printf '[build-helm %s] building helm %s from the Go module proxy\n' "$(date +%T)" "$HELM_VERSION" >&2
mkdir -p "$bin_dir.partial"
CGO_ENABLED=0 GOFLAGS=-mod=mod GOTOOLCHAIN=local GOBIN="$bin_dir.partial" \
  go install -trimpath -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION" \
  "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" >&2
rm -rf "$bin_dir"
mv "$bin_dir.partial" "$bin_dir"
echo "$bin_dir/helm"
