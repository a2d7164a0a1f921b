#!/usr/bin/env bash
# Prints the path of async-profiler's agent library for the benches' BENCH_PROFILE=1, fetching it
# from Maven Central through the Maven wrapper on first use (into .local/bench, kept between runs).
# One place for the version, so every bench profiles with the same agent.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
VERSION=4.2
LIB="$ROOT/.local/bench/async-profiler-$VERSION/linux-x64/libasyncProfiler.so"
if [ ! -f "$LIB" ]; then
  JAVA_HOME=${JAVA_HOME:-$("$ROOT/environments/local/bin/java-home.sh")}
  echo "==> fetching async-profiler $VERSION (Maven Central)" >&2
  (cd "$ROOT" && ./mvnw -B --no-transfer-progress -q dependency:copy \
    -Dartifact="tools.profiler:async-profiler:$VERSION" -DoutputDirectory="$ROOT/.local/bench") >&2
  mkdir -p "$ROOT/.local/bench/async-profiler-$VERSION"
  (cd "$ROOT/.local/bench/async-profiler-$VERSION" \
    && "$JAVA_HOME/bin/jar" xf "../async-profiler-$VERSION.jar" linux-x64/libasyncProfiler.so)
fi
echo "$LIB"
