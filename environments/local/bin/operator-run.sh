#!/usr/bin/env bash
# Runs the Vigil operator out of cluster against the local control plane (make cluster-up):
#   operator-run.sh               foreground, logs to the terminal (Ctrl-C stops it)
#   operator-run.sh --background  pid in .local/operator/operator.pid, log in .local/operator/operator.log
# Installs the CRDs from crds/ and the chart's FraudRuleset admission policy first, and builds the operator when its sources are newer than the jar.
# The jar is an uber-jar: Quarkus' fast-jar class loader deadlocked here (two reconciler threads
# loading classes from the same jar under heavy load); the plain JDK class loader does not.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
cd "$ROOT"
KUBECONFIG_FILE="$ROOT/.local/cluster/kubeconfig"
STATE="$ROOT/.local/operator"
JAR="$ROOT/operator/controller/target/vigil-operator-0.1.0-SNAPSHOT-runner.jar"
JAVA_HOME=${JAVA_HOME:-$("$ROOT/environments/local/bin/java-home.sh")}

[ -f "$KUBECONFIG_FILE" ] || { echo "operator-run: no local cluster (.local/cluster/kubeconfig): run make cluster-up" >&2; exit 1; }
KUBECTL=$("$ROOT/environments/local/bin/tools.sh" path kubectl)
"$KUBECTL" --kubeconfig "$KUBECONFIG_FILE" apply --server-side --force-conflicts --field-manager vigil-crds -f "$ROOT/crds/" >/dev/null
"$KUBECTL" --kubeconfig "$KUBECONFIG_FILE" wait --for condition=Established --timeout 60s \
  crd/fraudengines.vigil.io crd/fraudrulesets.vigil.io crd/fraudloadtests.vigil.io >/dev/null
echo "operator-run: CRDs from crds/ installed"
# The chart's admission policy: a valid FraudRuleset's document is immutable (docs/operator/crd-reference.md).
"$KUBECTL" --kubeconfig "$KUBECONFIG_FILE" apply --server-side --force-conflicts --field-manager vigil-crds \
  -f "$ROOT/charts/vigil-operator/files/fraudruleset-versions-policy.yaml" >/dev/null
echo "operator-run: FraudRuleset version policy installed"

if [ ! -f "$JAR" ] || [ -n "$(find operator/api/src operator/controller/src/main -newer "$JAR" -type f -print -quit)" ]; then
  echo "operator-run: building the operator"
  JAVA_HOME="$JAVA_HOME" ./mvnw -B -q --no-transfer-progress -pl operator/api,operator/controller -am package \
    -DskipTests -Dquarkus.package.jar.type=uber-jar
fi

mkdir -p "$STATE"
export KUBECONFIG="$KUBECONFIG_FILE"
OPTS=(-Xmx256m -XX:+UseSerialGC -Dquarkus.http.port="${VIGIL_OPERATOR_HTTP_PORT:-9191}")
if [ "${1:-}" = "--background" ]; then
  if [ -f "$STATE/operator.pid" ] && kill -0 "$(cat "$STATE/operator.pid")" 2>/dev/null; then
    echo "operator-run: already running (pid $(cat "$STATE/operator.pid"))"; exit 0
  fi
  nohup "$JAVA_HOME/bin/java" "${OPTS[@]}" -jar "$JAR" >"$STATE/operator.log" 2>&1 &
  echo $! >"$STATE/operator.pid"
  echo "operator-run: started (pid $!, log $STATE/operator.log)"
else
  exec "$JAVA_HOME/bin/java" "${OPTS[@]}" -jar "$JAR"
fi
