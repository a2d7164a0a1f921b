#!/usr/bin/env bash
# `make stop`: stops exactly the processes `make run` started (by their recorded pids), in reverse
# order of start: the engine first (it flushes its outbox into Redis), then Redis. Safe to run twice.
set -euo pipefail
BIN="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$BIN/platform-lib.sh"

stop_kube
# Prometheus first, so the stopped engine does not show as a scrape failure; its data stays for make slo-report
if declare -F stop_prometheus >/dev/null; then
  stop_prometheus
fi
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
