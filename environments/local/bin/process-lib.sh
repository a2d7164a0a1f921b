# Background processes of `make run` by pid file (sourced by the *-lib.sh of the parts, not run): the
# one way a part is started detached, waited for and stopped, so `make stop` ends exactly what
# `make run` started and nothing else.
#   recorded_pid PIDFILE PATTERN      the pid in PIDFILE if that process lives and its command line
#                                     contains PATTERN, or, for PATTERN argv0=NAME, it runs the program
#                                     NAME (basename of argv[0]; the cluster's components); a reused pid
#                                     of another program does not count
#   start_background NAME PIDFILE LOG TIMEOUT READY -- COMMAND [ARGS...]
#                                     runs COMMAND detached, appends its output to LOG, records its pid,
#                                     then polls READY (a command or function) every 0.5 s until it succeeds;
#                                     fails with the log's tail if the process exits or TIMEOUT seconds pass
#   await_ready NAME PID PIDFILE LOG TIMEOUT READY
#                                     the wait of start_background, for a process already started (e.g. by
#                                     an earlier `make run` that is still coming up)
#   stop_background NAME PIDFILE PATTERN GRACE
#                                     SIGTERM to the recorded process, SIGKILL after GRACE seconds,
#                                     removes PIDFILE; nothing to do when it is not running
#   app_setting APP KEY               a setting of a packaged app's launch (APP engine|relay|operator), from
#                                     the file the tests' PackagedApp reads too (key=value, # comments)
#   "${ASYNC_PATH[@]}" COMMAND        runs COMMAND at the async path's lower CPU priority (relay, Kafka, Prometheus),
#                                     in the idle CPU group for its first seconds (async-path.sh)
#   async_path_stopping PID           a part of the async path about to be stopped: its shutdown only gets
#                                     the CPU nobody else wants (async-path.sh idle)
#   app_command APP [ARGS...]         sets APP_COMMAND: java, APP's shared JVM options, ARGS (the
#                                     instance's), -jar and APP's jar; PackagedApp builds the same

# The decision path (the engine, Redis) must answer within milliseconds; the parts behind it (relay, Kafka,
# Prometheus) move work whose delay the Redis stream absorbs. On a small machine they start at a lower CPU
# priority, as CPU requests weigh a node's pods, so a JVM starting beside the engine does not push its
# answers past the deadline (docs/adr/0019-decision-path-first.md). VIGIL_ASYNC_NICE=0 turns it off.
# async-path.sh sets the session's (autogroup's) nice too: plain nice does not weigh one session against another.
ASYNC_PATH=()
[ "${VIGIL_ASYNC_NICE:-10}" -gt 0 ] 2>/dev/null \
  && ASYNC_PATH=("$(dirname "${BASH_SOURCE[0]}")/async-path.sh" "${VIGIL_ASYNC_NICE:-10}")

async_path_stopping() {
  [ ${#ASYNC_PATH[@]} -eq 0 ] || "${ASYNC_PATH[0]}" idle "$1"
}

APP_SETTINGS_ROOT="${VIGIL_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)}"
APP_SETTINGS_DIR="$APP_SETTINGS_ROOT/environments/local/test-support/src/main/resources/io/vigil/testing/app"

app_setting() {
  local file="$APP_SETTINGS_DIR/$1.properties" line
  [ -f "$file" ] || { echo "ERROR: $file is missing" >&2; return 1; }
  line=$(grep -m1 "^$2=" "$file") || { echo "ERROR: no '$2' in $file" >&2; return 1; }
  echo "${line#*=}"
}

app_command() {
  local app="$1" java shared jar
  shift
  java="${JAVA_HOME:-$("$(dirname "${BASH_SOURCE[0]}")/java-home.sh")}/bin/java"
  shared=$(app_setting "$app" jvm.options) && jar=$(app_setting "$app" jar) || return 1
  # shellcheck disable=SC2206  # the shared options are words without spaces, split on purpose
  APP_COMMAND=("$java" $shared "$@" -jar "${APP_SETTINGS_ROOT}/$jar")
}

recorded_pid() {
  local pidfile="$1" pattern="$2" pid
  [ -f "$pidfile" ] || return 1
  pid=$(cat "$pidfile")
  [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] || return 1
  if [ "${pattern#argv0=}" != "$pattern" ]; then
    local argv0
    argv0=$(tr '\0' '\n' < "/proc/$pid/cmdline" | head -1)
    [ "$(basename -- "$argv0")" = "${pattern#argv0=}" ] || return 1
  else
    tr '\0' ' ' < "/proc/$pid/cmdline" | grep -qF -- "$pattern" || return 1
  fi
  echo "$pid"
}

start_background() {
  local name="$1" pidfile="$2" log="$3" timeout="$4" ready="$5" pid i
  shift 5
  [ "${1:-}" = "--" ] && shift
  mkdir -p "$(dirname "$pidfile")" "$(dirname "$log")"
  echo "----- $(date -u +%Y-%m-%dT%H:%M:%SZ) make run starts $name -----" >> "$log"
  # setsid: the process outlives this script and the terminal's Ctrl-C; stop_background ends it by its pid.
  setsid nohup "$@" >> "$log" 2>&1 < /dev/null &
  pid=$!
  echo "$pid" > "$pidfile"
  await_ready "$name" "$pid" "$pidfile" "$log" "$timeout" "$ready"
}

await_ready() {
  local name="$1" pid="$2" pidfile="$3" log="$4" timeout="$5" ready="$6" i
  for i in $(seq 1 $((timeout * 2))); do
    $ready && return 0
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "ERROR: $name exited while starting; last lines of $log:" >&2
      tail -n 30 "$log" >&2
      rm -f "$pidfile"
      return 1
    fi
    sleep 0.5
  done
  echo "ERROR: $name (pid $pid) is not ready after $timeout s; it is still running ('make stop' ends it);" \
       "last lines of $log:" >&2
  tail -n 30 "$log" >&2
  return 1
}

stop_background() {
  local name="$1" pidfile="$2" pattern="$3" grace="$4" pid i
  if ! pid=$(recorded_pid "$pidfile" "$pattern"); then
    rm -f "$pidfile"
    return 0
  fi
  echo "==> stopping $name (pid $pid)"
  kill "$pid" 2>/dev/null || true
  for i in $(seq 1 $((grace * 10))); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    echo "    $name did not stop in $grace s; SIGKILL"
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$pidfile"
}

# The host address the local cluster's real node's pods reach the host on (Redis, Kafka of `make run`):
# the source address of the default route; VIGIL_NODE_IP overrides; empty when there is none. Pod
# traffic to 127.0.0.0/8 is dropped by the kubelet's KUBE-FIREWALL chain (ADR 0008).
pod_reachable_host() {
  if [ -n "${VIGIL_NODE_IP:-}" ]; then echo "$VIGIL_NODE_IP"; return; fi
  ip -4 route get 1.1.1.1 2>/dev/null | sed -n 's/.* src \([0-9.]*\).*/\1/p' | head -1
}
