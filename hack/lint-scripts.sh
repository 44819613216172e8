#!/usr/bin/env bash
# Usage: hack/lint-scripts.sh: lints the project's scripts as what they are (part of `npm run lint`),
# every .sh file with shellcheck, every .py file with flake8 (configured by .flake8). The entrypoint that
# pods run is a prologue plus src/flux/scripts/entrypoint.sh: its rendered variants are checked by
# test/unit/flux/entrypoint.test.ts. Installs the Debian packages when missing (as root), or stops
# with one line naming them.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
"$here/ensure-packages.sh" 'npm run lint' shellcheck flake8
cd "$root"
# The project's own files: not its dependencies, build output or local cluster.
project_files() {
  find . \( -path ./node_modules -o -path ./dist -o -path ./.cluster -o -path ./.git \) -prune \
    -o -type f -name "$1" -print | sort
}
mapfile -t shell_scripts < <(project_files '*.sh')
mapfile -t python_scripts < <(project_files '*.py')
[ ${#shell_scripts[@]} -gt 0 ] || { echo 'error: no .sh file found' >&2; exit 1; }
[ ${#python_scripts[@]} -gt 0 ] || { echo 'error: no .py file found' >&2; exit 1; }
shellcheck "${shell_scripts[@]}"
# Debian's python3 (its flake8 package), whatever python3 is first on PATH.
/usr/bin/python3 -m flake8 "${python_scripts[@]}"
echo "lint-scripts: shellcheck ${#shell_scripts[@]} .sh files, flake8 ${#python_scripts[@]} .py files: clean"
