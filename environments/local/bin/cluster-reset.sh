#!/usr/bin/env bash
# Stops the local cluster and deletes its state (etcd data, certificates, kubeconfig, logs).
# The built tools in ~/.cache/vigil stay; the next `make cluster-up` starts from an empty cluster.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/cluster-lib.sh"
"$BIN/cluster-down.sh"
case "$CLUSTER_DIR" in
  */.local/*|*/cluster) rm -rf "$CLUSTER_DIR"; log "removed $CLUSTER_DIR" ;;
  *) die "refusing to delete unexpected directory $CLUSTER_DIR" ;;
esac
