#!/bin/bash
# Proves that the Flux view at VIEW (default /mnt/flux/view) works where it was copied, using nothing of
# the environment but bash and coreutils: what an application container of a plain image has. Run as
# root or as any uid. Checks, in order:
#   - every ELF file of the view loads each of its libraries from the view, through the view's loader;
#   - `flux --version`; `flux python -c 'import flux'`, and what the view's Python has zipped (its standard
#     library, cffi, ply) beside its yaml; a job's constraint parsed (flux's parser is ply's);
#   - `flux start --test-size=2` running a 2-node `flux run`;
#   - munged from the view with a new key, and `munge | unmunge` through its socket.
# Prints `== ok` last; exits non-zero at the first failure.
# Usage: flux-view-checks.sh [VIEW]
set -euo pipefail
view=${1:-/mnt/flux/view}
loader=$view/lib/ld-linux-x86-64.so.2
[ -x "$view/bin/flux" ] || { echo "error: $view/bin/flux is missing" >&2; exit 1; }
work=$(mktemp -d)
cleanup() {
  if [ -f "$work/munge/munged.pid" ]; then
    local pid tries=0
    pid=$(cat "$work/munge/munged.pid")
    kill "$pid" 2>/dev/null || true
    # munged writes its seed file as it exits: removing the folder before it is gone races with that
    # ("Directory not empty", seen under load).
    while kill -0 "$pid" 2>/dev/null && [ "$tries" -lt 100 ]; do
      sleep 0.1
      tries=$((tries + 1))
    done
  fi
  rm -rf "$work"
}
trap cleanup EXIT
echo "== as uid $(id -u), gid $(id -g), in $(cat /etc/debian_version 2>/dev/null || echo 'an image') with $(bash --version | head -n 1)"

echo "== the view's ELF files load their libraries from the view (through $loader --list)"
shopt -s globstar nullglob dotglob
checked=0
problems=()
for f in "$view"/**; do
  if [ ! -f "$f" ] || [ -L "$f" ]; then continue; fi
  # Programs and libraries only (the view's thousands of Python files need no look).
  [[ -x $f || $f == *.so || $f == *.so.* ]] || continue
  [ "$(head -c 4 "$f" | od -An -tx1 | tr -d ' \n')" = 7f454c46 ] || continue
  [ "$f" = "$loader" ] && continue
  checked=$((checked + 1))
  if ! out=$("$loader" --list "$f" 2>&1); then
    problems+=("$f: $out")
    continue
  fi
  while read -r line; do
    case $line in
    *'=> not found'*) problems+=("$f: $line") ;;
    *" => $view/"* | "$view/"* | linux-vdso.so.* | 'statically linked' | '') ;;
    *) problems+=("$f: loads from outside the view: $line") ;;
    esac
  done <<<"$out"
done
if [ ${#problems[@]} -gt 0 ]; then
  printf '%s\n' "${problems[@]}" >&2
  echo "error: ${#problems[@]} problems in $checked ELF files" >&2
  exit 1
fi
echo "$checked ELF files, every library from the view"

echo "== flux --version"
"$view/bin/flux" --version

echo "== flux python -c 'import flux'"
"$view/bin/flux" python -c 'import flux, flux.job; print(flux.__file__)'
"$view/bin/flux" python -c 'import json, email.mime.text, sqlite3, cffi, ply, yaml; print(json.__file__, ply.__file__)'
# --dry-run prints the jobspec: the constraint goes through flux's parser without an instance.
jobspec=$("$view/bin/flux" submit --dry-run --requires='host:node[0-1] or rank:0' hostname)
parsed='"constraints": {"or": [{"hostlist": ["node[0-1]"]}, {"ranks": ["0"]}]}'
[[ $jobspec == *"$parsed"* ]] || { echo "error: the jobspec lacks $parsed: $jobspec" >&2; exit 1; }
echo "the constraint parsed: $parsed"

echo "== flux start --test-size=2 flux run -N2 -n2"
cd "$work"
# shellcheck disable=SC2016 # expanded by the tasks' bash
timeout 120 "$view/bin/flux" start --test-size=2 \
  "$view/bin/flux" run -N2 -n2 --label-io bash -c 'echo "rank $FLUX_TASK_RANK of $(uname -n) size $FLUX_JOB_SIZE"' |
  sort

echo "== munged from the view, munge | unmunge"
# munged wants its socket's folder (and those above it) searchable by all, its key readable by it alone.
chmod 0755 "$work"
mkdir -m 0755 "$work/munge"
head -c 1024 /dev/urandom >"$work/munge/munge.key"
chmod 0400 "$work/munge/munge.key"
"$view/sbin/munged" --key-file="$work/munge/munge.key" --socket="$work/munge/munge.socket" \
  --pid-file="$work/munge/munged.pid" --log-file="$work/munge/munged.log" --seed-file="$work/munge/munged.seed"
"$view/bin/munge" -n -S "$work/munge/munge.socket" | "$view/bin/unmunge" -S "$work/munge/munge.socket" | head -n 3
echo "== ok"
