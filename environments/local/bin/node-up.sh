#!/usr/bin/env bash
# Starts the real node beside the kwok nodes of a running local cluster (node-lib.sh, ADR 0008):
# containerd, kubelet, kube-proxy. Idempotent. cluster-up.sh runs it with VIGIL_REAL_NODE=1; the
# tests' cluster runs it for the test classes that need real pods (LocalCluster.ensureRealNode).
# Exit status 4 when another cluster on this machine holds the real node.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/cluster-lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/node-lib.sh"
cluster_lock
running_pid kube-apiserver >/dev/null || die "the cluster in $CLUSTER_DIR is not running (cluster-up.sh first)"
KUBECTL=$(tool kubectl)
node_up
