#!/usr/bin/env bash
# `make run`'s Kubernetes part: the local control plane (no containers; docs/local-environment.md),
# the operator out of cluster, and the sample FraudRulesets + FraudEngine with their status.
# Sourced by run.sh/stop.sh. VIGIL_RUN_KUBE=0 skips it (the data plane alone starts in seconds; a
# fresh machine first builds kube-apiserver and friends from Go modules, which takes minutes).
KUBE_LIB_BIN="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
KUBE_LIB_ROOT="$(cd "$KUBE_LIB_BIN/../../.." && pwd)"
. "$KUBE_LIB_BIN/operator-lib.sh"

start_kube() {
  [ "${VIGIL_RUN_KUBE:-1}" = 0 ] && { echo "==> local Kubernetes skipped (VIGIL_RUN_KUBE=0)"; return 0; }
  echo
  echo "==> local Kubernetes control plane (make cluster-up; builds its tools on first use)"
  "$KUBE_LIB_BIN/cluster-up.sh"
  # The real node (ADR 0008) so the sample FraudEngine runs from its own pods; kwok pods only when the
  # machine's one real node is held by another cluster, or with VIGIL_RUN_REAL_NODE=0.
  if [ "${VIGIL_RUN_REAL_NODE:-1}" = 1 ]; then
    "$KUBE_LIB_BIN/node-up.sh" || echo "==> WARNING: no real node (see above): the sample FraudEngine's pods are simulated by kwok"
  fi
  "$KUBE_LIB_BIN/cluster-crds.sh" all
  echo "==> operator (out of cluster)"
  "$KUBE_LIB_BIN/operator-run.sh" --background
  echo "==> sample FraudRulesets and FraudEngine"
  "$KUBE_LIB_BIN/operator-sample.sh"
  cat <<TXT
    kubectl             export KUBECONFIG=$KUBE_LIB_ROOT/.local/cluster/kubeconfig
                        $("$KUBE_LIB_BIN/tools.sh" path kubectl) get fraudengines,fraudrulesets -A
    operator log        .local/operator/operator.log
TXT
}

stop_kube() {
  # The operator operator-run.sh --background started (its pid file; the one stop of process-lib.sh).
  stop_operator
  if [ -f "$KUBE_LIB_ROOT/.local/cluster/kubeconfig" ]; then
    "$KUBE_LIB_BIN/cluster-down.sh" || true
  fi
}
