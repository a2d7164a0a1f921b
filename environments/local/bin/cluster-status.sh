#!/usr/bin/env bash
# Prints which components of the local cluster run and, when the API answers, its nodes.
# Exit status 0 when every component runs, 3 otherwise.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/cluster-lib.sh"

all=0
for name in "${COMPONENTS[@]}"; do
  if pid=$(running_pid "$name"); then
    rss=$(awk '/VmRSS/ {printf "%d MiB", $2/1024}' "/proc/$pid/status" 2>/dev/null || true)
    printf '  %-24s running  pid %-8s %s\n' "$name" "$pid" "$rss"
  else
    printf '  %-24s stopped\n' "$name"
    all=3
  fi
done
if [ -f "$COMPONENT_KUBECONFIG" ] && running_pid kube-apiserver >/dev/null; then
  KUBECTL=$("$BIN/tools.sh" path kubectl 2>/dev/null)
  echo "  API server: https://127.0.0.1:$APISERVER_PORT  (export KUBECONFIG=$KUBECONFIG_OUT)"
  kubectl_ get nodes 2>&1 | sed 's/^/    /' || true
fi
exit $all
