#!/usr/bin/env bash
# Stops the tests' Kubernetes cluster (LocalCluster.java: .local/test-cluster, free ports), exactly the
# processes recorded in its pids/ (cluster-down.sh). The `make run` cluster (.local/cluster) is not
# touched.
#   test-cluster-down.sh                what `make test-cluster-down` runs
#   test-cluster-down.sh --unless-kept  what `make test` runs when the Maven build ends: keeps the
#                                       cluster when VIGIL_KEEP_TEST_CLUSTER=1 (faster next run)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
export VIGIL_CLUSTER_DIR="${VIGIL_TEST_CLUSTER_DIR:-$ROOT/.local/test-cluster}"
if [ "${1:-}" = --unless-kept ] && [ "${VIGIL_KEEP_TEST_CLUSTER:-0}" = 1 ]; then
  echo "==> [cluster] test cluster kept (VIGIL_KEEP_TEST_CLUSTER=1); make test-cluster-down stops it" >&2
  exit 0
fi
[ -d "$VIGIL_CLUSTER_DIR/pids" ] || exit 0
exec "$ROOT/environments/local/bin/cluster-down.sh"
