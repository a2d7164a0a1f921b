#!/usr/bin/env bash
# `make run`: starts the local platform in the background (each part only if not already running), shows
# it answering, prints where everything is. `make stop` stops exactly what this started; `make logs`
# shows the logs. Idempotent: running it again keeps what runs (restarting the engine if it was rebuilt).
#
# One function per part, started in dependency order; later parts (Kafka, relay, local cluster) are
# added as start_<part> functions in their own *-lib.sh, listed in platform-lib.sh, and one line in main
# below (and in stop.sh).
set -euo pipefail
BIN="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$BIN/platform-lib.sh"

pretty() {
  if command -v python3 >/dev/null 2>&1; then python3 -m json.tool 2>/dev/null || cat; else cat; fi
}

# POSTs a JSON body and prints the status and the answer.
show() {
  local title="$1" path="$2" body="$3" out status
  echo
  echo "--- $title"
  echo "    POST $path  $body"
  out=$(curl -sS -w $'\n%{http_code}' -H 'Content-Type: application/json' -d "$body" "$ENGINE_DATA_URL$path")
  status="${out##*$'\n'}"
  echo "    HTTP $status"
  printf '%s\n' "${out%$'\n'*}" | pretty | sed 's/^/    /'
}

# A just-started JVM answers its first requests slowly (class loading, JIT, connection pools): without
# this the demo would show DEGRADED answers that say more about a cold start than about the engine.
warm_up() {
  local i
  echo "==> warming up (40 requests)"
  for i in $(seq 1 40); do
    curl -s -o /dev/null -H 'Content-Type: application/json' \
      -d "{\"transaction_id\":\"warmup-$RANDOM-$i\",\"card_hash\":\"c-warmup-$i\",\"amount\":$i.5,\"merchant_category_code\":\"5411\",\"card_present\":true}" \
      "$ENGINE_DATA_URL/v1/evaluate/auth" || true
  done
}

demo() {
  echo
  echo "==> a few sample transactions (rulesets: $ENGINE_RULESETS)"
  show "approve: an ordinary card-present purchase" /v1/evaluate/auth \
    '{"transaction_id":"demo-approve-1","card_hash":"c-demo-0001","amount":23.40,"currency":"EUR","merchant_id":"m-grocery-001","merchant_category_code":"5411","card_present":true,"country_code":"DE","card_bin":"411111"}'
  show "decline by a rule: a card on the blocklist" /v1/evaluate/auth \
    '{"transaction_id":"demo-decline-1","card_hash":"c-stolen-0001","amount":59.99,"currency":"EUR","merchant_category_code":"5732","card_present":false,"country_code":"DE"}'
  show "bad request: amount sent as a string (400 with the field)" /v1/evaluate/auth \
    '{"transaction_id":"demo-bad-1","amount":"12.50"}'
  show "explain=true: matched rules, velocity results and timing" '/v1/evaluate/auth?explain=true' \
    '{"transaction_id":"demo-explain-1","card_hash":"c-demo-0002","amount":1850.00,"currency":"USD","merchant_category_code":"7995","card_present":false,"country_code":"US","ip_address":"185.220.101.1"}'
  show "monitoring: the caller's decision echoed with every matching rule" /v1/evaluate/monitoring \
    '{"transaction_id":"demo-monitoring-1","card_hash":"c-demo-0002","amount":1850.00,"currency":"USD","merchant_category_code":"7995","card_present":false,"country_code":"US","decision":"APPROVE"}'
}

urls() {
  cat <<TXT

==> running
    data (callers)      $ENGINE_DATA_URL/v1/evaluate/auth   /v1/evaluate/monitoring   /v1/evaluate/health
    management          $ENGINE_MANAGEMENT_URL/rulesets   (validate, activate, simulate, replay: docs/api.md)
    health              $ENGINE_MANAGEMENT_URL/q/health/ready   /q/health/live
    metrics             $ENGINE_MANAGEMENT_URL/q/metrics
    OpenAPI             $ENGINE_MANAGEMENT_URL/q/openapi
    logs                make logs      (files under .local/)
    stop                make stop
TXT
}

main() {
  if declare -F start_redis >/dev/null; then
    start_redis
  fi
  if declare -F start_kafka >/dev/null; then
    start_kafka
  fi
  if declare -F start_relay >/dev/null; then
    start_relay
  fi
  start_engine
  warm_up
  if declare -F start_prometheus >/dev/null; then
    start_prometheus
  fi
  demo
  if declare -F demo_velocity >/dev/null; then
    demo_velocity
  fi
  urls
  if declare -F durability_info >/dev/null; then
    durability_info
  fi
  start_kube
}

main "$@"
