# The engine process of `make run` (sourced by run.sh / stop.sh / logs.sh, not run):
#   start_engine    start target/quarkus-app/quarkus-run.jar in the background (idempotent; restarts it
#                   when the jar was rebuilt since it started); wait until it answers
#   stop_engine     stop exactly the process start_engine started (SIGTERM, then SIGKILL after 20 s)
#   engine_status   one line
# State: .local/run/engine.pid, log .local/run/engine.log. Ports: data 8081, management 9081.

VIGIL_ROOT="${VIGIL_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)}"
RUN_DIR="$VIGIL_ROOT/.local/run"
ENGINE_PIDFILE="$RUN_DIR/engine.pid"
ENGINE_LOG="$RUN_DIR/engine.log"
ENGINE_JAR="$VIGIL_ROOT/engine/service/target/quarkus-app/quarkus-run.jar"
ENGINE_PORT="${VIGIL_ENGINE_PORT:-8081}"
ENGINE_MANAGEMENT_PORT="${VIGIL_ENGINE_MANAGEMENT_PORT:-9081}"
ENGINE_RULESETS="${VIGIL_RULESETS_DIR:-$VIGIL_ROOT/engine/rulesets}"
ENGINE_START_TIMEOUT="${VIGIL_ENGINE_START_TIMEOUT:-120}"
ENGINE_DATA_URL="http://127.0.0.1:$ENGINE_PORT"
ENGINE_MANAGEMENT_URL="http://127.0.0.1:$ENGINE_MANAGEMENT_PORT"

# The pid recorded by start_engine, if that process is alive and is our engine jar.
engine_pid() {
  local pid
  [ -f "$ENGINE_PIDFILE" ] || return 1
  pid=$(cat "$ENGINE_PIDFILE")
  [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] || return 1
  tr '\0' ' ' < "/proc/$pid/cmdline" | grep -q 'quarkus-run.jar' || return 1
  echo "$pid"
}

engine_answers() {
  curl -fsS -o /dev/null --max-time 2 "$ENGINE_DATA_URL/v1/evaluate/health" 2>/dev/null
}

start_engine() {
  local java pid
  mkdir -p "$RUN_DIR"
  [ -f "$ENGINE_JAR" ] || { echo "ERROR: $ENGINE_JAR is missing: run 'make build'" >&2; return 1; }
  if pid=$(engine_pid); then
    if [ "$ENGINE_JAR" -nt "$ENGINE_PIDFILE" ]; then
      echo "==> engine (pid $pid) runs an older build; restarting it"
      stop_engine
    else
      echo "==> engine already running (pid $pid)"
      wait_for_engine "$pid"
      return
    fi
  fi
  if curl -s -o /dev/null --max-time 1 "$ENGINE_DATA_URL/" || curl -s -o /dev/null --max-time 1 "$ENGINE_MANAGEMENT_URL/"; then
    echo "ERROR: something not started by 'make run' answers on port $ENGINE_PORT or $ENGINE_MANAGEMENT_PORT;" \
         "stop it, or set VIGIL_ENGINE_PORT / VIGIL_ENGINE_MANAGEMENT_PORT" >&2
    return 1
  fi
  java="${JAVA_HOME:-$("$VIGIL_ROOT/environments/local/bin/java-home.sh")}/bin/java"
  echo "==> starting the engine: data $ENGINE_DATA_URL, management $ENGINE_MANAGEMENT_URL, rulesets $ENGINE_RULESETS"
  echo "    log $ENGINE_LOG"
  {
    echo "----- $(date -u +%Y-%m-%dT%H:%M:%SZ) make run starts the engine -----"
  } >> "$ENGINE_LOG"
  # setsid: the engine outlives this script and the terminal's Ctrl-C; stop.sh ends it by its pid.
  # Loopback only: a developer machine's engine is not for the network (in Kubernetes it binds 0.0.0.0).
  setsid nohup "$java" \
    -Dquarkus.http.host=127.0.0.1 -Dquarkus.management.host=127.0.0.1 \
    -Dquarkus.http.port="$ENGINE_PORT" \
    -Dquarkus.management.port="$ENGINE_MANAGEMENT_PORT" \
    -Dvigil.rulesets.dir="$ENGINE_RULESETS" \
    ${VIGIL_ENGINE_JAVA_OPTS:-} \
    -jar "$ENGINE_JAR" >> "$ENGINE_LOG" 2>&1 < /dev/null &
  echo $! > "$ENGINE_PIDFILE"
  wait_for_engine "$!"
}

# Waits until the data port answers; fails with the log's tail when the process dies or time runs out.
wait_for_engine() {
  local pid="$1" waited=0
  while ! engine_answers; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "ERROR: the engine exited while starting; last lines of $ENGINE_LOG:" >&2
      tail -n 30 "$ENGINE_LOG" >&2
      rm -f "$ENGINE_PIDFILE"
      return 1
    fi
    if [ "$waited" -ge "$ENGINE_START_TIMEOUT" ]; then
      echo "ERROR: the engine (pid $pid) did not answer on $ENGINE_DATA_URL within ${ENGINE_START_TIMEOUT}s;" \
           "it is still running (make stop ends it); see $ENGINE_LOG" >&2
      tail -n 30 "$ENGINE_LOG" >&2
      return 1
    fi
    sleep 1
    waited=$((waited + 1))
  done
  echo "==> engine answers (pid $pid)"
}

stop_engine() {
  local pid i
  if ! pid=$(engine_pid); then
    rm -f "$ENGINE_PIDFILE"
    return 0
  fi
  echo "==> stopping the engine (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  for i in $(seq 1 200); do
    kill -0 "$pid" 2>/dev/null || { rm -f "$ENGINE_PIDFILE"; return 0; }
    sleep 0.1
  done
  echo "    the engine did not stop in 20 s; killing it"
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$ENGINE_PIDFILE"
}

engine_status() {
  local pid
  if pid=$(engine_pid); then
    echo "engine     running  pid $pid  data $ENGINE_DATA_URL  management $ENGINE_MANAGEMENT_URL"
  else
    echo "engine     stopped"
  fi
}
