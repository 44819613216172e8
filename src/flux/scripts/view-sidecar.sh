#!/bin/sh
# view-sidecar.sh MOUNT_PATH IMAGE: the command of a MiniCluster's flux-view container, a sidecar (an
# init container with restartPolicy Always), run with the view image's own /bin/sh (POSIX sh only, and
# cat, mv, rm, sleep, sync). It copies the view with view-init.sh beside it, then stays up until the
# kubelet stops it once the pod's containers have ended.
#
# Why a sidecar and not an init container that ends: the kubelet starts the brokers' containers as
# soon as it sees this one running, so the copy goes on while they are created, instead of their start
# waiting for the copy, for the end of this container (whose overlay's unmount writes the whole copy
# back to the node's disk), and for the kubelet's next relist. The brokers wait for the marker
# view.complete the copy writes last (docs/flux-view.md measures it).
#
# When the copy fails, its words go to MOUNT_PATH/view.failed, which a waiting broker reads and fails
# with, and to this container's log; then it exits with the copy's status, which the kubelet's
# restart shows in the pod's status, and the operator in the MiniCluster's.
set -u

if [ "$#" -ne 2 ]; then
  echo "flux-view-sidecar: usage: view-sidecar.sh MOUNT_PATH IMAGE" >&2
  exit 2
fi
mount_path=${1%/}
marker=$mount_path/view.complete
failed=$mount_path/view.failed
# The kubelet stops a sidecar with SIGTERM, which a shell run as the container's first process
# ignores unless it is trapped: without this the pod's end would wait for the grace period. The trap
# kills the last background job by $!, which the shell sets as it starts the sleep below: a variable
# assigned after it would be empty for a TERM that came in between, and the sleep would be left over.
trap 'if [ -n "$!" ]; then kill "$!" 2>/dev/null; fi; exit 0' TERM

if [ -f "$marker" ]; then
  # Restarted: the copy this pod's brokers run from stays as it is.
  echo "flux-view-sidecar: $marker is there: the view was copied before this container restarted"
elif [ -d "$mount_path" ] && [ -w "$mount_path" ]; then
  rm -f "$failed" "$failed.partial"
  status=0
  sh "${0%/*}/view-init.sh" "$@" 2>"$failed.partial" || status=$?
  if [ "$status" -ne 0 ]; then
    cat "$failed.partial" >&2
    mv "$failed.partial" "$failed"
    exit "$status"
  fi
  cat "$failed.partial" >&2
  rm -f "$failed.partial"
  # Written back now, while the brokers start, rather than when some container's end syncs the disk.
  sync -f "$marker" 2>/dev/null || sync
else
  # It cannot write there: view-init.sh says so, in one line, and fails.
  exec sh "${0%/*}/view-init.sh" "$@"
fi

while :; do
  sleep 3600 &
  wait "$!"
done
