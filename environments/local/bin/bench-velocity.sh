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
$MVN -pl engine/service -am -DskipTests install
CP_FILE=engine/service/target/bench-classpath.txt
$MVN -pl engine/service dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$ROOT/$CP_FILE"
CP="engine/service/target/test-classes:engine/service/target/classes:$(cat "$CP_FILE")"
mkdir -p .local/bench
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
