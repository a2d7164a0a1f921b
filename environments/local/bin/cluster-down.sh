#!/usr/bin/env bash
# Stops exactly the processes cluster-up.sh started (by their pid files), newest first: the real node
# (its pods deleted first, while the API server still runs), then the control plane.
# Keeps the state (etcd data, certificates) so the next `up` is fast; cluster-reset.sh wipes it.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/cluster-lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/node-lib.sh"
cluster_lock
node_down

for ((i = ${#COMPONENTS[@]} - 1; i >= 0; i--)); do
  stop_component "${COMPONENTS[$i]}"
done
log "cluster down"
