#!/usr/bin/env bash
# Applies the sample FraudRulesets and FraudEngine (environments/local/samples) to the local cluster in
# namespace ${VIGIL_SAMPLE_NAMESPACE:-vigil-local}, waits for the engine to report Ready (kwok pods),
# and prints the resources with their status. The operator must run (make operator-run).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
NS=${VIGIL_SAMPLE_NAMESPACE:-vigil-local}
KUBECTL=$("$ROOT/environments/local/bin/tools.sh" path kubectl)
k() { "$KUBECTL" --kubeconfig "$ROOT/.local/cluster/kubeconfig" "$@"; }

k create namespace "$NS" --dry-run=client -o yaml | k apply -f - >/dev/null
k -n "$NS" apply -f "$ROOT/environments/local/samples/rulesets/"
k -n "$NS" apply -f "$ROOT/environments/local/samples/fraudengine.yaml"
if ! k -n "$NS" wait fraudengine/vigil --for condition=Ready --timeout "${VIGIL_SAMPLE_TIMEOUT:-180s}" >/dev/null; then
  echo "operator-sample: FraudEngine vigil is not Ready yet; its conditions:" >&2
fi
k -n "$NS" get fraudengines,fraudrulesets -o wide
k -n "$NS" get fraudengine vigil -o jsonpath='{range .status.conditions[*]}  {.type}={.status} ({.reason}) {.message}{"\n"}{end}'
