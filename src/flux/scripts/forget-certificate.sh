#!/bin/bash
# An rc1 script of every broker (its folder is on FLUX_RC_EXTRA, set by the entrypoint): removes the
# broker's private copy of the CURVE certificate (FLUX_OPERATOR_CURVE_CERT). By the time rc1 runs, the
# broker has read it (its overlay loads it with the builtin modules), and no job can run on this
# broker before rc1 ends: so from then on the jobs, which run as the same user, cannot read it.
# The entrypoint makes a new copy before each start. Never fails: a failed rc1 would stop the broker.
if [ -n "${FLUX_OPERATOR_CURVE_CERT:-}" ]; then
  rm -f "$FLUX_OPERATOR_CURVE_CERT" 2>/dev/null || true
fi
exit 0
