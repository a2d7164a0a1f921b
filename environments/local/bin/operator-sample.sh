#!/usr/bin/env bash
# Applies the sample FraudRulesets and FraudEngine (environments/local/samples) to the local cluster in
# namespace ${VIGIL_SAMPLE_NAMESPACE:-vigil-local}, waits for the engine to report Ready, and prints the
# resources with their status. The operator must run (make operator-run).
# With the cluster's real node up (ADR 0008), the sample runs from its own pods there: one engine replica,
# the images of `make images` (imported into the node), Redis and Kafka of `make run` by the host's
# address; then a demo decision goes through the engine's Service. Without it, kwok simulates the pods.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
BIN="$ROOT/environments/local/bin"
NS=${VIGIL_SAMPLE_NAMESPACE:-vigil-local}
KUBECTL=$("$BIN/tools.sh" path kubectl)
k() { "$KUBECTL" --kubeconfig "$ROOT/.local/cluster/kubeconfig" "$@"; }
. "$BIN/process-lib.sh"
. "$BIN/sample-lib.sh"

k create namespace "$NS" --dry-run=client -o yaml | k apply -f - >/dev/null
k -n "$NS" apply -f "$ROOT/environments/local/samples/rulesets/"
sample="$ROOT/environments/local/samples/fraudengine.yaml"
real_node=0
if real_node_ready; then
  real_node=1
  patch=$(real_node_sample_patch)
  k patch --local -f "$sample" --type merge -p "$patch" -o yaml | k -n "$NS" apply -f -
else
  k -n "$NS" apply -f "$sample"
fi
if ! k -n "$NS" wait fraudengine/vigil --for condition=Ready --timeout "${VIGIL_SAMPLE_TIMEOUT:-300s}" >/dev/null; then
  echo "operator-sample: FraudEngine vigil is not Ready yet; its conditions:" >&2
fi
k -n "$NS" get fraudengines,fraudrulesets -o wide
k -n "$NS" get fraudengine vigil -o jsonpath='{range .status.conditions[*]}  {.type}={.status} ({.reason}) {.message}{"\n"}{end}'
[ "$real_node" = 1 ] || exit 0

k -n "$NS" get pods -l app.kubernetes.io/instance=vigil -o wide
ip=$(k -n "$NS" get service vigil-engine -o jsonpath='{.spec.clusterIP}')
url="http://$ip:8081/v1/evaluate/auth"
# A fresh JVM spends its first requests on class loading and JIT (DEGRADED, DEADLINE_EXCEEDED): warm
# it until five answers in a row are NORMAL (at most 200 requests) before the demo answer.
normal=0
for i in $(seq 1 200); do
  if curl -s --max-time 5 -H 'Content-Type: application/json' \
      -d "{\"transaction_id\":\"pod-warmup-$RANDOM-$i\",\"card_hash\":\"c-pod-warmup-$i\",\"amount\":$i.5,\"merchant_category_code\":\"5411\",\"card_present\":true}" \
      "$url" | grep -q '"engine_mode":"NORMAL"'; then
    normal=$((normal + 1))
  else
    normal=0
  fi
  [ "$normal" -lt 5 ] || break
done
echo
echo "--- a decision from the engine's own pod on the real node, through its Service (ClusterIP $ip, kube-proxy)"
echo "    POST $url?explain=true"
curl -sS --max-time 5 -H 'Content-Type: application/json' \
  -d '{"transaction_id":"pod-demo-'"$(date +%s)"'","card_hash":"c-pod-demo-1","amount":23.40,"currency":"EUR","merchant_id":"m-grocery-001","merchant_category_code":"5411","card_present":true,"country_code":"DE","card_bin":"411111"}' \
  "$url?explain=true" | { python3 -m json.tool 2>/dev/null || cat; } | sed 's/^/    /'
cat <<TXT

    the sample FraudEngine's pods   export KUBECONFIG=$ROOT/.local/cluster/kubeconfig; kubectl -n $NS get pods -o wide
    its Service from this host      curl -H 'Content-Type: application/json' -d @txn.json $url
    or through port-forward         kubectl -n $NS port-forward svc/vigil-engine 18081:8081
    its events                      Kafka topic fraud.card.decisions.v1 (make watch-decisions)
    an in-cluster load test         kubectl -n $NS apply -f $ROOT/environments/local/samples/loadtest.yaml; kubectl -n $NS get flt -w
      (real k6 in a pod here; again: kubectl -n $NS delete flt local-smoke, then apply; its log: kubectl -n $NS logs -l k6_cr=local-smoke-g1)
TXT
