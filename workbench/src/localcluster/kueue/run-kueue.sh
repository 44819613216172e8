#!/usr/bin/env bash
# Usage: run-kueue.sh CERT_DIR KUEUE [ARG...], run by `unshare --mount --propagation private`: puts
# CERT_DIR (tls.crt, tls.key) where Kueue's manager reads its metrics certificate, a fixed path when
# its own certificate management is off, for this process alone, then becomes the manager. Each
# cluster's Kueue sees its own certificates there; the host sees an empty folder.
set -euo pipefail
cert_dir=$1
shift
mount --bind "$cert_dir" /etc/kueue/metrics/certs
exec "$@"
