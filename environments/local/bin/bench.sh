#!/usr/bin/env bash
# Runs the JMH benchmarks (engine/benchmarks: the rules library, and the engine's velocity client
# against its own redis-server) and writes the results as JSON under .local/bench/. Builds the
# benchmarks jar when it is missing or older than the sources.
#
#   environments/local/bin/bench.sh                 # every benchmark, short settings
#   environments/local/bin/bench.sh evaluateNoVelocity -i 10   # a subset / other JMH options
#
# Settings (override with env): BENCH_FORKS=1 BENCH_WARMUP=3 BENCH_ITERATIONS=5 BENCH_TIME=1s
# BENCH_MIX=256,4096 (transactions cycled through: 256 stay in cache, 4096 do not).
# BENCH_CPU_TIME=1 also measures operations per CPU-second of the benchmark thread (io.vigil.bench.CpuTimeRunner),
# which is what to quote on a shared, busy machine where wall-clock throughput measures the scheduler.
# One benchmark thread: the numbers are per core. -prof gc reports bytes allocated per operation.
set -euo pipefail
cd "$(dirname "$0")/../../.."
ROOT=$(pwd)

JAVA_HOME=${JAVA_HOME:-$(environments/local/bin/java-home.sh)}
export JAVA_HOME
# redis-server for VelocityClientBenchmark (a fresh machine has none)
environments/local/bin/ensure-deps.sh >/dev/null
JAR=engine/benchmarks/target/benchmarks.jar
OUT=.local/bench
mkdir -p "$OUT"

stale() {
  [ ! -f "$JAR" ] && return 0
  [ -n "$(find engine/rules/src/main engine/benchmarks/src/main engine/service/src/main environments/local/test-support/src/main \
        engine/rules/pom.xml engine/benchmarks/pom.xml engine/service/pom.xml -newer "$JAR" -type f -print -quit)" ]
}
if stale; then
  echo "==> building $JAR"
  ./mvnw -B --no-transfer-progress -q -pl engine/rules,engine/benchmarks -am -DskipTests package
fi

STAMP=$(date -u +%Y%m%dT%H%M%SZ)
RESULT="$OUT/rules-$STAMP.json"
echo "==> transaction mix used by the benchmarks"
"$JAVA_HOME/bin/java" -cp "$JAR" io.vigil.bench.MixReport engine/rulesets/CARD_AUTH/v2/ruleset.yaml
echo "==> machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)," \
     "load average $(cut -d' ' -f1-3 /proc/loadavg), $("$JAVA_HOME/bin/java" -version 2>&1 | head -1)"
echo "==> running JMH (forks ${BENCH_FORKS:-1}, warmup ${BENCH_WARMUP:-3} x ${BENCH_TIME:-1s}," \
     "measurement ${BENCH_ITERATIONS:-5} x ${BENCH_TIME:-1s}, mix ${BENCH_MIX:-256,4096}, 1 thread, -prof gc); results: $RESULT"
"$JAVA_HOME/bin/java" -jar "$JAR" \
  -f "${BENCH_FORKS:-1}" -wi "${BENCH_WARMUP:-3}" -w "${BENCH_TIME:-1s}" \
  -i "${BENCH_ITERATIONS:-5}" -r "${BENCH_TIME:-1s}" -t 1 -p mix="${BENCH_MIX:-256,4096}" \
  -prof gc -rf json -rff "$RESULT" \
  -jvmArgsAppend "-Dvigil.rulesets=$ROOT/engine/rulesets" \
  "${@:-io.vigil.bench}"
ln -sf "$(basename "$RESULT")" "$OUT/rules-latest.json"
if [ "${BENCH_CPU_TIME:-0}" = 1 ]; then
  for mix in $(echo "${BENCH_MIX:-256,4096}" | tr ',' ' '); do
    echo "==> operations per CPU-second of the benchmark thread, mix $mix"
    "$JAVA_HOME/bin/java" -Dvigil.mix="$mix" -Dvigil.rulesets="$ROOT/engine/rulesets" -cp "$JAR" \
      io.vigil.bench.CpuTimeRunner 1 5 | tee -a "$OUT/rules-$STAMP-cputime.txt"
  done
fi
echo "==> results: $RESULT (also .local/bench/rules-latest.json); see docs/benchmarks.md for how to read them"
