#!/usr/bin/env bash
# `make stop`: stops exactly the processes `make run` started (by their recorded pids), in reverse
# order of start: the engine first (it flushes its outbox into Redis), then Redis. Safe to run twice.
set -euo pipefail
BIN="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$BIN/engine-lib.sh"
[ -f "$BIN/redis-lib.sh" ] && . "$BIN/redis-lib.sh"
[ -f "$BIN/kafka-lib.sh" ] && . "$BIN/kafka-lib.sh"
[ -f "$BIN/relay-lib.sh" ] && . "$BIN/relay-lib.sh"

stop_engine
# the relay before Kafka and Redis: it finishes its batch (published and acknowledged)
if declare -F stop_relay >/dev/null; then
  stop_relay
fi
if declare -F stop_kafka >/dev/null; then
  stop_kafka
fi
if declare -F stop_redis >/dev/null; then
  stop_redis
fi
echo "==> stopped"
