#!/usr/bin/env bash
# Durability benchmark, AUTH side (docs/benchmarks.md, "Durability"): the packaged engine with the
# decision outbox on (writing to a local redis-server) vs off, same rulesets, same wrk load, rounds
# alternated so both see the same machine. Reports wrk's latency percentiles and throughput, and the
# outbox counters (offered / enqueued / dropped / XADD). Starts its own redis-server and engines on
# free ports; leaves nothing running. The relay side (drain rate and CPU per event of relay, Kafka and
# Redis, builds compared back to back): engine/relay RelayBenchmarkIT, see docs/benchmarks.md "Durability".
#
#   environments/local/bin/bench-durability.sh                   # 15 s runs, 2 rounds, 16 connections
#   BENCH_SECONDS=30 BENCH_ROUNDS=3 BENCH_CONNECTIONS=32 environments/local/bin/bench-durability.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
ROOT=$(pwd)
JAVA_HOME=${JAVA_HOME:-$(environments/local/bin/java-home.sh)}
JAVA="$JAVA_HOME/bin/java"
ENGINE_JAR="${ENGINE_JAR:-$ROOT/engine/service/target/quarkus-app/quarkus-run.jar}"
SECONDS_PER_RUN="${BENCH_SECONDS:-15}"
ROUNDS="${BENCH_ROUNDS:-2}"
CONNECTIONS="${BENCH_CONNECTIONS:-16}"
[ -f "$ENGINE_JAR" ] || { echo "ERROR: $ENGINE_JAR missing: run 'make build'" >&2; exit 1; }
command -v wrk >/dev/null || { echo "ERROR: wrk missing (apt-get install wrk)" >&2; exit 1; }

WORK=$(mktemp -d /tmp/vigil-bench-durability-XXXX)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  sleep 1
  for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

REDIS_PORT=$(free_port)
# make run's settings (AOF, noeviction): environments/local/test-support/.../redis/redis.conf
redis-server "$ROOT/environments/local/test-support/src/main/resources/io/vigil/testing/redis/redis.conf" \
  --port "$REDIS_PORT" --bind 127.0.0.1 --dir "$WORK" --daemonize no --logfile "$WORK/redis.log" &
PIDS+=($!)
for i in $(seq 1 50); do redis-cli -p "$REDIS_PORT" PING >/dev/null 2>&1 && break; sleep 0.1; done

cat > "$WORK/auth.lua" <<'LUA'
local n = 0
request = function()
  n = n + 1
  local body = string.format('{"transaction_id":"bench-%d-%d","card_hash":"card-%d","amount":%d.50,"currency":"EUR","merchant_category_code":"5411","card_present":false,"country_code":"DE"}', math.random(1, 1e9), n, n % 5000, (n % 2000) + 1)
  return wrk.format("POST", "/v1/evaluate/auth", {["Content-Type"] = "application/json"}, body)
end
LUA

start_engine() { # $1 = on|off; sets PORT and MPORT
  local port mport
  port=$(free_port); mport=$(free_port)
  "$JAVA" -Xmx512m -Dquarkus.http.port="$port" -Dquarkus.management.port="$mport" \
    -Dvigil.rulesets.dir="$ROOT/engine/rulesets" -Dvigil.velocity.enabled=false \
    -Dvigil.outbox.enabled=$([ "$1" = on ] && echo true || echo false) \
    -Dquarkus.redis.outbox.hosts="redis://127.0.0.1:$REDIS_PORT" \
    -jar "$ENGINE_JAR" > "$WORK/engine-$1.log" 2>&1 &
  PIDS+=($!)
  for i in $(seq 1 240); do
    curl -fsS -o /dev/null "http://127.0.0.1:$port/v1/evaluate/health" 2>/dev/null && break
    sleep 0.5
  done
  PORT=$port
  MPORT=$mport
}

start_engine on; PORT_ON=$PORT; MPORT_ON=$MPORT
start_engine off; PORT_OFF=$PORT
echo "==> engines: outbox on :$PORT_ON, off :$PORT_OFF; redis :$REDIS_PORT; $ROUNDS rounds of $SECONDS_PER_RUN s, $CONNECTIONS connections"
# warm-up
for p in "$PORT_ON" "$PORT_OFF"; do
  wrk -t2 -c"$CONNECTIONS" -d5s -s "$WORK/auth.lua" "http://127.0.0.1:$p" >/dev/null
done
for r in $(seq 1 "$ROUNDS"); do
  for mode in off on; do
    p=$PORT_OFF; [ "$mode" = on ] && p=$PORT_ON
    out=$(wrk -t2 -c"$CONNECTIONS" -d"${SECONDS_PER_RUN}s" --latency -s "$WORK/auth.lua" "http://127.0.0.1:$p")
    rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
    p50=$(echo "$out" | awk '$1=="50%" {print $2}')
    p90=$(echo "$out" | awk '$1=="90%" {print $2}')
    p99=$(echo "$out" | awk '$1=="99%" {print $2}')
    echo "round $r  outbox $mode  req/s $rps  p50 $p50  p90 $p90  p99 $p99"
  done
done
echo "==> outbox counters of the 'on' engine"
curl -s "http://127.0.0.1:$MPORT_ON/q/metrics" | grep -E '^vigil_outbox_(offered|enqueue|xadd)_total|^vigil_outbox_queue_(depth|capacity)' || true
echo "    stream length: $(redis-cli -p "$REDIS_PORT" XLEN vigil:decisions)"
