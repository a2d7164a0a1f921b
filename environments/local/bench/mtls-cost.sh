#!/usr/bin/env bash
# Mutual TLS cost (ADR 0013, docs/performance.md "Caller authentication"): the packaged engine's CPU
# per AUTH request over plain HTTP keep-alive, over mutual TLS keep-alive (steady state), and over
# mutual TLS with a new connection per request (a full handshake each), in one run. Certificates (EC
# P-256) are made here with openssl. Velocity and the outbox are off.
#
#   environments/local/bench/mtls-cost.sh        (COUNT=3000 HANDSHAKES=500)
#
# With RATE set, open loop with k6 (loadtests/k6/constant.js) instead of one request at a time, four
# phases in one run: plain HTTP and mutual TLS on keep-alive connections at RATE (the steady state),
# then, on the same mutual-TLS engine at HS_RATE, keep-alive again and a new connection per request
# (k6 --no-connection-reuse: a full handshake each). Engine CPU per answered request from /proc; the
# steady state as mTLS keep-alive / plain at RATE, the handshake as its extra CPU over keep-alive at
# the same HS_RATE (µs per handshake, and the ratio). The first phase on each engine warms up for
# WARMUP, the later ones (same engine, already warm) for LATER_WARMUP. In a quiet window, ~5 minutes:
#
#   RATE=2000 environments/local/bench/mtls-cost.sh   (HS_RATE=100 WARMUP=45s LATER_WARMUP=15s DURATION=30s)
#
# Needs engine/service/target/quarkus-app (./mvnw -pl engine/service -am package -DskipTests).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
COUNT=${COUNT:-3000}
HANDSHAKES=${HANDSHAKES:-500}
OUT=${OUT:-$ROOT/.local/bench/mtls-cost}
APP=${APP:-$ROOT/engine/service/target/quarkus-app/quarkus-run.jar}
JAVA_HOME=${JAVA_HOME:-$("$ROOT/environments/local/bin/java-home.sh")}
JAVA=$JAVA_HOME/bin/java
[[ -f $APP ]] || { echo "mtls-cost: $APP missing; build it: ./mvnw -B -pl engine/service -am package -DskipTests" >&2; exit 2; }
mkdir -p "$OUT"
cd "$OUT"
cert() { # <name> <subject> <ext> : key + certificate signed by the CA
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$1.key" -subj "$2" -out "$1.csr" 2> /dev/null
  openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 -extfile <(printf '%s' "$3") -out "$1.crt" 2> /dev/null
}
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -subj "/CN=vigil-bench-ca" -days 2 -out ca.crt 2> /dev/null
cert server "/CN=localhost" "subjectAltName=DNS:localhost,IP:127.0.0.1
extendedKeyUsage=serverAuth"
cert client "/CN=switch-bench/O=Vigil" "subjectAltName=URI:spiffe://vigil.bench/ns/payments/sa/switch
extendedKeyUsage=clientAuth"
openssl pkcs12 -export -in client.crt -inkey client.key -certfile ca.crt -passout pass:bench -out client.p12

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
TCK=$(getconf CLK_TCK)
ENGINE=
stop_engine() { if [[ -n $ENGINE ]]; then kill "$ENGINE" 2>/dev/null || true; wait "$ENGINE" 2>/dev/null || true; fi; ENGINE=; }
trap stop_engine EXIT

start_engine() { # <tls: true|false> ; sets ENGINE, URL
  local tls=$1 port mport sport
  port=$(free_port); mport=$(free_port); sport=$(free_port)
  local props=(-Dquarkus.http.port="$port" -Dquarkus.management.port="$mport"
    -Dvigil.rulesets.dir="$ROOT/engine/service/src/test/resources/rulesets" -Dvigil.velocity.enabled=false -Dvigil.outbox.enabled=false)
  if [[ $tls == true ]]; then
    props+=(-Dquarkus.tls.data.key-store.pem.0.cert="$OUT/server.crt" -Dquarkus.tls.data.key-store.pem.0.key="$OUT/server.key"
      -Dquarkus.tls.data.trust-store.pem.certs="$OUT/ca.crt" -Dquarkus.http.tls-configuration-name=data
      -Dquarkus.http.insecure-requests=disabled -Dquarkus.http.ssl-port="$sport"
      -Dvigil.auth.data.client-certificate-required=true -Dvigil.auth.data.allowed-subjects=spiffe://vigil.bench/ns/payments/sa/switch)
    URL="https://localhost:$sport/v1/evaluate/auth"
  else
    URL="http://127.0.0.1:$port/v1/evaluate/auth"
  fi
  "$JAVA" -XX:+UseParallelGC -Xmx1g "${props[@]}" -jar "$APP" > "$OUT/engine-$tls.log" 2>&1 &
  ENGINE=$!
  for _ in $(seq 1 120); do
    curl -fs "http://127.0.0.1:$mport/q/health/ready" > /dev/null && return 0
    sleep 0.5
  done
  echo "mtls-cost: the engine did not become ready (log: $OUT/engine-$tls.log)" >&2
  exit 1
}

measure() { # <name> <mode> <count> [tls args...] : engine CPU µs per request
  local name=$1 mode=$2 n=$3; shift 3
  "$JAVA" "$ROOT/environments/local/bench/TlsCost.java" "$URL" "$mode" 300 "$@" > /dev/null # warm-up
  local before ok after
  before=$(cpu_ticks "$ENGINE")
  ok=$("$JAVA" "$ROOT/environments/local/bench/TlsCost.java" "$URL" "$mode" "$n" "$@")
  after=$(cpu_ticks "$ENGINE")
  python3 -c "print(f'| $name | $n | $ok | {($after - $before) * 1e6 / $TCK / $n:.0f} |')"
}

if [[ -n ${RATE:-} ]]; then
  HS_RATE=${HS_RATE:-100}
  WARMUP=${WARMUP:-45s}
  LATER_WARMUP=${LATER_WARMUP:-15s}
  DURATION=${DURATION:-30s}
  K6=$("$ROOT/environments/local/bin/tools.sh" path k6)
  k6_run() { # <rate> <duration> <summary file> [k6 args] : open loop at the engine's URL (mutual TLS when it serves it)
    local rate=$1 duration=$2 summary=$3 tls=(); shift 3
    [[ $URL == https* ]] && tls=(CLIENT_CERT="$OUT/client.crt" CLIENT_KEY="$OUT/client.key" SSL_CERT_FILE="$OUT/ca.crt")
    env "${tls[@]}" BASE_URL="${URL%/v1/evaluate/auth}" RATE="$rate" DURATION="$duration" SUMMARY_FILE="$summary" \
      "$K6" run -q --no-thresholds "$@" "$ROOT/loadtests/k6/constant.js" > /dev/null 2>> "$OUT/k6.log" || true
  }
  rate_phase() { # <name> <rate> <warm-up> [k6 args] : prints name, rate, requests, achieved /s, engine µs per request
    local name=$1 rate=$2 warmup=$3 before after; shift 3
    k6_run "$rate" "$warmup" "$OUT/warmup.json" "$@"
    before=$(cpu_ticks "$ENGINE")
    k6_run "$rate" "$DURATION" "$OUT/$name.json" "$@"
    after=$(cpu_ticks "$ENGINE")
    python3 - "$OUT/$name.json" "$name" "$before" "$after" "$TCK" "$rate" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); o = s["overall"]
n = o["requests"]; us = (int(sys.argv[4]) - int(sys.argv[3])) * 1e6 / int(sys.argv[5]) / max(n, 1)
print(f"{sys.argv[2]}\t{sys.argv[6]}\t{n}\t{o.get('rps') or 0:.0f}\t{us:.1f}\tfailed {o.get('failed_rate') or 0:.4f}, dropped {o.get('dropped_iterations', 0)}")
PY
  }
  echo "mtls-cost: RATE=$RATE HS_RATE=$HS_RATE WARMUP=$WARMUP DURATION=$DURATION; before: $(uptime)"
  rows=()
  start_engine false
  rows+=("$(rate_phase plain-keepalive "$RATE" "$WARMUP")")
  stop_engine
  start_engine true
  rows+=("$(rate_phase mtls-keepalive "$RATE" "$WARMUP")")
  rows+=("$(rate_phase mtls-keepalive-low "$HS_RATE" "$LATER_WARMUP")")
  rows+=("$(rate_phase mtls-handshake "$HS_RATE" "$LATER_WARMUP" --no-connection-reuse)")
  stop_engine
  echo "mtls-cost: after: $(uptime)"
  printf '%s\n' "${rows[@]}" | python3 -c '
import sys
rows = {}
short = []
print("| phase | rate /s | requests | achieved /s | engine CPU µs per request | errors |")
print("|---|---:|---:|---:|---:|---|")
for line in sys.stdin:
    if not line.strip():
        continue
    name, rate, n, rps, us, err = line.rstrip("\n").split("\t")
    rows[name] = float(us)
    if float(rps) < 0.95 * float(rate):
        short.append(f"{name} {rps}/s of {rate}/s")
    print(f"| {name} | {rate} | {n} | {rps} | {float(us):.1f} | {err} |")
print()
steady = rows["mtls-keepalive"] / rows["plain-keepalive"]
print(f"steady state, mTLS keep-alive / plain keep-alive at the same rate: {steady:.3f}")
hs, ka = rows["mtls-handshake"], rows["mtls-keepalive-low"]
print(f"handshake: new connection per request / keep-alive at the same rate: {hs / ka:.2f}; {hs - ka:.0f} µs of engine CPU per handshake")
if short:
    print("NOT COMPARABLE: the load generator fell short (" + "; ".join(short) + "): CPU per request at a lower achieved rate carries more fixed cost; run again at a lower RATE / HS_RATE")
'
  exit 0
fi

echo "mtls-cost: before: $(uptime)"
echo "| phase | requests | answered 200 | engine CPU µs per request |"
echo "|---|---:|---:|---:|"
start_engine false
measure "plain HTTP, keep-alive" keepalive "$COUNT"
stop_engine
start_engine true
measure "mutual TLS, keep-alive" keepalive "$COUNT" "$OUT/client.p12" "$OUT/ca.crt"
measure "mutual TLS, new connection each (handshake)" handshake "$HANDSHAKES" "$OUT/client.p12" "$OUT/ca.crt"
stop_engine
echo "mtls-cost: after: $(uptime)"
