#!/usr/bin/env bash
# Load benchmark of the data plane (docs/performance.md): starts Redis, Kafka, the engine and the relay
# as local processes, warms the engine up, then in one run measures
#   1. the engine's own no-op endpoint, closed loop (the HTTP ceiling of the same server)
#   2. AUTH closed loop (durability on)            -> AUTH / no-op ratio
#      and both again with wrk, a light generator   -> the engine's own ceiling (k6 is heavy)
#   3. the AUTH open-loop ladder (durability on)   -> latency per rate, the knee
#   4. the engine restarted with durability off: warm-up, closed loop, constant 4,000/s
#                                                   -> durability on / off ratios
# while sampling CPU and RSS of every process, and writes loadtests/results/<stamp>-<profile>/:
#   summary.json, summary.md, <phase>.json (k6 summaries), <phase>.html (k6 dashboards), processes.csv,
#   <phase>.log (k6 output), engine/relay metric snapshots around each phase.
#
#   environments/local/bin/loadtest.sh                     # full profile (~7 minutes of load)
#   BENCH_PROFILE=quick environments/local/bin/loadtest.sh # sized for < 2 minutes once built (65 s of k6)
# Other settings: BENCH_VUS (closed-loop VUs, 32), BENCH_STEPS / BENCH_STEP (ladder), BENCH_DASHBOARD=0
# (skip the HTML export), BENCH_ENGINE_JAVA_OPTS (the engine's heap and GC), BENCH_BUILD=0
# (do not rebuild the engine), BENCH_WRK_POOL (request bodies for the wrk phases, 40000).
#
# The platform is started with the functions of the local environment (*-lib.sh, as `make run` does:
# the engine and relay as engine-lib.sh / relay-lib.sh launch them). What this script started is
# stopped at the end; the engine is always stopped (it ran with bench settings).
set -euo pipefail
cd "$(dirname "$0")/../../.."
ROOT=$(pwd)
JAVA_HOME=${JAVA_HOME:-$(environments/local/bin/java-home.sh)}
export JAVA_HOME
BIN=environments/local/bin

PROFILE=${BENCH_PROFILE:-full}
case "$PROFILE" in
  quick)
    WARM=${BENCH_WARM:-8s}; MAX_DUR=${BENCH_MAX_DURATION:-6s}
    STEPS=${BENCH_STEPS:-1000,2000,4000,10000}; STEP=${BENCH_STEP:-6s}; GAP=1s
    OFF_WARM=5s; OFF_DUR=6s ;;
  full)
    WARM=${BENCH_WARM:-30s}; MAX_DUR=${BENCH_MAX_DURATION:-30s}
    STEPS=${BENCH_STEPS:-1000,2000,4000,5000,10000,15000}; STEP=${BENCH_STEP:-20s}; GAP=2s
    OFF_WARM=15s; OFF_DUR=20s ;;
  *) echo "BENCH_PROFILE must be quick or full, was '$PROFILE'" >&2; exit 2 ;;
esac
VUS=${BENCH_VUS:-32}
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
OUT=${BENCH_OUT:-loadtests/results/$STAMP-$PROFILE}
ENGINE_URL=http://127.0.0.1:8081
ENGINE_METRICS=http://127.0.0.1:9081/q/metrics
ENGINE_READY=http://127.0.0.1:9081/q/health/ready
RELAY_METRICS=http://127.0.0.1:9091/q/metrics
PY="python3 loadtests/bench/bench.py"
mkdir -p "$OUT" .local/logs
T0=$SECONDS

log() { printf '==> [loadtest %3ss] %s\n' "$((SECONDS - T0))" "$*"; }

# ---- the platform --------------------------------------------------------------------------------
# The local environment's component functions (start_redis, start_kafka, start_relay, start_engine,
# stop_*), when present; anything missing is skipped or replaced below.
# The parts make run starts, as make run knows them (a glob over *-lib.sh also sourced the cluster's
# and the real node's libraries, which need the cluster's settings).
. "$BIN/platform-lib.sh"
has() { declare -F "$1" >/dev/null; }

# pid of the process listening on a loopback port (works whoever started it).
listener_pid() {
  { ss -ltnpH "sport = :$1" 2>/dev/null | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2; } || true
}

STARTED=()
start_component() { # name port
  local name=$1 port=$2
  if [ -n "$(listener_pid "$port")" ]; then
    log "$name already running on :$port (left running afterwards)"
    return 0
  fi
  if has "start_$name"; then
    if [ "$name" = relay ] && [ ! -f engine/relay/target/quarkus-app/quarkus-run.jar ]; then
      log "building the relay (engine/relay, tests skipped)"
      ./mvnw -B --no-transfer-progress -q -pl engine/relay -am -DskipTests package
    fi
    "start_$name"
    STARTED+=("$name")
  else
    log "$name: no start_$name in $BIN/*-lib.sh; running without it"
  fi
}

build_engine_if_needed() {
  local jar=engine/service/target/quarkus-app/quarkus-run.jar
  # BENCH_BUILD=0: run the jar as built (e.g. while sources are being edited).
  if [ "${BENCH_BUILD:-1}" = 0 ] && [ -f "$jar" ]; then return 0; fi
  if [ ! -f "$jar" ] || [ -n "$(find engine/service/src/main engine/rules/src/main engine/service/pom.xml -newer "$jar" -type f -print -quit)" ]; then
    log "building the engine (engine/service, tests skipped)"
    ./mvnw -B --no-transfer-progress -q -pl engine/service -am -DskipTests package
  fi
}

# The heap and collector are engine.properties' (fixed and small: the RSS target, 300 MB, is part of
# what is measured); BENCH_ENGINE_JAVA_OPTS or VIGIL_ENGINE_JAVA_OPTS add to them and win.
export VIGIL_ENGINE_JAVA_OPTS=${VIGIL_ENGINE_JAVA_OPTS:-${BENCH_ENGINE_JAVA_OPTS:-}}
engine_start() {
  # Bench settings reach the engine as environment (Quarkus config): the no-op ceiling endpoint on,
  # durability on or off.
  export VIGIL_HTTP_NOOP_ENDPOINT_ENABLED=true
  export VIGIL_OUTBOX_ENABLED=$1
  build_engine_if_needed
  start_engine
  local i
  for i in $(seq 1 120); do
    if curl -fsS -o /dev/null "$ENGINE_READY" 2>/dev/null; then
      local pid; pid=$(listener_pid 8081)
      log "engine ready (pid $pid, durability $1)"
      # The JVM options the engine really runs with, for the report.
      tr '\0' ' ' < "/proc/$pid/cmdline" | sed 's/ -jar .*//; s/ -cp .*//; s/^[^ ]*java //' > "$OUT/.engine-opts" || true
      return 0
    fi
    sleep 0.5
  done
  echo "ERROR: the engine did not become ready in 60 s; see .local/logs/" >&2
  return 1
}

engine_stop() {
  stop_engine || true
  local other; other=$(listener_pid 8081)
  [ -z "$other" ] || { echo "ERROR: something else (pid $other) still listens on :8081; stop it (make stop)" >&2; return 1; }
}

SAMPLER=""
cleanup() {
  [ -n "$SAMPLER" ] && kill "$SAMPLER" 2>/dev/null || true
  engine_stop || true
  local c
  for c in "${STARTED[@]}"; do has "stop_$c" && "stop_$c" || true; done
}
trap cleanup EXIT

# pids of every process the sampler follows (rewritten when the engine restarts or k6 starts).
write_pids() { # [load generator pid [its name: k6 (default) or wrk]]
  local extra=${1:-}
  {
    local p
    p=$(listener_pid 8081) && [ -n "$p" ] && echo "engine $p"
    p=$(listener_pid 16379) && [ -n "$p" ] && echo "redis $p"
    p=$(listener_pid 19092) && [ -n "$p" ] && echo "kafka $p"
    p=$(listener_pid 9091) && [ -n "$p" ] && echo "relay $p"
    [ -n "$extra" ] && echo "${2:-k6} $extra"
    true
  } > "$OUT/.pids"
}

# ---- phases --------------------------------------------------------------------------------------
K6=$("$BIN/tools.sh" path k6)
PHASES=()

run_phase() { # name script expected-seconds [VAR=value...]
  local name=$1 script=$2 expect=$3; shift 3
  echo "$name" > "$OUT/.phase"
  $PY scrape "$ENGINE_METRICS" "$OUT/$name.engine-before.json"
  $PY scrape "$RELAY_METRICS" "$OUT/$name.relay-before.json"
  local dash=()
  [ "${BENCH_DASHBOARD:-1}" = 1 ] && dash=(K6_WEB_DASHBOARD=true K6_WEB_DASHBOARD_PORT=-1 K6_WEB_DASHBOARD_PERIOD=1s "K6_WEB_DASHBOARD_EXPORT=$OUT/$name.html")
  log "phase $name: $script $* (~${expect}s)"
  env "${dash[@]}" BASE_URL="$ENGINE_URL" SUMMARY_FILE="$OUT/$name.json" RUN_LABEL="$name" TXN_PREFIX="$STAMP-$name" "$@" \
    "$K6" run --quiet --no-usage-report "loadtests/k6/$script" > "$OUT/$name.log" 2>&1 &
  local k6pid=$! start=$SECONDS rc=0
  write_pids "$k6pid"
  while kill -0 "$k6pid" 2>/dev/null; do
    sleep 1
    if (( (SECONDS - start) % 10 == 0 )); then log "  $name: $((SECONDS - start))s of ~${expect}s"; fi
  done
  wait "$k6pid" || rc=$?
  write_pids
  $PY scrape "$ENGINE_METRICS" "$OUT/$name.engine-after.json"
  $PY scrape "$RELAY_METRICS" "$OUT/$name.relay-after.json"
  # The scenario's own summary (handleSummary), then k6's exit: 99 = a threshold failed (reported, not fatal).
  sed -n '/^vigil /,$p' "$OUT/$name.log" | sed 's/^/    /'
  if [ "$rc" != 0 ] && [ "$rc" != 99 ]; then
    log "phase $name: k6 exited $rc; see $OUT/$name.log"
    tail -5 "$OUT/$name.log" | sed 's/^/    /'
  fi
  PHASES+=("{\"name\":\"$name\",\"script\":\"$script\",\"k6_exit\":$rc,\"settings\":\"$*\"}")
}

secs() { echo "${1%s}"; }

# The engine's own ceiling with a light generator: wrk (one thread, closed loop) replays bodies of
# the same traffic generator (loadtests/wrk/pool.js) with unique transaction ids and 1% retries.
# k6 costs ~350-550 µs of CPU per request on the same two cores, so k6's closed loops measure k6 as
# much as the engine; these phases say what the engine does when the generator is cheap.
WRK=""
ensure_wrk() {
  WRK=$(command -v wrk || true)
  if [ -z "$WRK" ]; then
    log "installing wrk (Debian package) for the ceiling phases"
    local sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq wrk >/dev/null 2>&1 || true
    WRK=$(command -v wrk || true)
  fi
  [ -n "$WRK" ] || log "wrk unavailable: the wrk ceiling phases are skipped"
  if [ -n "$WRK" ] && [ ! -s "$OUT/.wrk-pool.txt" ]; then
    node loadtests/wrk/pool.js "${BENCH_WRK_POOL:-40000}" "$OUT/.wrk-pool.txt" auth >/dev/null
  fi
}

wrk_phase() { # name path duration
  local name=$1 path=$2 dur=$3
  [ -n "$WRK" ] || return 0
  echo "$name" > "$OUT/.phase"
  $PY scrape "$ENGINE_METRICS" "$OUT/$name.engine-before.json"
  $PY scrape "$RELAY_METRICS" "$OUT/$name.relay-before.json"
  log "phase $name: wrk -t1 -c$VUS $path (~$(secs "$dur")s)"
  "$WRK" -t1 -c"$VUS" -d"$dur" --timeout 5s -s loadtests/wrk/vigil.lua "$ENGINE_URL" -- \
    "$OUT/.wrk-pool.txt" "$path" "$STAMP-$name" "$OUT/$name.json" > "$OUT/$name.log" 2>&1 &
  local pid=$! rc=0
  write_pids "$pid" wrk
  wait "$pid" || rc=$?
  write_pids
  $PY scrape "$ENGINE_METRICS" "$OUT/$name.engine-after.json"
  $PY scrape "$RELAY_METRICS" "$OUT/$name.relay-after.json"
  grep '^vigil wrk' "$OUT/$name.log" | sed 's/^/    /' || tail -3 "$OUT/$name.log" | sed 's/^/    /'
  PHASES+=("{\"name\":\"$name\",\"script\":\"wrk vigil.lua $path\",\"k6_exit\":$rc,\"settings\":\"wrk -t1 -c$VUS\"}")
}

published() { # the relay's vigil_relay_published_total, or nothing
  curl -fsS --max-time 2 "$RELAY_METRICS" 2>/dev/null | awk '/^vigil_relay_published_total/ {s += $NF} END {if (NR) printf "%d", s}'
}

# Durable decisions at saturation: the relay drains a backlog of real decision events (the stream's
# newest entry, copied BENCH_DRAIN_EVENTS times inside Redis) into Kafka while nothing else runs; its
# published rate is the pipeline's capacity, which the AUTH phases (bounded by the engine) cannot reach.
relay_drain_phase() {
  if [ -z "$(listener_pid 9091)" ] || ! has stop_relay || ! has start_relay; then
    log "relay drain: skipped (no relay running)"
    return 0
  fi
  local n=${BENCH_DRAIN_EVENTS:-$([ "$PROFILE" = quick ] && echo 50000 || echo 200000)}
  local stream=${VIGIL_OUTBOX_STREAM:-vigil:decisions}
  echo relay-drain > "$OUT/.phase"
  log "phase relay-drain: relay stopped, $n copies of a real decision event queued on $stream, relay restarted"
  stop_relay >/dev/null
  local added
  added=$(redis-cli -h 127.0.0.1 -p 16379 EVAL "local e = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)[1]
    if not e then return 0 end
    for i = 1, tonumber(ARGV[1]) do redis.call('XADD', KEYS[1], '*', unpack(e[2])) end
    return tonumber(ARGV[1])" 1 "$stream" "$n" 2>&1 || true)
  start_relay >/dev/null
  write_pids
  if [ "$added" != "$n" ]; then
    log "relay drain: could not queue the backlog ($added)"
    return 0
  fi
  # From the first read after the relay is ready until the count stops moving (3 s unchanged): the
  # rate over that window. What the relay published while starting is before p0 and not counted.
  local p0 t0 p1 t1 now count still=0 limit=$((SECONDS + 120))
  p0=$(published); p0=${p0:-0}; t0=$(date +%s.%N)
  p1=$p0; t1=$t0
  while [ "$SECONDS" -lt "$limit" ] && [ "$still" -lt 3 ]; do
    sleep 1
    count=$(published); count=${count:-0}; now=$(date +%s.%N)
    if [ "$count" -gt "$p1" ]; then p1=$count; t1=$now; still=0; else still=$((still + 1)); fi
    log "  relay-drain: $((p1 - p0)) published (backlog $n)"
  done
  python3 - "$OUT/relay-drain.json" "$n" "${p0:-0}" "${p1:-0}" "$t0" "$t1" <<'PY'
import json, sys
out, n, p0, p1, t0, t1 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6])
secs = max(t1 - t0, 1e-3)
r = {"backlog": n, "published": p1 - p0, "seconds": round(secs, 2), "per_s": round((p1 - p0) / secs, 1)}
json.dump(r, open(out, "w"))
print(f"    relay published {r['published']:,} of the {n:,}-event backlog in {r['seconds']} s: {r['per_s']:,.0f}/s")
PY
}

log "profile $PROFILE -> $OUT"
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
"$BIN/ensure-deps.sh" >/dev/null
start_component redis 16379
start_component kafka 19092
engine_stop
engine_start true
start_component relay 9091
write_pids
: > "$OUT/processes.csv"
$PY sample "$OUT/.pids" "$OUT/.phase" "$OUT/processes.csv" &
SAMPLER=$!

n_steps=$(echo "$STEPS" | tr ',' '\n' | wc -l)
ladder_s=$(( n_steps * ($(secs "$STEP") + $(secs "$GAP")) ))

run_phase warmup constant.js "$(secs "$WARM")" RATE=2000 DURATION="$WARM" P99_MS=1000 P95_MS=1000 P50_MS=1000
run_phase max-noop max.js "$(secs "$MAX_DUR")" TARGET=noop VUS="$VUS" DURATION="$MAX_DUR"
run_phase max-auth max.js "$(secs "$MAX_DUR")" TARGET=auth VUS="$VUS" DURATION="$MAX_DUR"
ensure_wrk
wrk_phase ceiling-noop-wrk /v1/evaluate/noop "$MAX_DUR"
wrk_phase ceiling-auth-wrk /v1/evaluate/auth "$MAX_DUR"
run_phase ladder ladder.js "$ladder_s" STEPS="$STEPS" STEP_DURATION="$STEP" STEP_GAP="$GAP"

log "restarting the engine with durability off"
engine_stop
engine_start false
write_pids
run_phase warmup-durability-off constant.js "$(secs "$OFF_WARM")" RATE=2000 DURATION="$OFF_WARM" P99_MS=1000 P95_MS=1000 P50_MS=1000
run_phase max-auth-durability-off max.js "$(secs "$MAX_DUR")" TARGET=auth VUS="$VUS" DURATION="$MAX_DUR"
run_phase constant-durability-off constant.js "$(secs "$OFF_DUR")" RATE=4000 DURATION="$OFF_DUR"

relay_drain_phase

echo "-" > "$OUT/.phase"
kill "$SAMPLER" 2>/dev/null || true; SAMPLER=""

# meta.json: what ran where, for the report
ENGINE_OPTS=$(cat "$OUT/.engine-opts" 2>/dev/null || echo "?")
python3 - "$OUT" "$PROFILE" "$STAMP" "$($K6 version | head -1)" "$ENGINE_OPTS" "$(git rev-parse --short HEAD)" \
  "$LOAD_BEFORE" "$(cut -d' ' -f1-3 /proc/loadavg)" "${PHASES[@]}" <<'EOF'
import json, os, sys
out, profile, stamp, k6v, opts, commit, load_before, load_after, *phases = sys.argv[1:]
mem = int(open("/proc/meminfo").read().split()[1]) / 1024 / 1024
json.dump({"profile": profile, "stamp": stamp, "k6_version": k6v, "engine_java_opts": opts, "commit": commit,
           "cpus": os.cpu_count(), "mem_gb": round(mem), "loadavg_before": load_before, "loadavg_after": load_after,
           "phases": [json.loads(p) for p in phases]},
          open(os.path.join(out, "meta.json"), "w"), indent=2)
EOF
log "report"
$PY report "$OUT"
log "done in $((SECONDS - T0))s: $OUT (summary.md, summary.json, *.html dashboards)"
