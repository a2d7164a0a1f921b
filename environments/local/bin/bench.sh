#!/usr/bin/env bash
# Runs the JMH benchmarks of the rules library (engine/benchmarks) and writes the results as JSON
# under .local/bench/. Builds the benchmarks jar when it is missing or older than the sources.
#
#   environments/local/bin/bench.sh                 # every benchmark, short settings
#   environments/local/bin/bench.sh evaluateNoVelocity -i 10   # a subset / other JMH options
#
# Settings (override with env): BENCH_FORKS=1 BENCH_WARMUP=3 BENCH_ITERATIONS=5 BENCH_TIME=2s.
# One benchmark thread: the numbers are per core. -prof gc reports bytes allocated per operation.
set -euo pipefail
cd "$(dirname "$0")/../../.."
ROOT=$(pwd)

JAVA_HOME=${JAVA_HOME:-$(environments/local/bin/java-home.sh)}
export JAVA_HOME
JAR=engine/benchmarks/target/benchmarks.jar
OUT=.local/bench
mkdir -p "$OUT"

stale() {
  [ ! -f "$JAR" ] && return 0
  [ -n "$(find engine/rules/src/main engine/benchmarks/src/main engine/rules/pom.xml engine/benchmarks/pom.xml \
        -newer "$JAR" -type f -print -quit)" ]
}
if stale; then
  echo "==> building $JAR"
  ./mvnw -B --no-transfer-progress -q -pl engine/rules,engine/benchmarks -am -DskipTests package
fi

STAMP=$(date -u +%Y%m%dT%H%M%SZ)
RESULT="$OUT/rules-$STAMP.json"
echo "==> transaction mix used by the benchmarks"
"$JAVA_HOME/bin/java" -cp "$JAR" io.vigil.bench.MixReport engine/rulesets/CARD_AUTH/v2/ruleset.yaml
echo "==> running JMH (forks ${BENCH_FORKS:-1}, warmup ${BENCH_WARMUP:-3} x ${BENCH_TIME:-2s}," \
     "measurement ${BENCH_ITERATIONS:-5} x ${BENCH_TIME:-2s}, 1 thread, -prof gc); results: $RESULT"
"$JAVA_HOME/bin/java" -jar "$JAR" \
  -f "${BENCH_FORKS:-1}" -wi "${BENCH_WARMUP:-3}" -w "${BENCH_TIME:-2s}" \
  -i "${BENCH_ITERATIONS:-5}" -r "${BENCH_TIME:-2s}" -t 1 \
  -prof gc -rf json -rff "$RESULT" \
  -jvmArgsAppend "-Dvigil.rulesets=$ROOT/engine/rulesets" \
  "${@:-io.vigil.bench}"
ln -sf "$(basename "$RESULT")" "$OUT/rules-latest.json"
echo "==> results: $RESULT (also .local/bench/rules-latest.json); see docs/benchmarks.md for how to read them"
