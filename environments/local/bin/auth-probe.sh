#!/usr/bin/env bash
# `make auth-probe`: caller authentication (issue 19, ADR 0013) tried as an attacker on the network
# would, against an engine that runs from its own pod on the local cluster's real node, through a
# FraudEngine. Needs `make run` up (its cluster, operator and sample FraudRulesets); starts the real
# node when it is not up (exit status 3 while another cluster on this machine holds it: try again later).
#
# It makes a CA, the engine's certificate (named for its Services), a caller's certificate, another CA
# with a caller of its own (openssl), three RSA signing keys and a JWKS served over HTTP from this host
# (python3's http.server on the address pods reach), applies FraudEngine `guarded` (the sample's spec as
# it runs on the real node, with JWT + mutual TLS on the data port and JWT roles + TLS on the management port),
# waits for Ready, then tries each case from this host against both ports through their Services'
# ClusterIPs (kube-proxy), and prints case -> expected -> got. Exit status 1 on any mismatch.
# The FraudEngine, its Secrets and the JWKS server are removed at the end (VIGIL_PROBE_KEEP=1 keeps them).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
BIN="$ROOT/environments/local/bin"
. "$BIN/process-lib.sh"
NS=${VIGIL_SAMPLE_NAMESPACE:-vigil-local}
FE=guarded
WORK="$ROOT/.local/auth-probe"
JWKS_PORT=${VIGIL_PROBE_JWKS_PORT:-18480}
ISSUER=https://issuer.vigil.local
AUDIENCE=vigil-engine
KUBECTL=$("$BIN/tools.sh" path kubectl)
k() { "$KUBECTL" --kubeconfig "$ROOT/.local/cluster/kubeconfig" "$@"; }
die() { echo "auth-probe: $*" >&2; exit 2; }
log() { echo "==> $*"; }
jwt() { python3 "$BIN/jwt_tool.py" "$@"; }

. "$BIN/sample-lib.sh"
[ -f "$ROOT/.local/cluster/kubeconfig" ] || die "no local cluster: start the platform with make run first"
k -n "$NS" get fraudrulesets >/dev/null 2>&1 || die "no sample FraudRulesets in $NS (make run applies them)"
command -v openssl >/dev/null || die "openssl is needed"
if ! real_node_ready; then
  # make run starts it unless another cluster held it then; exit status 4 when one still does
  log "the real node is not up: starting it (node-up.sh)"
  rc=0; VIGIL_CLUSTER_DIR="$ROOT/.local/cluster" "$BIN/node-up.sh" || rc=$?
  [ "$rc" = 0 ] || { echo "auth-probe: no real node (node-up.sh exit $rc; 4: another cluster holds it, try again later)" >&2; exit 3; }
fi

cleanup() {
  if [ -f "$WORK/jwks.pid" ]; then kill "$(cat "$WORK/jwks.pid")" 2>/dev/null || true; rm -f "$WORK/jwks.pid"; fi
  if [ "${VIGIL_PROBE_KEEP:-0}" != 1 ]; then
    k -n "$NS" delete fraudengine "$FE" --ignore-not-found --wait=false >/dev/null 2>&1 || true
    k -n "$NS" delete secret "$FE-tls" "$FE-callers-ca" --ignore-not-found >/dev/null 2>&1 || true
  fi
}
trap cleanup EXIT

rm -rf "$WORK"
mkdir -p "$WORK/jwks"
cd "$WORK"

log "certificates (openssl): a CA, the engine's certificate, a caller's, and another CA with its caller"
svc="$FE-engine.$NS.svc" mgmt="$FE-engine-management.$NS.svc"
ec() { openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$1.key" -subj "$2" "${@:3}" 2>/dev/null; }
ec ca "/CN=vigil-probe-ca" -x509 -days 2 -out ca.crt
ec other-ca "/CN=someone-elses-ca" -x509 -days 2 -out other-ca.crt
issue() { # name subject extensions ca
  ec "$1" "$2" -out "$1.csr"
  openssl x509 -req -in "$1.csr" -CA "$4.crt" -CAkey "$4.key" -CAcreateserial -days 2 -out "$1.crt" \
    -extfile <(printf '%s\n' "$3") 2>/dev/null
}
issue server "/CN=$svc" "subjectAltName=DNS:$FE-engine,DNS:$svc,DNS:$FE-engine-management,DNS:$mgmt
extendedKeyUsage=serverAuth" ca
issue client "/O=Acme/CN=probe-switch" "extendedKeyUsage=clientAuth" ca
issue intruder "/O=Acme/CN=probe-switch" "extendedKeyUsage=clientAuth" other-ca

log "signing keys and the issuer's JWKS on http://$(pod_reachable_host):$JWKS_PORT/jwks.json"
for n in 1 2 9; do openssl genrsa -out "key$n.pem" 2048 2>/dev/null; done
jwt jwks key1.pem:probe-1 > jwks/jwks.json
host=$(pod_reachable_host)
nohup python3 -m http.server "$JWKS_PORT" --bind "$host" --directory "$WORK/jwks" > jwks.log 2>&1 &
echo $! > jwks.pid
for _ in $(seq 1 50); do curl -fsS -o /dev/null "http://$host:$JWKS_PORT/jwks.json" 2>/dev/null && break; sleep 0.2; done
curl -fsS -o /dev/null "http://$host:$JWKS_PORT/jwks.json" || die "the JWKS server did not start (see $WORK/jwks.log)"

log "FraudEngine $FE in $NS: the sample's spec on the real node, authentication on"
k -n "$NS" create secret generic "$FE-tls" --from-file=tls.crt=server.crt --from-file=tls.key=server.key \
  --from-file=ca.crt=ca.crt --dry-run=client -o yaml | k apply -f - >/dev/null
k -n "$NS" create secret generic "$FE-callers-ca" --from-file=ca.crt=ca.crt --dry-run=client -o yaml | k apply -f - >/dev/null
patch=$(real_node_sample_patch)
k patch --local -f "$ROOT/environments/local/samples/fraudengine.yaml" --type merge -p "$patch" -o json | python3 -c '
import json, sys
fe, (name, ns, issuer, audience, jwks) = json.load(sys.stdin), sys.argv[1:]
spec = fe["spec"]
spec["durability"]["stream"]["name"] = "vigil:decisions:auth-probe"
spec["auth"] = {
  "data": {"jwt": True, "mutualTls": True, "requiredScope": "vigil.decide"},
  "management": {"jwt": True, "tls": True},
  "jwt": {"issuer": issuer, "audience": [audience], "jwksUrl": jwks},
  "tls": {"secretName": name + "-tls", "clientCaSecretRef": {"name": name + "-callers-ca", "key": "ca.crt"}}}
print(json.dumps({"apiVersion": fe["apiVersion"], "kind": fe["kind"], "metadata": {"name": name, "namespace": ns}, "spec": spec}))
' "$FE" "$NS" "$ISSUER" "$AUDIENCE" "http://$host:$JWKS_PORT/jwks.json" | k apply -f - >/dev/null
if ! k -n "$NS" wait "fraudengine/$FE" --for condition=Ready --timeout "${VIGIL_PROBE_TIMEOUT:-600s}" >/dev/null; then
  k -n "$NS" get fraudengine "$FE" -o jsonpath='{range .status.conditions[*]}  {.type}={.status} ({.reason}) {.message}{"\n"}{end}' >&2
  die "FraudEngine $FE is not Ready"
fi
data_ip=$(k -n "$NS" get service "$FE-engine" -o jsonpath='{.spec.clusterIP}')
mgmt_ip=$(k -n "$NS" get service "$FE-engine-management" -o jsonpath='{.spec.clusterIP}')
DATA="https://$svc:8081" MGMT="https://$mgmt:9081"
resolve=(--resolve "$svc:8081:$data_ip" --resolve "$mgmt:9081:$mgmt_ip")
log "ready: data $DATA ($data_ip), management $MGMT ($mgmt_ip)"

txn() { printf '{"transaction_id":"auth-probe-%s","card_hash":"c-probe-1","amount":12.5,"merchant_category_code":"5411","card_present":true}' "$RANDOM$RANDOM"; }
token() { jwt token --iss "$ISSUER" --aud "$AUDIENCE" "$@"; }
good() { token --key key1.pem --kid probe-1 "$@"; }

# One request; prints the HTTP status and the refusal's code/description, or how the connection failed.
request() {
  local out rc
  set +e
  out=$(curl -sS -o body -D headers -w '%{http_code}' --max-time 15 --cacert ca.crt "${resolve[@]}" "$@" 2>curl.err)
  rc=$?
  set -e
  if [ "$rc" != 0 ] && [ "${out:-000}" = 000 ]; then
    echo "no HTTP answer (curl $rc: $(tail -1 curl.err | sed 's/^curl: ([0-9]*) //' | cut -c1-60))"
    return
  fi
  local why
  why=$(sed -n 's/^[Ww][Ww][Ww]-[Aa]uthenticate: .*error_description="\([^"]*\)".*/\1/p' headers | tr -d '\r' | head -1)
  [ -n "$why" ] || why=$(python3 -c 'import json,sys
try: print(json.load(open("body")).get("code",""))
except Exception: print("")')
  echo "$out${why:+ ($why)}"
}
data() { request -X POST -H 'Content-Type: application/json' -d "$(txn)" "$@" "$DATA/v1/evaluate/auth"; }
cert=(--cert client.crt --key client.key)
bearer() { printf 'Authorization: Bearer %s' "$1"; }

ROWS=() MISMATCHES=0
# case port expected got: expected is a status, or "no HTTP answer" (the handshake or connection fails),
# or "not 2xx" (no decision, however the server ends it)
row() {
  local ok=ok
  case "$3" in
    "no HTTP answer") [[ "$4" == "no HTTP answer"* ]] || ok=MISMATCH ;;
    "not 2xx") [[ "$4" != 2* ]] || ok=MISMATCH ;;
    *) [[ "$4" == "$3"* ]] || ok=MISMATCH ;;
  esac
  [ "$ok" = ok ] || MISMATCHES=$((MISMATCHES + 1))
  ROWS+=("$(printf '| %s | %s | %s | %s | %s |' "$1" "$2" "$3" "$4" "$ok")")
  printf '    %-8s %-10s %-44s %-15s %s\n' "$ok" "$2" "$1" "$3" "$4"
}

log "the cases (data port: a valid client certificate unless the case is about it)"
READER=$(good --scope vigil.read) WRITER=$(good --scope vigil.write) CALLER=$(good --scope vigil.decide)
for port in data management; do
  if [ "$port" = data ]; then
    try() { data "${cert[@]}" -H "$(bearer "$1")" "${@:2}"; }
    row "no credentials (no certificate, no token)" data 401 "$(data)"
    row "valid certificate, no token" data 401 "$(data "${cert[@]}")"
    scope=(--scope vigil.decide)
  else
    try() { request -H "$(bearer "$1")" "${@:2}" "$MGMT/rulesets"; }
    row "no credentials" management 401 "$(request "$MGMT/rulesets")"
    scope=(--scope vigil.read)
  fi
  row "expired token (exp 1 h ago)" "$port" 401 "$(try "$(good "${scope[@]}" --exp-in -3600)")"
  row "wrong audience" "$port" 401 "$(try "$(token --key key1.pem --kid probe-1 "${scope[@]}" --aud someone-else)")"
  row "wrong issuer" "$port" 401 "$(try "$(token --key key1.pem --kid probe-1 "${scope[@]}" --iss https://evil.example)")"
  row "unknown kid" "$port" 401 "$(try "$(token --key key9.pem --kid probe-9 "${scope[@]}")")"
  row "alg none" "$port" 401 "$(try "$(good "${scope[@]}" --alg none)")"
  row "tampered signature" "$port" 401 "$(try "$(good "${scope[@]}" --tamper)")"
  # The engine's own 8 KiB token check answers (401 too_large, counted) over HTTP/1.1 and over HTTP/2
  # (what curl and most clients negotiate over TLS): the HTTP/2 header list limit is 24 KiB (ADR 0013).
  large=$(good "${scope[@]}" --pad 9000)
  row "token too large (12 KiB), HTTP/1.1" "$port" 401 "$(try "$large" --http1.1)"
  row "token too large (12 KiB), HTTP/2" "$port" 401 "$(try "$large" --http2)"
  if [ "$port" = data ]; then
    row "client without certificate (valid token)" data 401 "$(data -H "$(bearer "$CALLER")")"
    row "certificate from another CA (valid token)" data "no HTTP answer" \
      "$(data --cert intruder.crt --key intruder.key -H "$(bearer "$CALLER")")"
    row "plain HTTP" data "not 2xx" "$(request -X POST -H 'Content-Type: application/json' -d "$(txn)" "http://$svc:8081/v1/evaluate/auth")"
    row "valid token without the data scope" data 403 "$(try "$READER")"
    row "valid caller (certificate + token)" data 200 "$(try "$CALLER")"
  else
    row "plain HTTP" management "not 2xx" "$(request -H "$(bearer "$READER")" "http://$mgmt:9081/rulesets")"
    # No client certificate is asked here (ADR 0013, 5a): one from another CA is no credential either.
    row "certificate from another CA, no token" management 401 \
      "$(request --cert intruder.crt --key intruder.key "$MGMT/rulesets")"
    row "valid token with the data scope only" management 403 "$(try "$CALLER")"
    row "reader: GET /rulesets" management 200 "$(try "$READER")"
    row "reader doing a change (activate)" management 403 \
      "$(request -X POST -H "$(bearer "$READER")" "$MGMT/rulesets/CARD_AUTH/activate/2")"
    row "writer: POST /rulesets/validate" management 200 \
      "$(request -X POST -H "$(bearer "$WRITER")" -H 'Content-Type: application/json' -d '{"ruleset_key":"PROBE"}' "$MGMT/rulesets/validate")"
    row "kubelet's readiness path, no token" management 200 "$(request "$MGMT/q/health/ready")"
  fi
done

# A rotated key: the issuer publishes probe-2 beside probe-1; a token signed with it is refused
# (unknown_key) until the early fetch it triggers (never sooner than 30 s after the last) brings it.
log "rotated key: the issuer now publishes probe-2 (the engine fetches early on an unknown kid, floor 30 s)"
jwt jwks key2.pem:probe-2 key1.pem:probe-1 > jwks/jwks.json
rotated() { data "${cert[@]}" -H "$(bearer "$(token --key key2.pem --kid probe-2 --scope vigil.decide)")"; }
first=$(rotated) got=$first start=$SECONDS
while [[ "$got" != 200* ]] && [ $((SECONDS - start)) -lt 150 ]; do sleep 3; got=$(rotated); done
row "rotated key (first: $first; then after $((SECONDS - start)) s)" data 200 "$got"
row "rotated key" management 200 "$(request -H "$(bearer "$(token --key key2.pem --kid probe-2 --scope vigil.read)")" "$MGMT/rulesets")"

# The issuer goes down: once a fetch has failed, tokens never seen before still verify with the last keys.
log "JWKS down: the issuer's server stops; waiting for the engine's next fetch to fail"
kill "$(cat jwks.pid)"; rm -f jwks.pid
failed() {
  request -H "$(bearer "$READER")" "$MGMT/q/metrics" >/dev/null
  sed -n 's/^vigil_auth_jwks_fetches_total{.*result="failed".*} \([0-9.]*\).*/\1/p' body | head -1
}
data "${cert[@]}" -H "$(bearer "$(token --key key9.pem --kid probe-9 --scope vigil.decide)")" >/dev/null # asks for an early fetch
start=$SECONDS
while [ "$(failed)" = "" ] || [ "$(failed)" = 0.0 ]; do
  [ $((SECONDS - start)) -lt 150 ] || break
  sleep 3
done
fails=$(failed)
echo "    failed JWKS fetches: ${fails:-none}"
row "JWKS down (${fails%.*} failed fetch(es)): new token, last keys kept" data 200 "$(data "${cert[@]}" -H "$(bearer "$(good --scope vigil.decide)")")"
row "JWKS down: new token, last keys kept" management 200 "$(request -H "$(bearer "$(good --scope vigil.read)")" "$MGMT/rulesets")"

echo
echo "| Case | Port | Expected | Got | |"
echo "|---|---|---|---|---|"
printf '%s\n' "${ROWS[@]}"
echo
if [ "$MISMATCHES" -gt 0 ]; then
  echo "auth-probe: $MISMATCHES case(s) did not get what was expected" >&2
  exit 1
fi
echo "auth-probe: all ${#ROWS[@]} cases as expected"
