# shellcheck shell=sh
# The Flux queue snapshot, run in a MiniCluster's lead broker pod: sh -c "$(cat flux-queue.sh)"
# flux-queue [FLUX_URI [DRAIN [UNDRAIN [FLUX_DIR]]]] (src/burst/flux-queue-exec.ts). FLUX_DIR, when flux
# is not on PATH, is where it is (a Flux view's command folder). DRAIN and UNDRAIN are rank
# idsets (RFC 22) to drain and undrain first, as the instance owner (`--update`: ranks already so are
# left as they are), so a scale-in costs no exec beyond the poll's. Prints one JSON document:
#   {"version":1,"jobs":<flux jobs --json>,"jobspecs":{"<f58 id>":<jobspec>,...},"resources":["<line>",...],
#    "drain":["<state> <ranks>",...]}
# with the jobspec of every SCHED and RUN job (`flux job info` per job: the cost grows with them).
# Lists pending and running jobs of all users (--user=all): inactive ones do not matter to the
# planner and would make every snapshot grow with the instance's history. A failing flux command
# exits with 69 (sysexits EX_UNAVAILABLE) and says which on stderr. The version (1) and the exit code
# (69) are SNAPSHOT_FORMAT_VERSION and FLUX_UNAVAILABLE_EXIT_CODE of src/burst/flux-queue-parse.ts.
set -u
if [ "$#" -ge 1 ] && [ -n "$1" ]; then
  FLUX_URI=$1
  export FLUX_URI
fi
unavailable() {
  printf 'flux-queue: %s\n' "$1" >&2
  exit 69
}
if ! command -v flux >/dev/null 2>&1 && [ -n "${4-}" ]; then
  PATH=$PATH:$4
fi
command -v flux >/dev/null 2>&1 || unavailable 'flux: command not found'
drain=${2-}
undrain=${3-}
for set in "$drain" "$undrain"; do
  case $set in
  *[!0-9,-]*) unavailable "not a rank idset: $set" ;;
  esac
done
# Draining needs the instance owner's credentials; root may only look.
as_owner() {
  owner=$(flux getattr security.owner) || unavailable "flux getattr security.owner failed (exit $?)"
  if [ "$(id -u)" = 0 ] && [ "$owner" != 0 ]; then
    user=$(getent passwd "$owner" | cut -d: -f1)
    [ -n "$user" ] || unavailable "the instance owner (uid $owner) has no passwd entry"
    runuser -u "$user" -- "$@"
  else
    "$@"
  fi
}
if [ -n "$undrain" ]; then
  as_owner flux resource undrain --update "$undrain" 'flux-operator: scale-in cancelled' ||
    unavailable "flux resource undrain $undrain failed (exit $?)"
fi
if [ -n "$drain" ]; then
  as_owner flux resource drain --update "$drain" 'flux-operator: scale-in' ||
    unavailable "flux resource drain $drain failed (exit $?)"
fi
jobs=$(flux jobs --user=all --filter=pending,running --json) ||
  unavailable "flux jobs --json failed (exit $?)"
ids=$(flux jobs --user=all --filter=sched,run --no-header --format='{id.f58plain}') ||
  unavailable "flux jobs --format failed (exit $?)"
resources=$(flux resource list --states=up,down,allocated --no-header --format='{state} {nnodes} {ranks}') ||
  unavailable "flux resource list failed (exit $?)"
drained=$(flux resource status --states=drain --no-header --format='{state} {ranks}') ||
  unavailable "flux resource status failed (exit $?)"
printf '{"version":1,"jobs":%s,"jobspecs":{' "$jobs"
sep=''
for id in $ids; do
  case $id in
  *[!0-9A-Za-z]*) unavailable "unexpected job id from flux jobs: $id" ;;
  esac
  spec=$(flux job info "$id" jobspec) || unavailable "flux job info $id jobspec failed (exit $?)"
  printf '%s"%s":%s' "$sep" "$id" "$spec"
  sep=','
done
printf '},"resources":['
sep=''
while IFS= read -r line; do
  [ -n "$line" ] || continue
  case $line in
  *\"* | *\\*) unavailable "unexpected line from flux resource list: $line" ;;
  esac
  printf '%s"%s"' "$sep" "$line"
  sep=','
done <<RESOURCES
$resources
RESOURCES
printf '],"drain":['
sep=''
while IFS= read -r line; do
  [ -n "$line" ] || continue
  case $line in
  *\"* | *\\*) unavailable "unexpected line from flux resource status: $line" ;;
  esac
  printf '%s"%s"' "$sep" "$line"
  sep=','
done <<DRAINED
$drained
DRAINED
printf ']}\n'
