#!/usr/bin/env bash
# make slo-report: the SLO picture of the last `make run`, from the local Prometheus' data
# (.local/prometheus). If that Prometheus is not running (after make stop), a temporary one is started
# on the same data, read-only in effect (no targets), on a free port, and stopped afterwards.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
PROM_DIR="$ROOT/.local/prometheus"
OUT="$ROOT/.local/slo-report"
PORT="${VIGIL_PROMETHEUS_PORT:-19090}"
[ -d "$PROM_DIR/data" ] || { echo "no local Prometheus data: run \`make run\` first" >&2; exit 1; }

url="http://127.0.0.1:$PORT"
tmp_pid=""
if ! curl -fsS "$url/-/ready" >/dev/null 2>&1; then
  bin=$("$ROOT/environments/local/bin/tools.sh" path prometheus)
  PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  url="http://127.0.0.1:$PORT"
  printf 'global: {}\n' > "$PROM_DIR/report.yml"
  "$bin" --config.file="$PROM_DIR/report.yml" --storage.tsdb.path="$PROM_DIR/data" \
    --web.listen-address="127.0.0.1:$PORT" > "$PROM_DIR/report.log" 2>&1 &
  tmp_pid=$!
  trap '[ -n "$tmp_pid" ] && kill "$tmp_pid" 2>/dev/null; wait "$tmp_pid" 2>/dev/null || true' EXIT
  for _ in $(seq 1 60); do curl -fsS "$url/-/ready" >/dev/null 2>&1 && break; sleep 0.5; done
fi
png=()
python3 -c 'import matplotlib' 2>/dev/null && png=(--png)
python3 "$ROOT/environments/local/bin/slo_report.py" --prometheus "$url" --out "$OUT" "${png[@]}"
