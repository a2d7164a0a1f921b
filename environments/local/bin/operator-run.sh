#!/usr/bin/env bash
# Runs the Vigil operator out of cluster against the local control plane (make cluster-up):
#   operator-run.sh               foreground, logs to the terminal (Ctrl-C stops it)
#   operator-run.sh --background  pid in .local/operator/operator.pid, log in .local/operator/operator.log
# Installs the CRDs from crds/ and the chart's FraudRuleset admission policy first, and builds the operator when its sources (or the k6 scripts it bundles) are newer than the jar.
# Launched as the tests launch it (operator-lib.sh: the jar, JVM options, readiness and timeouts of
# environments/local/test-support/.../app/operator.properties): the Quarkus fast-jar, as in its image.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
cd "$ROOT"
KUBECONFIG_FILE="$ROOT/.local/cluster/kubeconfig"
. "$ROOT/environments/local/bin/operator-lib.sh"
STATE="$OPERATOR_STATE"
JAVA_HOME=${JAVA_HOME:-$("$ROOT/environments/local/bin/java-home.sh")}
export JAVA_HOME

[ -f "$KUBECONFIG_FILE" ] || { echo "operator-run: no local cluster (.local/cluster/kubeconfig): run make cluster-up" >&2; exit 1; }
KUBECTL=$("$ROOT/environments/local/bin/tools.sh" path kubectl)
"$KUBECTL" --kubeconfig "$KUBECONFIG_FILE" apply --server-side --force-conflicts --field-manager vigil-crds -f "$ROOT/crds/" >/dev/null
"$KUBECTL" --kubeconfig "$KUBECONFIG_FILE" wait --for condition=Established --timeout 60s \
  crd/fraudengines.vigil.io crd/fraudrulesets.vigil.io crd/fraudloadtests.vigil.io >/dev/null
echo "operator-run: CRDs from crds/ installed"
# The chart's admission policy: a valid FraudRuleset's document is immutable (docs/operator/crd-reference.md).
# Under a name of its own (-local), so a chart release or its dry run in this cluster never collides with it.
sed 's/fraudruleset-versions\.vigil\.io/fraudruleset-versions-local.vigil.io/' \
  "$ROOT/charts/vigil-operator/files/fraudruleset-versions-policy.yaml" \
  | "$KUBECTL" --kubeconfig "$KUBECONFIG_FILE" apply --server-side --force-conflicts --field-manager vigil-operator-run -f - >/dev/null
echo "operator-run: FraudRuleset version policy installed"

if [ ! -f "$OPERATOR_JAR" ] || [ -n "$(find operator/api/src operator/controller/src/main loadtests/k6 -newer "$OPERATOR_JAR" -type f -print -quit)" ]; then
  echo "operator-run: building the operator"
  ./mvnw -B -q --no-transfer-progress -pl operator/api,operator/controller -am package -DskipTests
fi

mkdir -p "$STATE"
# The operator runs as the chart's ServiceAccount, not as the cluster admin (system:masters), so every
# local run exercises the chart's RBAC: the chart's ServiceAccount and roles (local values) are applied
# in vigil-system, and the operator gets a kubeconfig with a token of that ServiceAccount.
# VIGIL_OPERATOR_AS_ADMIN=1 keeps the admin kubeconfig (to tell an RBAC gap from another failure).
OP_NS=vigil-system
# A release name of its own, so these objects never collide with a chart release (vigil-operator) in
# the same local cluster (the charts tests install and dry-run those).
OP_RELEASE=vigil-operator-local
if [ "${VIGIL_OPERATOR_AS_ADMIN:-0}" = 1 ]; then
  export KUBECONFIG="$KUBECONFIG_FILE"
  echo "operator-run: running as the cluster admin (VIGIL_OPERATOR_AS_ADMIN=1)"
else
  HELM=$("$ROOT/environments/local/bin/tools.sh" path helm)
  "$KUBECTL" --kubeconfig "$KUBECONFIG_FILE" create namespace "$OP_NS" --dry-run=client -o yaml \
    | "$KUBECTL" --kubeconfig "$KUBECONFIG_FILE" apply --server-side --field-manager vigil-operator-run -f - >/dev/null
  HELM_CACHE_HOME="$STATE/helm" HELM_CONFIG_HOME="$STATE/helm" HELM_DATA_HOME="$STATE/helm" \
    "$HELM" template "$OP_RELEASE" "$ROOT/charts/vigil-operator" --namespace "$OP_NS" \
    -f "$ROOT/environments/local/operator-values.yaml" \
    --show-only templates/serviceaccount.yaml --show-only templates/rbac.yaml \
    | "$KUBECTL" --kubeconfig "$KUBECONFIG_FILE" apply --server-side --force-conflicts --field-manager vigil-operator-run -f - >/dev/null
  TOKEN=$("$KUBECTL" --kubeconfig "$KUBECONFIG_FILE" -n "$OP_NS" create token "$OP_RELEASE" --duration 24h)
  "$KUBECTL" --kubeconfig "$KUBECONFIG_FILE" config view --raw --minify >"$STATE/kubeconfig"
  "$KUBECTL" --kubeconfig "$STATE/kubeconfig" config set-credentials "$OP_RELEASE" --token "$TOKEN" >/dev/null
  "$KUBECTL" --kubeconfig "$STATE/kubeconfig" config set-context --current --user "$OP_RELEASE" >/dev/null
  chmod 600 "$STATE/kubeconfig"
  export KUBECONFIG="$STATE/kubeconfig"
  # As in the chart: leader election on the Lease in vigil-system (one replica here: it leads at once).
  export VIGIL_OPERATOR_LEADER_ELECTION_ENABLED=true POD_NAMESPACE="$OP_NS" POD_NAME="operator-run-$(hostname)"
  echo "operator-run: running as system:serviceaccount:$OP_NS:$OP_RELEASE (the chart's RBAC; token valid 24 h)"
fi
# No k6-operator locally: the operator runs FraudLoadTests' TestRuns itself (ADR 0014).
export VIGIL_LOADTEST_RUNNER="${VIGIL_LOADTEST_RUNNER:-jobs}"
operator_command
if [ "${1:-}" = "--background" ]; then
  if pid=$(operator_pid); then
    echo "operator-run: already running (pid $pid)"; exit 0
  fi
  start_background operator "$OPERATOR_PIDFILE" "$OPERATOR_LOG" "$(app_setting operator start.timeout.seconds)" operator_ready -- \
    "${OPERATOR_COMMAND[@]}"
  echo "operator-run: started (pid $(cat "$OPERATOR_PIDFILE"), log $OPERATOR_LOG)"
else
  exec "${OPERATOR_COMMAND[@]}"
fi
