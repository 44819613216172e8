#!/usr/bin/env bash
# Installs what building the local container images needs (mmdebstrap for their root file systems)
# when running as root, else stops with one line naming the missing Debian packages.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
source "$here/lib.sh"
ensure_debian_packages "the container images" mmdebstrap
