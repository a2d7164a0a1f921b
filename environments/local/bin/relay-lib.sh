# The relay of `make run` (sourced by run.sh / stop.sh / logs.sh, not run): Redis Streams -> Kafka.
#   start_relay    start engine/relay/target/quarkus-app/quarkus-run.jar (idempotent; restarts it when
#                  rebuilt), wait until ready (Redis and Kafka reachable)
#   stop_relay     stop exactly the process start_relay started (SIGTERM: it finishes its batch)
#   relay_status   one line
# Management (health, metrics) on 9091. Log .local/run/relay.log.

# How the relay is launched (jar, JVM options, readiness, timeouts) is read from the file the tests'
# PackagedApp reads too (process-lib.sh's app_setting); only the instance's settings are added here.

VIGIL_ROOT="${VIGIL_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)}"
. "$(dirname "${BASH_SOURCE[0]}")/process-lib.sh"
RELAY_PIDFILE="$VIGIL_ROOT/.local/run/relay.pid"
RELAY_LOG="$VIGIL_ROOT/.local/run/relay.log"
RELAY_JAR="$VIGIL_ROOT/$(app_setting relay jar)"
RELAY_MANAGEMENT_PORT="${VIGIL_RELAY_MANAGEMENT_PORT:-9091}"
RELAY_MANAGEMENT_URL="http://127.0.0.1:$RELAY_MANAGEMENT_PORT"
RELAY_READY_URL="$RELAY_MANAGEMENT_URL$(app_setting relay ready.path)"

RELAY_PATTERN='relay/target/quarkus-app/quarkus-run.jar'

relay_pid() {
  recorded_pid "$RELAY_PIDFILE" "$RELAY_PATTERN"
}

relay_ready() {
  curl -fsS -o /dev/null --max-time 2 "$RELAY_READY_URL" 2>/dev/null
}

# RELAY_COMMAND: the relay's command line, the shared JVM options first, then this instance's.
relay_command() {
  # shellcheck disable=SC2086  # VIGIL_RELAY_JAVA_OPTS: words, split on purpose
  app_command relay \
    -Dquarkus.management.port="$RELAY_MANAGEMENT_PORT" \
    -Dquarkus.redis.hosts="redis://127.0.0.1:${REDIS_PORT:-16379}" \
    -Dvigil.relay.bootstrap-servers="${KAFKA_BOOTSTRAP:-127.0.0.1:19092}" \
    -Dvigil.relay.topic="${DECISIONS_TOPIC:-fraud.card.decisions.v1}" \
    -Dvigil.relay.consumer-name=relay-local \
    ${VIGIL_RELAY_JAVA_OPTS:-} || return 1
  RELAY_COMMAND=("${APP_COMMAND[@]}")
}

start_relay() {
  local pid
  mkdir -p "$(dirname "$RELAY_PIDFILE")"
  [ -f "$RELAY_JAR" ] || { echo "ERROR: $RELAY_JAR is missing: run 'make build'" >&2; return 1; }
  if pid=$(relay_pid); then
    if [ "$RELAY_JAR" -nt "$RELAY_PIDFILE" ]; then
      echo "==> relay (pid $pid) runs an older build; restarting it"
      stop_relay
    else
      echo "==> relay already running (pid $pid)"
      return 0
    fi
  fi
  if curl -s -o /dev/null --max-time 1 "$RELAY_MANAGEMENT_URL/"; then
    echo "ERROR: something not started by 'make run' answers on port $RELAY_MANAGEMENT_PORT; stop it or set VIGIL_RELAY_MANAGEMENT_PORT" >&2
    return 1
  fi
  relay_command || return 1
  echo "==> starting the relay: Redis stream vigil:decisions -> Kafka ${KAFKA_BOOTSTRAP:-127.0.0.1:19092} topic ${DECISIONS_TOPIC:-fraud.card.decisions.v1}; management $RELAY_MANAGEMENT_URL"
  start_background "the relay" "$RELAY_PIDFILE" "$RELAY_LOG" "$(app_setting relay start.timeout.seconds)" relay_ready -- \
    "${ASYNC_PATH[@]}" "${RELAY_COMMAND[@]}" && return 0
  # still running but not ready: its health says which dependency (Redis, Kafka) it waits for
  relay_pid >/dev/null && echo "    readiness: $(curl -s --max-time 2 "$RELAY_MANAGEMENT_URL/q/health/ready")" >&2
  return 1
}

stop_relay() {
  local pid
  if pid=$(relay_pid); then async_path_stopping "$pid"; fi
  stop_background "the relay" "$RELAY_PIDFILE" "$RELAY_PATTERN" "$(app_setting relay stop.grace.seconds)"
}

relay_status() {
  local pid
  if pid=$(relay_pid); then echo "relay    running (pid $pid) $RELAY_MANAGEMENT_URL"; else echo "relay    stopped"; fi
}

durability_info() {
  cat <<TXT

==> decisions flow engine -> Redis stream vigil:decisions -> relay -> Kafka ${KAFKA_BOOTSTRAP:-127.0.0.1:19092} topic ${DECISIONS_TOPIC:-fraud.card.decisions.v1}
    watch them arrive   make watch-decisions            (add ARGS=--from-beginning for the history)
    relay health        $RELAY_MANAGEMENT_URL/q/health/ready
    relay metrics       $RELAY_MANAGEMENT_URL/q/metrics   (vigil_relay_published_total, _lag, _pending, _dead_lettered_total)
    outbox metrics      ${ENGINE_MANAGEMENT_URL:-http://127.0.0.1:9081}/q/metrics   (vigil_outbox_enqueue_total, _xadd_total, _queue_depth)
    dead letters        redis-cli -p ${REDIS_PORT:-16379} XRANGE vigil:decisions:dead-letter - +
TXT
}
