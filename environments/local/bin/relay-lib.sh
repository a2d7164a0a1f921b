# The relay of `make run` (sourced by run.sh / stop.sh / logs.sh, not run): Redis Streams -> Kafka.
#   start_relay    start engine/relay/target/quarkus-app/quarkus-run.jar (idempotent; restarts it when
#                  rebuilt), wait until ready (Redis and Kafka reachable)
#   stop_relay     stop exactly the process start_relay started (SIGTERM: it finishes its batch)
#   relay_status   one line
# Management (health, metrics) on 9091. Log .local/run/relay.log.

VIGIL_ROOT="${VIGIL_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)}"
RELAY_PIDFILE="$VIGIL_ROOT/.local/run/relay.pid"
RELAY_LOG="$VIGIL_ROOT/.local/run/relay.log"
RELAY_JAR="$VIGIL_ROOT/engine/relay/target/quarkus-app/quarkus-run.jar"
RELAY_MANAGEMENT_PORT="${VIGIL_RELAY_MANAGEMENT_PORT:-9091}"
RELAY_MANAGEMENT_URL="http://127.0.0.1:$RELAY_MANAGEMENT_PORT"

relay_pid() {
  local pid
  [ -f "$RELAY_PIDFILE" ] || return 1
  pid=$(cat "$RELAY_PIDFILE")
  [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] || return 1
  tr '\0' ' ' < "/proc/$pid/cmdline" | grep -q 'relay/target/quarkus-app/quarkus-run.jar' || return 1
  echo "$pid"
}

start_relay() {
  local java pid i
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
  java="${JAVA_HOME:-$("$VIGIL_ROOT/environments/local/bin/java-home.sh")}/bin/java"
  echo "==> starting the relay: Redis stream vigil:decisions -> Kafka ${KAFKA_BOOTSTRAP:-127.0.0.1:19092} topic ${DECISIONS_TOPIC:-fraud.card.decisions.v1}; management $RELAY_MANAGEMENT_URL"
  echo "----- $(date -u +%Y-%m-%dT%H:%M:%SZ) make run starts the relay -----" >> "$RELAY_LOG"
  setsid nohup "$java" -Xmx256m \
    -Dquarkus.management.port="$RELAY_MANAGEMENT_PORT" \
    -Dquarkus.redis.hosts="redis://127.0.0.1:${REDIS_PORT:-16379}" \
    -Dvigil.relay.bootstrap-servers="${KAFKA_BOOTSTRAP:-127.0.0.1:19092}" \
    -Dvigil.relay.topic="${DECISIONS_TOPIC:-fraud.card.decisions.v1}" \
    -Dvigil.relay.consumer-name=relay-local \
    ${VIGIL_RELAY_JAVA_OPTS:-} \
    -jar "$RELAY_JAR" >> "$RELAY_LOG" 2>&1 < /dev/null &
  echo $! > "$RELAY_PIDFILE"
  for i in $(seq 1 120); do
    if curl -fsS -o /dev/null --max-time 2 "$RELAY_MANAGEMENT_URL/q/health/ready" 2>/dev/null; then
      return 0
    fi
    if ! kill -0 "$(cat "$RELAY_PIDFILE")" 2>/dev/null; then
      echo "ERROR: the relay exited while starting; last lines of $RELAY_LOG:" >&2
      tail -n 30 "$RELAY_LOG" >&2
      return 1
    fi
    sleep 0.5
  done
  echo "ERROR: the relay is not ready after 60 s: $(curl -s "$RELAY_MANAGEMENT_URL/q/health/ready")" >&2
  return 1
}

stop_relay() {
  local pid i
  if ! pid=$(relay_pid); then
    rm -f "$RELAY_PIDFILE"
    return 0
  fi
  echo "==> stopping the relay (pid $pid)"
  kill "$pid" 2>/dev/null || true
  for i in $(seq 1 60); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  if kill -0 "$pid" 2>/dev/null; then
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$RELAY_PIDFILE"
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
