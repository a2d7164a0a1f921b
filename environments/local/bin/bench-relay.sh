#!/usr/bin/env bash
# Relay and broker CPU per event (docs/performance.md, "Relay and broker CPU"): Redis, the KRaft broker
# and the packaged relay started through make run's own libraries (redis-lib.sh, kafka-lib.sh,
# relay-lib.sh: the same settings files) on free ports and in their own directory, so it runs beside
# make run and needs no lock. Load is written straight into the stream by a fixed-rate XADD generator
# (environments/local/bench/relay-xadd.py: engine-shaped events, no engine). Per window: relay and
# broker CPU from /proc/<pid>/stat (utime+stime) over the events the relay published
# (vigil_relay_published_total), Redis CPU per event (the generator's XADDs included, the same for every
# variant), Redis' own view of the relay's commands (INFO commandstats usec_per_call and the longest
# single run from SLOWLOG: how long one command held single-threaded Redis, and so every velocity call
# behind it; ADR 0022), and the load average before and after.
#
# After the rate windows, a backlog window: the relay is stopped (SIGSTOP) while BENCH_RELAY_BACKLOG
# events are written, then resumed and timed until it has published them all: the relay lagging, as
# after a Kafka or relay restart, when its reads come back full.
#
# The broker is started once; the relay is started again for each variant, in the order given, so
# variants alternate in one run on the same broker (A/B/A: name one variant twice).
#
#   environments/local/bin/bench-relay.sh
#   BENCH_RELAY_VARIANTS='base=;lz4=-Dvigil.relay.producer.compression.type=lz4;base=' ...
#                          name=extra relay JVM options, separated by ';' (default: base= only)
#   BENCH_RELAY_RATES="500 2000"   events/s, one window each (after an idle window)
#   BENCH_SECONDS=30               seconds per window; BENCH_WARMUP_SECONDS=20 at 2,000/s first
#   BENCH_KAFKA_PROPS="num.io.threads=2 num.network.threads=1"   extra broker settings (words)
#   BENCH_THREADS=1                also CPU per thread (relay and broker, top 15) in the first rate window
#   BENCH_RELAY_EVENT_BYTES=2900   events grown to about this size (CARD_AUTH v2's ~2.9 KB); default ~0.8 KB
#   BENCH_RELAY_BACKLOG="4000x5"   backlog window: <events/s>x<seconds> written while the relay is stopped; 0 = none
#   BENCH_SLOWLOG_US=100           SLOWLOG keeps commands slower than this (µs): "longest" below it reads "<100"
#   BENCH_BUILD=0                  use the relay jar as it is (no Maven build)
#   BENCH_PROFILE=1                async-profiler (CPU samples, native frames, per thread) on the relay and the
#                                  broker over each rate window: <variant>-<rate>-{relay,kafka}.collapsed and a
#                                  summary beside it (JIT compiler samples counted apart)
set -euo pipefail
cd "${VIGIL_ROOT:-$(dirname "$0")/../../..}"
ROOT=$(pwd)
export VIGIL_ROOT=$ROOT
JAVA_HOME=${JAVA_HOME:-$(environments/local/bin/java-home.sh)}
export JAVA_HOME
VARIANTS=${BENCH_RELAY_VARIANTS:-base=}
RATES=${BENCH_RELAY_RATES:-500 2000}
SECS=${BENCH_SECONDS:-30}
WARMUP=${BENCH_WARMUP_SECONDS:-20}
OUT="$ROOT/.local/bench/relay/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$OUT"

environments/local/bin/ensure-deps.sh >/dev/null
if [ "${BENCH_BUILD:-1}" = 1 ]; then
  echo "==> building the relay and the local broker's classpath (package, tests not run)"
  ./mvnw -B --no-transfer-progress -q -pl engine/relay,environments/local/kafka -am package -DskipTests
fi

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
export VIGIL_REDIS_PORT=$(free_port) VIGIL_KAFKA_PORT=$(free_port) VIGIL_KAFKA_CONTROLLER_PORT=$(free_port)
export VIGIL_KAFKA_POD_PORT=$(free_port) VIGIL_RELAY_MANAGEMENT_PORT=$(free_port) VIGIL_REDIS_DIR="$OUT/redis"
. environments/local/bin/redis-lib.sh
. environments/local/bin/kafka-lib.sh
. environments/local/bin/relay-lib.sh
# this bench's own files: make run's pid files and data in .local/run stay untouched
KAFKA_DIR="$OUT/kafka"; KAFKA_PIDFILE="$OUT/kafka.pid"; KAFKA_LOG="$OUT/kafka.log"
RELAY_PIDFILE="$OUT/relay.pid"; RELAY_LOG="$OUT/relay.log"
REDIS_PORT=$VIGIL_REDIS_PORT
if [ -n "${BENCH_KAFKA_PROPS:-}" ]; then
  { cat "$KAFKA_SETTINGS"; tr ' ' '\n' <<<"$BENCH_KAFKA_PROPS"; } > "$OUT/broker.properties"
  KAFKA_SETTINGS="$OUT/broker.properties"
fi

cleanup() { [ -z "${RP:-}" ] || kill -CONT "$RP" 2>/dev/null || true; stop_relay >/dev/null 2>&1 || true; stop_kafka >/dev/null 2>&1 || true; stop_redis >/dev/null 2>&1 || true; }
trap cleanup EXIT
start_redis >/dev/null
start_kafka >/dev/null
KP=$(kafka_pid)
DP=$(redis_pid)
TICK=$(getconf CLK_TCK)
GEN="$ROOT/environments/local/bench/relay-xadd.py"
STATS="$ROOT/environments/local/bench/redis-stats.py"
BACKLOG=${BENCH_RELAY_BACKLOG:-4000x5}
SLOW_US=${BENCH_SLOWLOG_US:-100}
redis-cli -h 127.0.0.1 -p "$REDIS_PORT" CONFIG SET slowlog-log-slower-than "$SLOW_US" >/dev/null
redis-cli -h 127.0.0.1 -p "$REDIS_PORT" CONFIG SET slowlog-max-len 100000 >/dev/null

PROFILE=${BENCH_PROFILE:-0}
PROFILER_LIB=""
if [ "$PROFILE" = 1 ]; then
  PROFILER_LIB=$(environments/local/bin/async-profiler.sh)
fi
# async-profiler through the attach API (as bench-engine-cpu.sh): CPU samples every ms, per thread; the
# quotes keep jcmd from reading "a=b" inside the agent's options as its own arguments
profile_start() { # pid
  [ "$PROFILE" = 1 ] || return 0
  "$JAVA_HOME/bin/jcmd" "$1" JVMTI.agent_load "$PROFILER_LIB" '"start,event=cpu,interval=1ms,threads"' > /dev/null || true
}
profile_stop() { # pid name
  [ "$PROFILE" = 1 ] || return 0
  "$JAVA_HOME/bin/jcmd" "$1" JVMTI.agent_load "$PROFILER_LIB" "\"stop,file=$OUT/$2.collapsed,collapsed\"" > /dev/null || return 0
  python3 "$ROOT/environments/local/bench/profile-summary.py" "$OUT/$2.collapsed" 30 > "$OUT/$2-profile.txt" || true
}

ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# events the relay published so far; retried, since on a loaded machine a scrape can take seconds
published() {
  local i m
  for i in 1 2 3; do
    m=$(curl -fsS --max-time 15 "$RELAY_MANAGEMENT_URL/q/metrics" 2>/dev/null) \
      && { awk '/^vigil_relay_published_total/ {s += $NF} END {printf "%d", s}' <<<"$m"; return 0; }
    sleep 1
  done
  echo "ERROR: the relay's metrics ($RELAY_MANAGEMENT_URL/q/metrics) did not answer three times" >&2
  return 1
}
# CPU per thread over a window, ms/s, top 15 (names from /proc: GC, C1/C2 compilers, Kafka's own threads)
threads() { # pid seconds
  local pid=$1 s=$2
  snap() { local t l r; for t in /proc/"$pid"/task/*; do l=$(cat "$t/stat" 2>/dev/null) || continue
    r=${l##*) }; n=${l#*(}; n=${n%%)*}; set -- $r; echo "${t##*/} $((${12} + ${13})) ${n// /_}"; done | sort; }
  snap > "$OUT/th0.$pid"; sleep "$s"; snap > "$OUT/th1.$pid"
  join "$OUT/th0.$pid" "$OUT/th1.$pid" | awk -v t="$TICK" -v s="$s" '{printf "%8.1f ms/s  %s\n", ($4 - $2) * 1000 / t / s, $3}' \
    | sort -rn | head -15
}
# the relay's commands in Redis over the window: "| calls / µs per call / longest µs |" per command
redis_commands() { # variant label
  python3 "$STATS" "$REDIS_PORT" report xreadgroup xack xdel xautoclaim xadd | awk -v v="$1" -v l="$2" -v t="$SLOW_US" '
    { c[NR] = sprintf("%d / %s / %s", $2, $3, ($4 > 0 ? $4 : "<" t)); if ($1 != "xadd" && $4 > m) { m = $4; mc = $1 } }
    END { printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", v, l, c[1], c[2], c[3], c[4], c[5], (m > 0 ? m " (" mc ")" : "<" t) }' \
    >> "$OUT/commands.md"
}
# window <variant> <rate, 0 for idle, or "backlog">
window() {
  local v=$1 rate=$2 r0 k0 d0 r1 k1 d1 la0 la1 n0 n1 label tp="" s written t0 deadline
  la0=$(cut -d' ' -f1-3 /proc/loadavg)
  if [ "$rate" = backlog ]; then
    # the relay stopped while the backlog is written; counted from its resumption to the last event published
    n0=$(published)
    kill -STOP "$RP"
    written=$(python3 "$GEN" "$REDIS_PORT" "${BACKLOG%x*}" "${BACKLOG#*x}")
    label="backlog $written"
  fi
  python3 "$STATS" "$REDIS_PORT" reset
  if [ "$rate" = backlog ]; then
    r0=$(ticks "$RP"); k0=$(ticks "$KP"); d0=$(ticks "$DP"); t0=$(date +%s%N)
    kill -CONT "$RP"
    deadline=$((SECONDS + 300))
    until [ "$(published)" -ge $((n0 + written)) ] || [ $SECONDS -ge $deadline ]; do sleep 0.2; done
    s=$(( ($(date +%s%N) - t0) / 1000000 ))
    label="$label, drained in $s ms"
    r1=$(ticks "$RP"); k1=$(ticks "$KP"); d1=$(ticks "$DP"); n1=$(published); la1=$(cut -d' ' -f1-3 /proc/loadavg)
    redis_commands "$v" "$label"
    awk -v v="$v" -v l="$label" -v r=$((r1 - r0)) -v k=$((k1 - k0)) -v d=$((d1 - d0)) -v t="$TICK" -v ms="$s" -v n=$((n1 - n0)) \
        -v a="$la0" -v b="$la1" \
      'BEGIN { printf "| %s | %s | %d | %.1f | %.1f | %s | %s | %s | %s → %s |\n", v, l, n, r * 1000 / t / (ms / 1000), k * 1000 / t / (ms / 1000),
               (n > 0 ? sprintf("%.0f", r * 1e6 / t / n) : "—"), (n > 0 ? sprintf("%.0f", k * 1e6 / t / n) : "—"),
               (n > 0 ? sprintf("%.0f", d * 1e6 / t / n) : "—"), a, b }' \
      | tee -a "$OUT/results.md"
    return
  fi
  n0=$(published); r0=$(ticks "$RP"); k0=$(ticks "$KP"); d0=$(ticks "$DP")
  if [ "$rate" -gt 0 ]; then
    label="$rate/s"
    if [ "${BENCH_THREADS:-0}" = 1 ] && [ -z "${THREADS_DONE:-}" ]; then
      THREADS_DONE=1
      { threads "$RP" "$((SECS - 2))" > "$OUT/threads-$VI-$v-relay-$rate.txt" & threads "$KP" "$((SECS - 2))" > "$OUT/threads-$VI-$v-kafka-$rate.txt"; wait; } &
      tp=$!
    fi
    profile_start "$RP"; profile_start "$KP"
    python3 "$GEN" "$REDIS_PORT" "$rate" "$SECS" > /dev/null
  else
    label=idle; sleep "$SECS"
  fi
  sleep 1 # the last linger and the broker's answer
  [ -z "$tp" ] || wait "$tp"
  if [ "$rate" -gt 0 ]; then profile_stop "$RP" "$VI-$v-$rate-relay"; profile_stop "$KP" "$VI-$v-$rate-kafka"; fi
  r1=$(ticks "$RP"); k1=$(ticks "$KP"); d1=$(ticks "$DP"); n1=$(published); la1=$(cut -d' ' -f1-3 /proc/loadavg)
  redis_commands "$v" "$label"
  awk -v v="$v" -v l="$label" -v r=$((r1 - r0)) -v k=$((k1 - k0)) -v d=$((d1 - d0)) -v t="$TICK" -v s=$((SECS + 1)) -v n=$((n1 - n0)) \
      -v a="$la0" -v b="$la1" \
    'BEGIN { printf "| %s | %s | %d | %.1f | %.1f | %s | %s | %s | %s → %s |\n", v, l, n, r * 1000 / t / s, k * 1000 / t / s,
             (n > 0 ? sprintf("%.0f", r * 1e6 / t / n) : "—"), (n > 0 ? sprintf("%.0f", k * 1e6 / t / n) : "—"),
             (n > 0 ? sprintf("%.0f", d * 1e6 / t / n) : "—"), a, b }' \
    | tee -a "$OUT/results.md"
}

echo "| variant | window | events | relay ms CPU/s | Kafka ms CPU/s | relay µs/event | Kafka µs/event | Redis µs/event (XADD included) | load average before → after |" | tee "$OUT/results.md"
echo "|---|---|---|---|---|---|---|---|---|" | tee -a "$OUT/results.md"
{ echo "| variant | window | XREADGROUP calls / µs per call / longest µs | XACK | XDEL | XAUTOCLAIM | XADD (generator) | longest relay command µs |"
  echo "|---|---|---|---|---|---|---|---|"; } > "$OUT/commands.md"
IFS=';' read -r -a VARIANT_LIST <<<"$VARIANTS"
VI=0
for spec in "${VARIANT_LIST[@]}"; do
  VI=$((VI + 1)) # the listings of a variant named twice (A/B/A) are kept apart
  name=${spec%%=*}; opts=${spec#*=}
  export VIGIL_RELAY_JAVA_OPTS="$opts"
  la0=$(cut -d' ' -f1-3 /proc/loadavg); t0=$(date +%s%N)
  start_relay >/dev/null
  RP=$(relay_pid)
  # the start (JVM, Quarkus, first connections: what a restart costs beside the engine) and the first
  # minute under traffic (the JIT compiling the relay's path), each as CPU of the relay's process
  r0=$(ticks "$RP"); n0=$(published); la1=$(cut -d' ' -f1-3 /proc/loadavg)
  awk -v v="$name" -v r="$r0" -v t="$TICK" -v ms=$(( ($(date +%s%N) - t0) / 1000000 )) -v a="$la0" -v b="$la1" \
    'BEGIN { printf "| %s | start to ready (%d ms) | — | %.0f ms CPU in all | — | — | — | — | %s → %s |\n", v, ms, r * 1000 / t, a, b }' \
    | tee -a "$OUT/results.md"
  python3 "$GEN" "$REDIS_PORT" 2000 "$WARMUP" > /dev/null # warm-up: both JITs, the producer's metadata
  sleep 5
  r1=$(ticks "$RP"); n1=$(published); la0=$(cut -d' ' -f1-3 /proc/loadavg)
  awk -v v="$name" -v r=$((r1 - r0)) -v t="$TICK" -v s=$((WARMUP + 5)) -v n=$((n1 - n0)) -v a="$la1" -v b="$la0" \
    'BEGIN { printf "| %s | first %d s (2000/s, warm-up) | %d | %.1f | — | %s | — | — | %s → %s |\n", v, s, n, r * 1000 / t / s,
             (n > 0 ? sprintf("%.0f", r * 1e6 / t / n) : "—"), a, b }' | tee -a "$OUT/results.md"
  THREADS_DONE=""
  window "$name" 0
  for rate in $RATES; do window "$name" "$rate"; done
  [ "$BACKLOG" = 0 ] || window "$name" backlog
  stop_relay >/dev/null
done
for f in "$OUT"/*-profile.txt; do [ -f "$f" ] && echo "== profile: $f"; done
for f in "$OUT"/threads-*.txt; do [ -f "$f" ] && { echo "== ${f##*/}"; cat "$f"; }; done
rm -f "$OUT"/th[01].*
echo; cat "$OUT/commands.md"
echo "==> $OUT/results.md, $OUT/commands.md"
