#!/usr/bin/env bash
# `make logs`: the last lines of every log `make run` writes (.local/run/*.log, .local/logs/*.log) and
# the state of each part. `make logs FOLLOW=1` keeps following them.
set -euo pipefail
BIN="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$BIN/platform-lib.sh"
LINES="${LINES_PER_LOG:-40}"

engine_status
if declare -F redis_status >/dev/null; then
  redis_status
fi
if declare -F kafka_status >/dev/null; then
  kafka_status
fi
if declare -F relay_status >/dev/null; then
  relay_status
fi
shopt -s nullglob
logs=("$VIGIL_ROOT"/.local/run/*.log "$VIGIL_ROOT"/.local/logs/*.log)
if [ ${#logs[@]} -eq 0 ]; then
  echo "no logs yet: 'make run' starts the platform"
  exit 0
fi
if [ -n "${FOLLOW:-}" ]; then
  exec tail -n "$LINES" -F "${logs[@]}"
fi
for f in "${logs[@]}"; do
  echo
  echo "===== $f (last $LINES lines)"
  tail -n "$LINES" "$f"
done
