# The instance's cleanup in one process. When the initial program ends (or the instance is told to
# shut down), flux-core's rc1 has the broker run four `flux` commands in turn: stop the queues, mute
# the resource module's acquire stream, cancel the running jobs of every user, wait until idle. Each is
# a Python program that pays the interpreter's and the bindings' start (about 0.2 s each, 1 s of
# every MiniCluster's end on a 2-core node). This file does the same four requests from one process.
#
# It is two things, as flux-core 0.88's `flux modprobe` allows (docs/mpi.md, "Where apply-to-done
# goes"):
#   - an rc1 file on FLUX_MODPROBE_PATH_APPEND (<dir>/rc1.d/*.py), loaded into every broker's rc1:
#     on import it sets FLUX_DISABLE_JOB_CLEANUP in that rc1 process only, so flux-core's own task
#     pushes nothing, and its task pushes the one command that runs this file on rank 0. A
#     FLUX_DISABLE_JOB_CLEANUP the user set is left alone: then no cleanup is pushed at all, as Flux
#     would do. The broker's environment is untouched, so jobs and nested instances see no change.
#   - that command: `flux python <this file>` makes the requests, each even when one before it failed,
#     and exits 1 if any did.
# A Flux whose rc1 is not `flux modprobe` never reads the folder, and keeps its own cleanup.
import os
import shlex
import sys

DISABLE = "FLUX_DISABLE_JOB_CLEANUP"


def cleanup():
    import flux
    from flux.constants import FLUX_JOB_STATE_RUN, FLUX_USERID_UNKNOWN

    handle = flux.Flux()
    steps = [
        (
            "stop every queue",
            "job-manager.queue-start",
            {"start": False, "all": True, "nocheckpoint": True},
        ),
        ("mute the acquire stream", "resource.acquire-mute", {}),
        (
            "cancel the running jobs",
            "job-manager.raiseall",
            {
                "dry_run": False,
                "userid": FLUX_USERID_UNKNOWN,
                "states": FLUX_JOB_STATE_RUN,
                "severity": 0,
                "type": "cancel",
            },
        ),
        ("wait until idle", "job-manager.idle", {}),
    ]
    failed = 0
    for what, topic, payload in steps:
        try:
            answer = handle.rpc(topic, payload, nodeid=0).get()
        except OSError as error:
            failed += 1
            print(f"flux-operator cleanup: {what} ({topic}): {error}", file=sys.stderr)
            continue
        # As `flux cancel` says it: the jobs the instance's end cancelled are worth a line in its log.
        cancelled = answer.get("count", 0) if topic == "job-manager.raiseall" and answer else 0
        if cancelled:
            print(f"flux-operator cleanup: cancelled {cancelled} running job(s)", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(cleanup())

# Loaded by `flux modprobe rc1`: replace flux-core's four commands with this one, unless the user
# turned the cleanup off.
from flux.modprobe import task  # noqa: E402

REPLACES_CLEANUP = DISABLE not in os.environ
if REPLACES_CLEANUP:
    os.environ[DISABLE] = "replaced by flux-operator's one-step cleanup"


@task("flux-operator-cleanup", ranks="0")
def push_one_step_cleanup(context):
    if not REPLACES_CLEANUP:
        return
    command = f"flux python {shlex.quote(os.path.abspath(__file__))}"
    context.rpc("runat.push", {"name": "cleanup", "commands": [command]}).get()
