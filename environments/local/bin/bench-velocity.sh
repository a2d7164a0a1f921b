#!/usr/bin/env bash
# Velocity benchmark (docs/benchmarks.md, "Velocity"): script round trip against a local
# redis-server, and AUTH throughput of the packaged engine with vs without 3 velocity rules (wrk).
# Starts its own redis-server and engines on free ports; leaves nothing running.
#
#   environments/local/bin/bench-velocity.sh                      # defaults: 10 s runs, 2 rounds
#   BENCH_SECONDS=20 BENCH_ROUNDS=3 environments/local/bin/bench-velocity.sh
#   environments/local/bin/bench-velocity.sh cost                 # Redis CPU, commands and memory per script call
#
# "cost" (VelocityCostBenchmark): 100,000 CARD_AUTH v2 transactions (10 checks) over 10,000 cards and
# 30,000 with 3 checks, deterministic, on a simulated clock; prints one Markdown table row. To compare
# with another build of the engine, put its engine/service/target/classes first:
#   BENCH_COST_CLASSES=/path/to/other/classes environments/local/bin/bench-velocity.sh cost
#   environments/local/bin/bench-velocity.sh instructions         # Redis instructions per call (callgrind)
#   environments/local/bin/bench-velocity.sh aof                  # AOF bytes per durable decision, by source
#
# "instructions" (VelocityInstructionsBenchmark): redis-server under valgrind's callgrind, hot-card
# steady state filled with instrumentation off, then instructions (Ir) per call for the velocity
# client, the same keys' native commands pipelined without a script (the floor), and PING (the
# baseline subtracted from both). Repeatable whatever else runs on the machine. BENCH_COST_CLASSES
# works here too (compare builds); BENCH_INSTR_CALLS (default 2048) calls are counted. Redis runs make
# run's redis.conf with AOF off (BENCH_INSTR_AOF=1: on, as the managed Redis); BENCH_INSTR_REDIS_ARGS adds
# redis-server options (e.g. '--zset-max-listpack-entries 16' to compare a setting). A second table
# gives Redis' Ir per CARD_AUTH v2 durable decision: the velocity call, its stream entry XADDed as the
# engine's writer sends it (10 per pipeline: 2,000/s over the 5 ms linger) and the relay's XREADGROUP,
# XACK and XDEL (100 per command); BENCH_INSTR_OUTBOX=0 skips it, BENCH_INSTR_WRITER_BATCH and
# BENCH_INSTR_RELAY_COUNT change the shapes.
set -euo pipefail
cd "$(dirname "$0")/../../.."
ROOT=$(pwd)
JAVA_HOME=${JAVA_HOME:-$(environments/local/bin/java-home.sh)}
export JAVA_HOME
environments/local/bin/ensure-deps.sh >/dev/null
if ! command -v wrk >/dev/null 2>&1; then
  echo "==> installing wrk (Debian package) for the AUTH part"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq wrk >/dev/null || echo "wrk unavailable: AUTH part skipped"
fi
MVN="./mvnw -B --no-transfer-progress -q"
echo "==> building the engine (package, tests compiled not run)"
# One reactor, no install: sibling modules resolve to their target/ jars, and ~/.m2 (shared with other
# checkouts) is not overwritten. Each module writes the class path file; engine/service, built last, wins.
CP_FILE=engine/service/target/bench-classpath.txt
$MVN ${BENCH_MVN_OFFLINE:+-o} -pl engine/service -am -DskipTests package dependency:build-classpath \
  -Dmdep.includeScope=test -Dmdep.outputFile="$ROOT/$CP_FILE"
CP="engine/service/target/test-classes:engine/service/target/classes:$(cat "$CP_FILE")"
mkdir -p .local/bench
if [ "${1:-}" = "instructions" ]; then
  command -v valgrind >/dev/null 2>&1 || {
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq valgrind >/dev/null
  }
  DIR=$(mktemp -d)
  PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  # make run's settings (redis.conf), then: hz 1, so the idle cron's instructions stay negligible next
  # to the calls'; AOF off unless BENCH_INSTR_AOF=1 (the managed Redis runs it: +20 %, ADR 0015)
  valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$DIR/callgrind.out" \
    "$(command -v redis-server)" "$ROOT/environments/local/test-support/src/main/resources/io/vigil/testing/redis/redis.conf" \
    --port "$PORT" --bind 127.0.0.1 --save '' --appendonly "$([ "${BENCH_INSTR_AOF:-0}" = 1 ] && echo yes || echo no)" \
    --hz 1 --dir "$DIR" ${BENCH_INSTR_REDIS_ARGS:-} >"$DIR/redis.log" 2>&1 &
  VG=$!
  trap 'kill $VG 2>/dev/null; wait $VG 2>/dev/null; rm -rf "$DIR"' EXIT
  for _ in $(seq 1 100); do redis-cli -p "$PORT" ping >/dev/null 2>&1 && break; sleep 0.2; done
  echo "| Build | velocity call: Ir per call (net of PING) | floor: native commands, Ir per call (net) | PING Ir | call / floor | idle Ir per s | load |"
  echo "|---|---|---|---|---|---|---|"
  "$JAVA_HOME/bin/java" -Xmx1g \
    -cp "engine/service/target/test-classes:${BENCH_COST_CLASSES:+$BENCH_COST_CLASSES:}engine/service/target/classes:$(cat "$CP_FILE")" \
    -Dbench.instr.label="${BENCH_COST_LABEL:-${BENCH_COST_CLASSES:-current}}" \
    -Dbench.instr.port="$PORT" -Dbench.instr.pid="$VG" \
    -Dbench.instr.calls="${BENCH_INSTR_CALLS:-2048}" \
    -Dbench.instr.outbox="$([ "${BENCH_INSTR_OUTBOX:-1}" = 0 ] && echo false || echo true)" \
    -Dbench.instr.writer-batch="${BENCH_INSTR_WRITER_BATCH:-10}" -Dbench.instr.relay-count="${BENCH_INSTR_RELAY_COUNT:-100}" \
    io.vigil.engine.velocity.bench.VelocityInstructionsBenchmark
  exit 0
fi
if [ "${1:-}" = "aof" ]; then
  # AOF bytes per durable decision by source (AofBytesBenchmark, ADR 0027): a plain redis-server with
  # make run's redis.conf (AOF on, its rewrite threshold), so bytes, not time: repeatable when busy
  DIR=$(mktemp -d)
  PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  redis-server "$ROOT/environments/local/test-support/src/main/resources/io/vigil/testing/redis/redis.conf" \
    --port "$PORT" --bind 127.0.0.1 --dir "$DIR" >"$DIR/redis.log" 2>&1 &
  RS=$!
  trap 'kill $RS 2>/dev/null; wait $RS 2>/dev/null; rm -rf "$DIR"' EXIT
  for _ in $(seq 1 100); do redis-cli -p "$PORT" ping >/dev/null 2>&1 && break; sleep 0.1; done
  "$JAVA_HOME/bin/java" -Xmx1g -cp "$CP" -Dbench.aof.port="$PORT" -Dbench.aof.dir="$DIR" \
    -Dbench.aof.calls="${BENCH_AOF_CALLS:-2048}" -Dbench.aof.fill-mb="${BENCH_AOF_FILL_MB:-0}" \
    io.vigil.engine.velocity.bench.AofBytesBenchmark
  if [ "${BENCH_AOF_FILL_MB:-0}" != 0 ]; then
    # the reload of that much AOF: a restart on the same directory, timed to the first PONG (LOADING
    # answers an error until the AOF is replayed); indicative, give the load average beside it
    redis-cli -p "$PORT" shutdown >/dev/null 2>&1 || true
    wait $RS 2>/dev/null || true
    du -sh "$DIR/appendonlydir"
    T0=$(date +%s%N)
    redis-server "$ROOT/environments/local/test-support/src/main/resources/io/vigil/testing/redis/redis.conf" \
      --port "$PORT" --bind 127.0.0.1 --dir "$DIR" >>"$DIR/redis.log" 2>&1 &
    RS=$!
    until [ "$(redis-cli -p "$PORT" ping 2>/dev/null)" = PONG ]; do sleep 0.01; done
    echo "reload to first PONG: $(( ($(date +%s%N) - T0) / 1000000 )) ms, load $(cut -d' ' -f1-3 /proc/loadavg)"
    grep -E "DB loaded|Reading|Done loading" "$DIR/redis.log" | tail -4
  fi
  exit 0
fi
if [ "${1:-}" = "cost" ]; then
  echo "| Build | 10 checks: wall µs/call | Redis CPU µs/call | commands/call | 3 checks: wall µs/call | Redis CPU µs/call | commands/call | used_memory after the 100,000 | keys | hot cards: Redis CPU µs/call one by one / batched | commands/call | used_memory per hot card (all keys, markers included) | seconds | load |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  exec "$JAVA_HOME/bin/java" -Xmx1g \
    -cp "engine/service/target/test-classes:${BENCH_COST_CLASSES:+$BENCH_COST_CLASSES:}engine/service/target/classes:$(cat "$CP_FILE")" \
    -Dbench.cost.label="${BENCH_COST_LABEL:-${BENCH_COST_CLASSES:-current}}" \
    -Dbench.cost.transactions="${BENCH_COST_TRANSACTIONS:-100000}" \
    io.vigil.engine.velocity.bench.VelocityCostBenchmark
fi
"$JAVA_HOME/bin/java" -Xmx1g -cp "$CP" \
  -Dbench.root="$ROOT" -Dbench.seconds="${BENCH_SECONDS:-10}" -Dbench.rounds="${BENCH_ROUNDS:-2}" \
  -Dbench.connections="${BENCH_CONNECTIONS:-32}" \
  io.vigil.engine.velocity.bench.VelocityBenchmark
