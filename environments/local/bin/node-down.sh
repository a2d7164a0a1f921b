#!/usr/bin/env bash
# Stops this cluster's real node (node-lib.sh): deletes its pods, stops kubelet, kube-proxy and
# containerd, restores the host settings; the control plane keeps running. cluster-down.sh does the
# same before stopping the control plane.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/cluster-lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/node-lib.sh"
cluster_lock
node_down
