# Local Kafka of `make run` (sourced by run.sh / stop.sh / logs.sh, not run): one KRaft node (broker and
# controller) from the Apache Kafka jars that environments/local/kafka resolves, no containers.
#   start_kafka    start it (idempotent; formats the log dir once), create the decisions topic
#   stop_kafka     stop exactly the broker start_kafka started (SIGTERM: controlled shutdown)
#   kafka_status   one line
# Ports: broker 19092, controller 19093, for the real node's pods 19094 on the host address. Data .local/run/kafka, log .local/run/kafka.log.
# Tests never use this broker: they start their own on free ports (io.vigil.testing.kafka).

VIGIL_ROOT="${VIGIL_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)}"
. "$(dirname "${BASH_SOURCE[0]}")/process-lib.sh"
KAFKA_PORT="${VIGIL_KAFKA_PORT:-19092}"
KAFKA_CONTROLLER_PORT="${VIGIL_KAFKA_CONTROLLER_PORT:-19093}"
KAFKA_BOOTSTRAP="127.0.0.1:$KAFKA_PORT"
# A second listener on the host address for the pods of the local cluster's real node (ADR 0008),
# advertised as that address; host clients keep 127.0.0.1.
KAFKA_POD_PORT="${VIGIL_KAFKA_POD_PORT:-19094}"
KAFKA_DIR="$VIGIL_ROOT/.local/run/kafka"
KAFKA_PIDFILE="$VIGIL_ROOT/.local/run/kafka.pid"
KAFKA_LOG="$VIGIL_ROOT/.local/run/kafka.log"
KAFKA_CLASSPATH_FILE="$VIGIL_ROOT/environments/local/kafka/target/classes/io/vigil/local/kafka/broker.classpath"
KAFKA_TOOL="$VIGIL_ROOT/environments/local/kafka/tools/KafkaLocal.java"
# The broker settings shared with the tests' KafkaBroker (one home; this script adds ports and directories).
KAFKA_SETTINGS="$VIGIL_ROOT/environments/local/kafka/src/main/resources/io/vigil/local/kafka/broker.properties"
DECISIONS_TOPIC="${VIGIL_DECISIONS_TOPIC:-fraud.card.decisions.v1}"
DECISIONS_PARTITIONS="${VIGIL_DECISIONS_PARTITIONS:-6}"

kafka_java() {
  echo "${JAVA_HOME:-$("$VIGIL_ROOT/environments/local/bin/java-home.sh")}/bin/java"
}

kafka_classpath() {
  [ -f "$KAFKA_CLASSPATH_FILE" ] || { echo "ERROR: $KAFKA_CLASSPATH_FILE is missing: run 'make build'" >&2; return 1; }
  cat "$KAFKA_CLASSPATH_FILE"
}

kafka_pid() {
  recorded_pid "$KAFKA_PIDFILE" kafka.Kafka
}

kafka_port_open() {
  (exec 3<>"/dev/tcp/127.0.0.1/$KAFKA_PORT") 2>/dev/null
}

start_kafka() {
  local java cp pid
  java=$(kafka_java)
  cp=$(kafka_classpath) || return 1
  mkdir -p "$KAFKA_DIR"
  if pid=$(kafka_pid); then
    echo "==> kafka already running (pid $pid, $KAFKA_BOOTSTRAP)"
  else
    if kafka_port_open; then
      echo "ERROR: something not started by 'make run' listens on $KAFKA_BOOTSTRAP; stop it or set VIGIL_KAFKA_PORT" >&2
      return 1
    fi
    local pod_host pods=""
    pod_host=$(pod_reachable_host)
    [ -z "$pod_host" ] || pods=",PODS://$pod_host:$KAFKA_POD_PORT"
    { cat "$KAFKA_SETTINGS"; cat <<PROPS
controller.quorum.voters=1@127.0.0.1:$KAFKA_CONTROLLER_PORT
listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT,CONTROLLER://127.0.0.1:$KAFKA_CONTROLLER_PORT$pods
advertised.listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT$pods
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,PODS:PLAINTEXT
log.dirs=$KAFKA_DIR/data
PROPS
    } > "$KAFKA_DIR/server.properties"
    if [ ! -f "$KAFKA_DIR/data/meta.properties" ]; then
      local uuid
      uuid=$("${ASYNC_PATH[@]}" "$java" -Xmx256m -cp "$cp" kafka.tools.StorageTool random-uuid 2>/dev/null | tail -1)
      "${ASYNC_PATH[@]}" "$java" -Xmx256m -cp "$cp" kafka.tools.StorageTool format -t "$uuid" -c "$KAFKA_DIR/server.properties" >> "$KAFKA_LOG" 2>&1
    fi
    echo "==> starting kafka (KRaft) on $KAFKA_BOOTSTRAP (data $KAFKA_DIR, log $KAFKA_LOG)"
    # VIGIL_KAFKA_START_TIMEOUT (s): a JVM start on a loaded 2-core machine can take longer than 90 s
    start_background kafka "$KAFKA_PIDFILE" "$KAFKA_LOG" "${VIGIL_KAFKA_START_TIMEOUT:-90}" kafka_port_open -- \
      "${ASYNC_PATH[@]}" "$java" -Xmx512m -Xms64m -cp "$cp" kafka.Kafka "$KAFKA_DIR/server.properties" || return 1
  fi
  # creating the topic also waits until the broker serves (the Admin client retries)
  "${ASYNC_PATH[@]}" "$java" -cp "$cp" "$KAFKA_TOOL" create-topic "$KAFKA_BOOTSTRAP" "$DECISIONS_TOPIC" "$DECISIONS_PARTITIONS" 2>>"$KAFKA_LOG"
}

stop_kafka() {
  local pid
  if pid=$(kafka_pid); then async_path_stopping "$pid"; fi
  stop_background kafka "$KAFKA_PIDFILE" kafka.Kafka 30
}

kafka_status() {
  local pid
  if pid=$(kafka_pid); then echo "kafka    running (pid $pid) $KAFKA_BOOTSTRAP"; else echo "kafka    stopped"; fi
}

# Prints decision events as they arrive (make watch-decisions).
watch_decisions() {
  local cp
  cp=$(kafka_classpath) || return 1
  exec "$(kafka_java)" -cp "$cp" "$KAFKA_TOOL" watch "$KAFKA_BOOTSTRAP" "$DECISIONS_TOPIC" "$@"
}
