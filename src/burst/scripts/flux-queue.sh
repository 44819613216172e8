# shellcheck shell=sh
# The Flux queue snapshot, run in a MiniCluster's lead broker pod: sh -c "$(cat flux-queue.sh)"
# flux-queue [FLUX_URI] (src/burst/flux-queue-exec.ts). Prints one JSON document:
#   {"version":1,"jobs":<flux jobs --json>,"jobspecs":{"<f58 id>":<jobspec>,...},"resources":["<line>",...]}
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
command -v flux >/dev/null 2>&1 || unavailable 'flux: command not found'
jobs=$(flux jobs --user=all --filter=pending,running --json) ||
  unavailable "flux jobs --json failed (exit $?)"
ids=$(flux jobs --user=all --filter=sched,run --no-header --format='{id.f58plain}') ||
  unavailable "flux jobs --format failed (exit $?)"
resources=$(flux resource list --states=up,allocated --no-header --format='{state} {nnodes} {ranks}') ||
  unavailable "flux resource list failed (exit $?)"
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
printf ']}\n'
