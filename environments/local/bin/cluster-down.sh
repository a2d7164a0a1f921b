#!/usr/bin/env bash
# Stops exactly the processes cluster-up.sh started (by their pid files), newest first.
# Keeps the state (etcd data, certificates) so the next `up` is fast; cluster-reset.sh wipes it.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/cluster-lib.sh"

stop() {
  local name="$1" pid i t0=$SECONDS
  if ! pid=$(running_pid "$name"); then
    rm -f "$PIDS/$name.pid"
    return 0
  fi
  kill -TERM "$pid" 2>/dev/null || true
  for i in $(seq 1 100); do
    [ -d "/proc/$pid" ] || break
    sleep 0.1
  done
  if [ -d "/proc/$pid" ]; then
    log "$name (pid $pid) did not stop in 10s; killing it"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$PIDS/$name.pid"
  log "$name stopped (pid $pid, $((SECONDS - t0))s)"
}

for ((i = ${#COMPONENTS[@]} - 1; i >= 0; i--)); do
  stop "${COMPONENTS[$i]}"
done
log "cluster down"
