#!/usr/bin/env bash
# Engine CPU per request (docs/benchmarks.md, "Engine CPU per request"): the packaged engine's CPU time
# (utime+stime from /proc/<pid>/stat, without its JIT compiler threads, which are shown apart) divided
# by the requests it answered, for the no-op endpoint,
# AUTH with the durable outbox on, and AUTH with it off; wrk at a fixed concurrency with random card
# transactions (environments/local/bench/engine-txn.lua). Ratios to no-op taken in the same engine
# process are what compare across runs on a shared machine.
# Starts its own redis-server and engines on free ports; leaves nothing running.
#
#   environments/local/bin/bench-engine-cpu.sh                 # 20 s per phase, 16 connections
#   BENCH_SECONDS=30 BENCH_CONNECTIONS=32 environments/local/bin/bench-engine-cpu.sh
#   BENCH_PROFILE=1 ...  also profiles each AUTH phase with async-profiler (CPU samples; the jar comes from
#                        Maven Central through the Maven wrapper) and writes a summary by area and method
#   BENCH_JFR=1 ...      also records a JFR profile of each AUTH phase and prints its hot methods
#   BENCH_DURABILITY=on  only the engine with durability on (=off: only off; default both)
#   BENCH_BUILD=0 ...    use the engine jar as it is (no Maven build)
#   BENCH_JAR=<path>     another engine build's quarkus-run.jar (e.g. a baseline from a git worktree; implies
#                        you built it)
#   BENCH_ENGINE_OPTS=... JVM options of the engines; the default deadline and velocity timeout are long
#                        so that a busy shared machine does not turn AUTH into DEGRADED answers that skip
#                        velocity (that would measure less work, not less CPU per unit of work), and the
#                        velocity concurrency limit is lifted for the same reason (a closed loop saturates)
set -euo pipefail
cd "${VIGIL_ROOT:-$(dirname "$0")/../../..}"
ROOT=$(pwd)
JAVA_HOME=${JAVA_HOME:-$(environments/local/bin/java-home.sh)}
export JAVA_HOME
SECONDS_PER_PHASE=${BENCH_SECONDS:-20}
WARMUP_SECONDS=${BENCH_WARMUP_SECONDS:-30}
CONNECTIONS=${BENCH_CONNECTIONS:-16}
JFR=${BENCH_JFR:-0}
PROFILE=${BENCH_PROFILE:-0}
ENGINE_OPTS=${BENCH_ENGINE_OPTS:--Xmx512m -Dvigil.engine.deadline=1s -Dvigil.velocity.timeout=1s -Dvigil.velocity.limit.min=100000 -Dvigil.velocity.limit.max=100000}
LUA="$ROOT/environments/local/bench/engine-txn.lua"
JAR=${BENCH_JAR:-$ROOT/engine/service/target/quarkus-app/quarkus-run.jar}
OUT="$ROOT/.local/bench/engine-cpu/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$OUT"

command -v wrk >/dev/null 2>&1 || {
  echo "==> installing wrk (Debian package)"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq wrk >/dev/null
}
environments/local/bin/ensure-deps.sh >/dev/null
if [ "${BENCH_BUILD:-1}" = 1 ] && [ -z "${BENCH_JAR:-}" ]; then
  echo "==> building the engine (package, tests not run)"
  ./mvnw -B --no-transfer-progress -q -pl engine/service -am package -DskipTests
fi

PROFILER_LIB=""
if [ "$PROFILE" = 1 ]; then
  PROFILER_LIB=$(environments/local/bin/async-profiler.sh)
fi

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
TICK=$(getconf CLK_TCK)
# utime+stime of a process, in clock ticks
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# utime+stime of a process's JIT compiler threads (C1/C2): a still-warming JVM on a busy machine
# spends much of its CPU there; reported apart so that the request path's CPU is comparable.
jit_ticks() {
  local t s=0 line rest
  for t in /proc/"$1"/task/*; do
    line=$(cat "$t/stat" 2>/dev/null) || continue
    case "$line" in *"(C1 CompilerThre)"*|*"(C2 CompilerThre)"*) ;; *) continue ;; esac
    rest=${line##*) }
    set -- $rest
    s=$((s + ${12} + ${13}))
  done
  echo "$s"
}

PIDS=()
cleanup() {
  local p
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap cleanup EXIT

REDIS_PORT=$(free_port)
# make run's settings, but no AOF: this bench measures the engine's CPU, and Redis' own is not reported.
redis-server "$ROOT/environments/local/test-support/src/main/resources/io/vigil/testing/redis/redis.conf" \
  --port "$REDIS_PORT" --bind 127.0.0.1 --dir "$OUT" --appendonly no --daemonize no > "$OUT/redis.log" 2>&1 &
REDIS_PID=$!
PIDS+=("$REDIS_PID")

ENGINE_PID=""
start_engine() { # $1 = outbox enabled (true|false)
  local port mport
  port=$(free_port); mport=$(free_port)
  ENGINE_URL="http://127.0.0.1:$port"
  METRICS_URL="http://127.0.0.1:$mport/q/metrics"
  # shellcheck disable=SC2086
  "$JAVA_HOME/bin/java" $ENGINE_OPTS \
    -Dquarkus.http.host=127.0.0.1 -Dquarkus.management.host=127.0.0.1 \
    -Dquarkus.http.port="$port" -Dquarkus.management.port="$mport" \
    -Dvigil.rulesets.dir="$ROOT/engine/rulesets" \
    -Dvigil.velocity.redis-hosts="redis://127.0.0.1:$REDIS_PORT" \
    -Dquarkus.redis.outbox.hosts="redis://127.0.0.1:$REDIS_PORT" \
    -Dvigil.outbox.enabled="$1" -Dvigil.http.noop-endpoint.enabled=true \
    -jar "$JAR" > "$OUT/engine-outbox-$1.log" 2>&1 &
  ENGINE_PID=$!
  PIDS+=("$ENGINE_PID")
  local i
  for i in $(seq 1 120); do
    curl -fsS -o /dev/null --max-time 1 "$ENGINE_URL/v1/evaluate/health" 2>/dev/null && return 0
    kill -0 "$ENGINE_PID" 2>/dev/null || { tail -n 30 "$OUT/engine-outbox-$1.log" >&2; return 1; }
    sleep 1
  done
  echo "ERROR: engine did not answer within 120 s" >&2
  return 1
}

stop_engine() {
  kill "$ENGINE_PID" 2>/dev/null || true
  wait "$ENGINE_PID" 2>/dev/null || true
}

# Answers that were not NORMAL (degraded or fail-open, any cause), from the engine's counters.
not_normal() {
  curl -fsS --max-time 5 "$METRICS_URL" 2>/dev/null \
    | awk '/^vigil_engine_(degraded|fail_open)_total/ {s += $NF} END {printf "%d", s}'
}

# run_phase <label> <path> <seconds>: wrk, then one result line (label rps µs/req engine, µs/req redis)
run_phase() {
  local label=$1 path=$2 secs=$3 e0 e1 j0 j1 r0 r1 d0 d1 requests rps non2xx
  d0=$(not_normal)
  e0=$(cpu_ticks "$ENGINE_PID"); j0=$(jit_ticks "$ENGINE_PID"); r0=$(cpu_ticks "$REDIS_PID")
  wrk -t 1 -c "$CONNECTIONS" -d "${secs}s" -s "$LUA" "$ENGINE_URL$path" > "$OUT/wrk-$label.txt" 2>&1
  e1=$(cpu_ticks "$ENGINE_PID"); j1=$(jit_ticks "$ENGINE_PID"); r1=$(cpu_ticks "$REDIS_PID")
  d1=$(not_normal)
  requests=$(awk '/requests in/ {print $1}' "$OUT/wrk-$label.txt")
  non2xx=$(awk '/Non-2xx/ {print $NF}' "$OUT/wrk-$label.txt"); non2xx=${non2xx:-0}
  rps=$(awk '/Requests\/sec/ {print $2}' "$OUT/wrk-$label.txt")
  awk -v l="$label" -v n="$requests" -v bad="$non2xx" -v rps="$rps" -v e=$((e1 - e0)) -v r=$((r1 - r0)) -v t="$TICK" \
    -v dg=$((d1 - d0)) -v j=$((j1 - j0)) \
    'BEGIN { printf "%-22s %9d req %8.0f req/s %8.1f us/req engine %7.1f us/req JIT %7.1f us/req redis %6.2f%% not NORMAL %s\n",
             l, n, rps, (e - j) * 1e6 / t / n, j * 1e6 / t / n, r * 1e6 / t / n, dg * 100 / n,
             (bad > 0 ? "(" bad " non-2xx!)" : "") }' \
    | tee -a "$OUT/results.txt"
}

# async-profiler through the attach API: CPU samples (perf events, itimer where not allowed) every 500 µs.
# The quotes keep jcmd from reading "a=b" inside the agent's options as its own arguments.
profile_start() { [ "$PROFILE" = 1 ] && "$JAVA_HOME/bin/jcmd" "$ENGINE_PID" JVMTI.agent_load "$PROFILER_LIB" \
  '"start,event=cpu,interval=500us,threads"' > /dev/null || true; }
profile_stop() {
  [ "$PROFILE" = 1 ] || return 0
  "$JAVA_HOME/bin/jcmd" "$ENGINE_PID" JVMTI.agent_load "$PROFILER_LIB" "\"stop,file=$OUT/$1.collapsed,collapsed\"" > /dev/null
  python3 "$ROOT/environments/local/bench/profile-summary.py" "$OUT/$1.collapsed" 30 > "$OUT/$1-profile.txt"
  echo "   profile: $OUT/$1-profile.txt"
}

# idle_phase <label> <seconds>: the engine's CPU without traffic (timers, outbox writer, ruleset
# watcher, GC): a fixed cost that low request rates spread over few requests.
idle_phase() {
  local label=$1 secs=$2 e0 e1 j0 j1
  e0=$(cpu_ticks "$ENGINE_PID"); j0=$(jit_ticks "$ENGINE_PID")
  sleep "$secs"
  e1=$(cpu_ticks "$ENGINE_PID"); j1=$(jit_ticks "$ENGINE_PID")
  awk -v l="$label" -v e=$((e1 - e0)) -v j=$((j1 - j0)) -v t="$TICK" -v s="$secs" \
    'BEGIN { printf "%-22s %8.1f ms CPU per second without traffic (JIT %.1f ms/s)\n", l, (e - j) * 1000 / t / s, j * 1000 / t / s }' \
    | tee -a "$OUT/results.txt"
}

jfr_start() { [ "$JFR" = 1 ] && "$JAVA_HOME/bin/jcmd" "$ENGINE_PID" JFR.start name=cpu settings=profile \
  filename="$OUT/$1.jfr" > /dev/null || true; }
jfr_stop() {
  [ "$JFR" = 1 ] || return 0
  "$JAVA_HOME/bin/jcmd" "$ENGINE_PID" JFR.stop name=cpu > /dev/null
  "$JAVA_HOME/bin/jfr" view --width 160 hot-methods "$OUT/$1.jfr" > "$OUT/$1-hot-methods.txt" 2>&1 || true
  echo "   hot methods: $OUT/$1-hot-methods.txt"
}

measure() { # $1 = outbox enabled
  local tag="outbox-$1"
  [ "$1" = true ] && tag="durability-on" || tag="durability-off"
  echo "==> engine with vigil.outbox.enabled=$1: warm-up ${WARMUP_SECONDS}s"
  start_engine "$1"
  wrk -t 1 -c "$CONNECTIONS" -d "${WARMUP_SECONDS}s" -s "$LUA" "$ENGINE_URL/v1/evaluate/auth" > /dev/null
  wrk -t 1 -c "$CONNECTIONS" -d "$((WARMUP_SECONDS / 2 + 1))s" -s "$LUA" "$ENGINE_URL/v1/evaluate/noop" > /dev/null
  idle_phase "idle ($tag)" 10
  run_phase "noop ($tag)" /v1/evaluate/noop "$SECONDS_PER_PHASE"
  jfr_start "auth-$tag"
  profile_start
  run_phase "auth ($tag)" /v1/evaluate/auth "$SECONDS_PER_PHASE"
  profile_stop "auth-$tag"
  jfr_stop "auth-$tag"
  stop_engine
}

{ echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(git rev-parse --short HEAD) $JAR; wrk -t1 -c$CONNECTIONS ${SECONDS_PER_PHASE}s/phase, $(nproc) cores";
  echo "# load before: $(uptime)"; } | tee "$OUT/results.txt"
case "${BENCH_DURABILITY:-both}" in
  on) measure true ;;
  off) measure false ;;
  both) measure true; measure false ;;
  *) echo "ERROR: BENCH_DURABILITY must be on, off or both (got '$BENCH_DURABILITY')" >&2; exit 2 ;;
esac
echo "# load after: $(uptime)" | tee -a "$OUT/results.txt"
awk '/^noop \(durability-on\)/ {n1=$7} /^auth \(durability-on\)/ {a1=$7}
     /^noop \(durability-off\)/ {n2=$7} /^auth \(durability-off\)/ {a2=$7}
     END { if (n1 && n2) printf "AUTH/no-op engine CPU per request: durability on %.2f, off %.2f\n", a1/n1, a2/n2 }' \
  "$OUT/results.txt" | tee -a "$OUT/results.txt"
echo "==> results: $OUT/results.txt"
