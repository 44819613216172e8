#!/usr/bin/env bash
# Usage: hack/ensure-packages.sh WHAT PACKAGE...: installs the missing Debian packages (as root), or
# stops with one line naming them (see ensure_debian_packages in lib.sh).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=SCRIPTDIR/lib.sh
source "$here/lib.sh"
[ $# -ge 2 ] || die "usage: $0 WHAT PACKAGE..."
ensure_debian_packages "$@"
