#!/usr/bin/env bash
# `make stop`: stops exactly the processes `make run` started (by their recorded pids), in reverse
# order of start: the engine first (it flushes its outbox into Redis), then Redis. Safe to run twice.
set -euo pipefail
BIN="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$BIN/engine-lib.sh"
[ -f "$BIN/redis-lib.sh" ] && . "$BIN/redis-lib.sh"

stop_engine
if declare -F stop_redis >/dev/null; then
  stop_redis
fi
echo "==> stopped"
