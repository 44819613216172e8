#!/bin/bash
# The initial program of an instance that stays up after its command (interactive with a command):
#   bash -c "<this file>" stay-up <program text> [quiet]
# The program text runs in a bash of its own, so whatever it does (`exit`, `set -e`) ends only that
# bash; its status is reported (unless quiet), then the lead broker stays up like an interactive one.
status=0
bash -c "$1" || status=$?
if [ "${2:-}" != quiet ]; then
  printf 'flux-operator: %s\n' "the program exited with status $status; the instance stays up (interactive)"
fi
exec sleep inf
