#!/usr/bin/env bash
# What the make run benches (bench-ladder.sh, bench-outage.sh) share: which Redis data they start on,
# and what else ran on the machine beside the pipeline (sourced, not run; before platform-lib.sh, whose
# redis-lib.sh reads VIGIL_REDIS_DIR when sourced).
#
# BENCH_REDIS_DATA=fresh (default): a Redis the bench starts itself begins empty, in .local/bench/redis
#   (wiped first), so runs compare. The decision stream and velocity keys earlier runs left in make run's
#   Redis (2.5 GB once) made every AOF rewrite fork a big process: ~115 ms with Redis stopped, each time.
# BENCH_REDIS_DATA=run: the bench's Redis loads make run's data (.local/run/redis, or VIGIL_REDIS_DIR) as it is.
# A Redis already listening is used as it is either way; REDIS_DATA says which of the three it was.

bench_listener_pid() { { ss -ltnpH "sport = :$1" 2>/dev/null | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2; } || true; }

BENCH_LIB_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
case "${BENCH_REDIS_DATA:-fresh}" in
  fresh|run) ;;
  *) echo "BENCH_REDIS_DATA must be fresh or run, was '${BENCH_REDIS_DATA}'" >&2; exit 2 ;;
esac
if [ -n "$(bench_listener_pid "${VIGIL_REDIS_PORT:-16379}")" ]; then
  REDIS_DATA="already running (used as it is)"
elif [ "${BENCH_REDIS_DATA:-fresh}" = fresh ]; then
  export VIGIL_REDIS_DIR="$BENCH_LIB_ROOT/.local/bench/redis"
  rm -rf "$VIGIL_REDIS_DIR"
  REDIS_DATA="fresh (empty at start, $VIGIL_REDIS_DIR)"
else
  REDIS_DATA="kept (${VIGIL_REDIS_DIR:-$BENCH_LIB_ROOT/.local/run/redis}, $(du -sh "${VIGIL_REDIS_DIR:-$BENCH_LIB_ROOT/.local/run/redis}" 2>/dev/null | cut -f1 || echo empty) on disk)"
fi

# BENCH_REDIS_CONFIG="zset-max-listpack-entries 16" (';' between settings): applied to the Redis the
#   bench starts (and restarts), on top of the shared redis.conf, for A/B runs of a Redis setting in one
#   session. Refused when a Redis already listens: its settings are not the bench's to change.
#   bench_redis_config prints what the running Redis reports for those settings, for the report's header.
if [ -n "${BENCH_REDIS_CONFIG:-}" ]; then
  if [ -n "$(bench_listener_pid "${VIGIL_REDIS_PORT:-16379}")" ]; then
    echo "BENCH_REDIS_CONFIG='$BENCH_REDIS_CONFIG' applies to a Redis the bench starts, but one already listens on :${VIGIL_REDIS_PORT:-16379} (make stop first)" >&2
    exit 2
  fi
  export VIGIL_REDIS_CONFIG="$BENCH_REDIS_CONFIG"
fi
bench_redis_config() {
  [ -n "${BENCH_REDIS_CONFIG:-}" ] || { echo "redis.conf as shipped"; return 0; }
  local item words got out=""
  while IFS= read -r -d ';' item; do
    read -r -a words <<< "$item"
    [ "${#words[@]}" -gt 0 ] || continue
    got=$(redis-cli -p "${VIGIL_REDIS_PORT:-16379}" CONFIG GET "${words[0]}" 2>/dev/null | sed -n 2p)
    out+="${out:+; }${words[0]} ${got:-?}"
  done <<< "$BENCH_REDIS_CONFIG;"
  echo "redis.conf + $out (read back)"
}

# One line: the local cluster's and the real node's processes, pod sandboxes, and JVMs other than the
# pipeline's (builds, tests) running now. $1: a file of "name pid" lines of the pipeline's processes.
running_beside() {
  local n cluster="" node="" shims others=0 pid ours
  for n in kube-apiserver etcd kube-scheduler kube-controller kwok; do
    pgrep -x "$n" >/dev/null 2>&1 && cluster+="$n "
  done
  for n in containerd kubelet kube-proxy; do
    pgrep -x "$n" >/dev/null 2>&1 && node+="$n "
  done
  shims=$(pgrep -f '^/usr/bin/containerd-shim' 2>/dev/null | wc -l)
  ours=" $(awk '{print $2}' "${1:-/dev/null}" 2>/dev/null | tr '\n' ' ') "
  for pid in $(pgrep -x java 2>/dev/null); do
    case "$ours" in *" $pid "*) ;; *) others=$((others + 1)) ;; esac
  done
  printf 'cluster: %s; real node: %s; pod shims: %s; other JVMs: %s\n' "${cluster:-none}" "${node:-none}" "$shims" "$others"
}
