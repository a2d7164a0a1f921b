# The engine process of `make run` (sourced by run.sh / stop.sh / logs.sh, not run):
#   start_engine    start target/quarkus-app/quarkus-run.jar in the background (idempotent; restarts it
#                   when the jar was rebuilt since it started); wait until it answers
#   stop_engine     stop exactly the process start_engine started (SIGTERM, then SIGKILL after 20 s)
#   engine_status   one line
# State: .local/run/engine.pid, log .local/run/engine.log. Ports: data 8081, management 9081.

# How the engine is launched (jar, JVM options, readiness, timeouts) is read from the file the tests'
# PackagedApp reads too (process-lib.sh's app_setting); only the instance's settings are added here.

VIGIL_ROOT="${VIGIL_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)}"
. "$(dirname "${BASH_SOURCE[0]}")/process-lib.sh"
RUN_DIR="$VIGIL_ROOT/.local/run"
ENGINE_PIDFILE="$RUN_DIR/engine.pid"
ENGINE_LOG="$RUN_DIR/engine.log"
ENGINE_JAR="$VIGIL_ROOT/$(app_setting engine jar)"
ENGINE_PORT="${VIGIL_ENGINE_PORT:-8081}"
ENGINE_MANAGEMENT_PORT="${VIGIL_ENGINE_MANAGEMENT_PORT:-9081}"
ENGINE_RULESETS="${VIGIL_RULESETS_DIR:-$VIGIL_ROOT/engine/rulesets}"
ENGINE_START_TIMEOUT="${VIGIL_ENGINE_START_TIMEOUT:-$(app_setting engine start.timeout.seconds)}"
ENGINE_DATA_URL="http://127.0.0.1:$ENGINE_PORT"
ENGINE_MANAGEMENT_URL="http://127.0.0.1:$ENGINE_MANAGEMENT_PORT"
ENGINE_READY_URL="$ENGINE_MANAGEMENT_URL$(app_setting engine ready.path)"

# The pid recorded by start_engine, if that process is alive and is our engine jar.
engine_pid() { recorded_pid "$ENGINE_PIDFILE" quarkus-run.jar; }

# Ready, not just listening: the readiness check includes the warm-up (docs/velocity.md), so the first
# decisions after `make run` are answered NORMAL within the deadline.
engine_answers() {
  curl -fsS -o /dev/null --max-time 2 "$ENGINE_READY_URL" 2>/dev/null
}

# ENGINE_COMMAND: the engine's command line, the shared JVM options first, then this instance's.
engine_command() {
  # shellcheck disable=SC2086  # VIGIL_ENGINE_JAVA_OPTS: words, split on purpose
  app_command engine \
    -Dquarkus.http.port="$ENGINE_PORT" \
    -Dquarkus.management.port="$ENGINE_MANAGEMENT_PORT" \
    -Dvigil.rulesets.dir="$ENGINE_RULESETS" \
    ${VIGIL_ENGINE_JAVA_OPTS:-} || return 1
  ENGINE_COMMAND=("${APP_COMMAND[@]}")
}

start_engine() {
  local pid
  mkdir -p "$RUN_DIR"
  [ -f "$ENGINE_JAR" ] || { echo "ERROR: $ENGINE_JAR is missing: run 'make build'" >&2; return 1; }
  if pid=$(engine_pid); then
    if [ "$ENGINE_JAR" -nt "$ENGINE_PIDFILE" ]; then
      echo "==> engine (pid $pid) runs an older build; restarting it"
      stop_engine
    else
      echo "==> engine already running (pid $pid)"
      await_ready "the engine" "$pid" "$ENGINE_PIDFILE" "$ENGINE_LOG" "$ENGINE_START_TIMEOUT" engine_answers
      return
    fi
  fi
  if curl -s -o /dev/null --max-time 1 "$ENGINE_DATA_URL/" || curl -s -o /dev/null --max-time 1 "$ENGINE_MANAGEMENT_URL/"; then
    echo "ERROR: something not started by 'make run' answers on port $ENGINE_PORT or $ENGINE_MANAGEMENT_PORT;" \
         "stop it, or set VIGIL_ENGINE_PORT / VIGIL_ENGINE_MANAGEMENT_PORT" >&2
    return 1
  fi
  engine_command || return 1
  echo "==> starting the engine: data $ENGINE_DATA_URL, management $ENGINE_MANAGEMENT_URL, rulesets $ENGINE_RULESETS"
  echo "    log $ENGINE_LOG"
  start_background "the engine" "$ENGINE_PIDFILE" "$ENGINE_LOG" "$ENGINE_START_TIMEOUT" engine_answers -- \
    "${ENGINE_COMMAND[@]}" || return 1
  echo "==> engine answers (pid $(engine_pid))"
}

stop_engine() { stop_background "the engine" "$ENGINE_PIDFILE" quarkus-run.jar "$(app_setting engine stop.grace.seconds)"; }

engine_status() {
  local pid
  if pid=$(engine_pid); then
    echo "engine     running  pid $pid  data $ENGINE_DATA_URL  management $ENGINE_MANAGEMENT_URL"
  else
    echo "engine     stopped"
  fi
}
