#!/usr/bin/env bash
# Renders the one SLO rule source (charts/vigil-engine/files/rules/vigil-slo.rules.yaml) into a plain
# Prometheus rule file by substituting its ${...} placeholders (documented at the top of that file).
# The operator and the chart substitute the same placeholders; this is the renderer of `make run`.
#
#   render-slo-rules.sh [name=value ...] > rules.yaml
# Defaults are the local environment's: engine and relay scraped by the local Prometheus as jobs
# vigil-engine and vigil-relay (label namespace="local"), objectives 2/5/10 ms and 99.9 % over 30 days.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
SRC="$ROOT/charts/vigil-engine/files/rules/vigil-slo.rules.yaml"

declare -A v=(
  [engine]=local [namespace]=local
  [engineSelector]='namespace="local",job="vigil-engine"' [relaySelector]='namespace="local",job="vigil-relay"'
  [availabilityPercent]=99.9 [p50Le]=0.002 [p95Le]=0.005 [p99Le]=0.01
  [window]=30d [windowHours]=720
)
for kv in "$@"; do
  k="${kv%%=*}"
  [ -n "${v[$k]+x}" ] || { echo "unknown placeholder: $k (known: ${!v[*]})" >&2; exit 2; }
  v[$k]="${kv#*=}"
done

text="$(cat "$SRC")"
for k in "${!v[@]}"; do
  text="${text//"\${$k}"/${v[$k]}}"
done
if grep -v '^ *#' <<<"$text" | grep -q '\${[A-Za-z]'; then
  echo "unsubstituted placeholder left in $SRC: $(grep -o '\${[A-Za-z0-9]*}' <<<"$text" | sort -u | tr '\n' ' ')" >&2
  exit 1
fi
printf '%s\n' "$text"
