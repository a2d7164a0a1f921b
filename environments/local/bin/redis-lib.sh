# Local Redis of `make run` (sourced by run.sh / stop.sh, not run): the velocity store's counters
# and the decision outbox's streams, on 127.0.0.1:16379, data in .local/run/redis.
#   start_redis   start it (idempotent), AOF on, maxmemory-policy noeviction; wait for PING
#   stop_redis    stop exactly the server start_redis started (SHUTDOWN, AOF flushed)
#   redis_status  one line
# Tests never use this server: they start their own on free ports (io.vigil.testing.redis).

VIGIL_ROOT="${VIGIL_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)}"
REDIS_PORT="${VIGIL_REDIS_PORT:-16379}"
REDIS_DIR="${VIGIL_REDIS_DIR:-$VIGIL_ROOT/.local/run/redis}"
REDIS_PIDFILE="$REDIS_DIR/redis-server.pid"
REDIS_LOG="${VIGIL_REDIS_LOG:-$VIGIL_ROOT/.local/logs/redis.log}"
# The settings shared with the tests' RedisServer and the bench scripts (one home; this script adds
# port, addresses, directory, log and pid file).
REDIS_SETTINGS="$VIGIL_ROOT/environments/local/test-support/src/main/resources/io/vigil/testing/redis/redis.conf"
# VIGIL_REDIS_CONFIG: settings on top of REDIS_SETTINGS, "name value" pairs separated by ';'
# (e.g. "zset-max-listpack-entries 16; hz 20"), given to redis-server as --name value; the benches
# set it from BENCH_REDIS_CONFIG (bench-lib.sh). A restart by start_redis keeps them.
redis_config_args() { # one word a line: --name, then its values
  local item words
  while IFS= read -r -d ';' item; do
    read -r -a words <<< "$item"
    [ "${#words[@]}" -gt 0 ] || continue
    printf -- '--%s\n' "${words[0]}"
    [ "${#words[@]}" -lt 2 ] || printf '%s\n' "${words[@]:1}"
  done <<< "${VIGIL_REDIS_CONFIG:-};"
}

. "$(dirname "${BASH_SOURCE[0]}")/process-lib.sh"

# The pid recorded by start_redis, if that process is alive and is a redis-server.
redis_pid() { recorded_pid "$REDIS_PIDFILE" redis-server; }

# Redis is on the decision path: every answer waits for it. It daemonizes into a session of its own, and
# with autogroup scheduling a session weighs as much as any other (async-path.sh explains), so on a busy
# machine Redis waited for a core as long as it ran (indicative, load 9-14: 73 ms of run-queue wait per
# second beside 72 ms of work at 500 calls/s; 34 ms at nice -5) and answers missed the 5 ms deadline on a
# healthy Redis. Its session's nice, VIGIL_REDIS_NICE (default -5; 0 turns it off), gives it the weight
# a CPU request gives the managed Redis' pod (docs/adr/0025-redis-cpu-weight.md). Lowering a nice value needs root
# (CAP_SYS_NICE): without it Redis keeps the default, said once.
redis_priority() {
  local nice="${VIGIL_REDIS_NICE:--5}" pid
  [ "$nice" != 0 ] && pid=$(redis_pid) || return 0
  echo "$nice" 2>/dev/null > "/proc/$pid/autogroup" \
    || echo "    redis-server keeps the default CPU weight (setting its session's nice to $nice needs root)"
}

# Redis' AOF rewrite child serialises the dataset on a core of its own, in Redis' session: on the 2-core
# platform it took CPU from the engine and from Redis' main thread while it ran (hundreds of deadline misses
# per rewrite). VIGIL_REDIS_CHILDREN=idle (default) runs redis-children-idle.sh beside Redis, which puts its
# children in SCHED_IDLE and, for their first VIGIL_REDIS_CHILD_IDLE_SECONDS (30), in the idle CPU cgroup;
# =normal leaves them at Redis' priority (docs/adr/0028-aof-rewrites-off-the-decision-path.md).
redis_children_priority() {
  local pid
  [ "${VIGIL_REDIS_CHILDREN:-idle}" = idle ] && pid=$(redis_pid) || return 0
  # its own session, nothing inherited: it outlives this shell (make run's), and ends with Redis. Started
  # from a subshell so that it is no job of the caller's: a bench's `wait` would otherwise wait for it,
  # that is for Redis to end (bench-outage hung after restarting Redis).
  (setsid "$VIGIL_ROOT/environments/local/bin/redis-children-idle.sh" "$pid" </dev/null >/dev/null 2>&1 &)
}

start_redis() {
  case "${VIGIL_REDIS_CHILDREN:-idle}" in
    idle|normal) ;;
    *) echo "ERROR: VIGIL_REDIS_CHILDREN must be idle or normal, was '$VIGIL_REDIS_CHILDREN'" >&2; return 1 ;;
  esac
  command -v redis-server >/dev/null 2>&1 || { echo "ERROR: redis-server missing: run 'make deps'" >&2; return 1; }
  mkdir -p "$REDIS_DIR" "$(dirname "$REDIS_LOG")"
  if redis_pid >/dev/null; then
    echo "==> redis already running (pid $(redis_pid), port $REDIS_PORT)"
    return 0
  fi
  if redis-cli -h 127.0.0.1 -p "$REDIS_PORT" PING >/dev/null 2>&1; then
    echo "ERROR: something else answers on 127.0.0.1:$REDIS_PORT (not started by make run); stop it or set VIGIL_REDIS_PORT" >&2
    return 1
  fi
  # Also on the host address, for the engine and relay pods of the local cluster's real node.
  local pod_host
  pod_host=$(pod_reachable_host)
  echo "==> starting redis-server on 127.0.0.1${pod_host:+ and $pod_host}:$REDIS_PORT (AOF, noeviction; data $REDIS_DIR, log $REDIS_LOG)${VIGIL_REDIS_CONFIG:+; with $VIGIL_REDIS_CONFIG}"
  local extra=()
  mapfile -t extra < <(redis_config_args)
  # One "--name value" per setting: redis-server reads its arguments as lines of a config file.
  # shellcheck disable=SC2086  # pod_host: one word or none
  redis-server "$REDIS_SETTINGS" --port "$REDIS_PORT" --bind 127.0.0.1 $pod_host \
    --dir "$REDIS_DIR" --daemonize yes --pidfile "$REDIS_PIDFILE" --logfile "$REDIS_LOG" ${extra[@]+"${extra[@]}"}
  # A Redis that reloads a large AOF answers LOADING for as long as that takes (about 8 s for 1.9 GB
  # here): wait while it loads, up to VIGIL_REDIS_START_TIMEOUT seconds, and say so once.
  local i reply said_loading="" limit=$(( ${VIGIL_REDIS_START_TIMEOUT:-300} * 10 ))
  for i in $(seq 1 "$limit"); do
    reply=$(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" PING 2>/dev/null || true)
    case "$reply" in
      PONG) redis_priority; redis_children_priority; return 0 ;;
      LOADING*) [ -n "$said_loading" ] || { echo "    loading its dataset ($(du -sh "$REDIS_DIR" | cut -f1) in $REDIS_DIR)"; said_loading=1; } ;;
    esac
    if [ -z "$said_loading" ] && [ "$i" -ge 100 ]; then break; fi
    redis_pid >/dev/null || break
    sleep 0.1
  done
  echo "ERROR: redis-server did not answer PING (see $REDIS_LOG)" >&2
  tail -20 "$REDIS_LOG" >&2 || true
  return 1
}

stop_redis() {
  local pid i
  if ! pid=$(redis_pid); then
    rm -f "$REDIS_PIDFILE"
    return 0
  fi
  echo "==> stopping redis-server (pid $pid)"
  redis-cli -h 127.0.0.1 -p "$REDIS_PORT" SHUTDOWN >/dev/null 2>&1 || kill "$pid" 2>/dev/null || true
  for i in $(seq 1 100); do
    kill -0 "$pid" 2>/dev/null || { rm -f "$REDIS_PIDFILE"; return 0; }
    sleep 0.1
  done
  echo "    redis-server did not stop in 10 s; killing it"
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$REDIS_PIDFILE"
}

redis_status() {
  local pid
  if pid=$(redis_pid); then
    echo "redis      running  pid $pid  127.0.0.1:$REDIS_PORT  keys $(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" DBSIZE 2>/dev/null)"
  else
    echo "redis      stopped"
  fi
}

# Demo of `make run`: the sample CARD_AUTH ruleset's velocity rules on one card. Transactions 1-4
# approve, the 5th reaches card-5min-velocity-review (REVIEW), the 8th card-5min-velocity-decline
# (DECLINE); a retry of the 8th is answered the same and not counted again.
demo_velocity() {
  local card="c-velocity-demo-$(date +%s)" i out body
  echo
  echo "--- velocity: 8 transactions on one card within seconds, then a retry of the last"
  for i in 1 2 3 4 5 6 7 8 8; do
    body="{\"transaction_id\":\"$card-$i\",\"card_hash\":\"$card\",\"amount\":12.50,\"currency\":\"EUR\",\"merchant_id\":\"m-bakery-042\",\"merchant_category_code\":\"5411\",\"card_present\":true,\"country_code\":\"DE\"}"
    out=$(curl -sS -H 'Content-Type: application/json' -d "$body" "$ENGINE_DATA_URL/v1/evaluate/auth")
    printf '    #%s  %s\n' "$i" "$(printf '%s' "$out" | python3 -c 'import json,sys; a=json.load(sys.stdin); print(a.get("decision"), a.get("engine_mode"), a.get("rule_id") or "-", a.get("reason_code") or "")' 2>/dev/null || printf '%s' "$out")"
  done
}
