#!/usr/bin/env bash
# async-path.sh NICE COMMAND [ARGS...]: runs COMMAND at the async path's lower CPU priority (relay, Kafka,
# Prometheus; ADR 0019). Used through process-lib.sh's "${ASYNC_PATH[@]}".
# async-path.sh idle PID: moves PID (a part being stopped) into the idle CPU group, see below.
# async-path.sh background PID: the same whether or not the engine serves, for work that is never on the
# decision path (Redis' AOF rewrite child: redis-children-idle.sh, ADR 0028).
#
# Plain `nice` is not enough here. With autogroup scheduling (kernel.sched_autogroup_enabled=1, the
# default of this machine's kernel and of most distributions) the scheduler first shares the CPU between
# sessions, and a thread's nice value only weighs it against threads of its own session (man 7 sched,
# "The autogroup feature"). Every part of `make run` is started in its own session (setsid), so a niced
# Kafka broker still got the same share as the engine. The session's own nice value, written to
# /proc/self/autogroup, is what weighs a session against the others. A command run in the foreground
# (Kafka's topic and storage tools, JVMs too) first gets a session of its own (setsid, same pid, no fork
# when not a group leader), so it is lowered as well and its caller's session (make run's shell, a
# bench's load generator) is not: the topic tool starting beside a bench once cost a second of NORMAL
# answers. Such a tool no longer gets the terminal's Ctrl-C; each one is bounded by its own timeout.
#
# A weight is not enough while a JVM starts or stops (ADR 0032). A nice-10 session still runs its
# slice when the engine's event loop or Redis wakes up, and a JVM starting (class loading, C1, GC) or
# a broker shutting down (flushes, controlled shutdown) has runnable threads on both cores for
# seconds: Redis and the event loops then queued 50-80 ms per second and velocity calls missed the
# deadline. So a part started while the engine serves (its pid file, VIGIL_DECISION_PATH_PIDFILE,
# names a live process) runs its first VIGIL_ASYNC_START_IDLE seconds (default 30; 0: off) in a CPU
# cgroup marked idle (cpu.idle=1, Linux >= 5.15): any other thread that wakes up takes the core at
# once, and the part only gets the CPU nobody else wants. After that it goes back to its own cgroup
# and the session's weight, so a busy machine cannot starve it for good; with no engine serving
# (make run's first start: Kafka and the relay start before the engine) nothing needs the cores more,
# and the start is not slowed. `async-path.sh idle PID` does the same for a stop (no way back: it is
# ending). Where there is no such cgroup (no cpu controller mounted, not root), the part runs as before.
set -euo pipefail
IDLE_GROUP=vigil-async-start
START_IDLE="${VIGIL_ASYNC_START_IDLE:-30}"
ROOT="$(cd "$(dirname "$0")/../../.." && pwd)"
DECISION_PATH_PIDFILE="${VIGIL_DECISION_PATH_PIDFILE:-$ROOT/.local/run/engine.pid}"

decision_path_serving() {
  local pid
  pid=$(cat "$DECISION_PATH_PIDFILE" 2>/dev/null) && [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null
}

# The cpu hierarchy's root and this process's cgroup in it (cgroup v1 "cpu" controller, or v2 with cpu
# delegated below the root); fails when there is none.
cpu_cgroup() {
  local line
  if [ -f /sys/fs/cgroup/cpu/cpu.idle ]; then
    line=$(grep -E '^[0-9]+:([^:]*,)?cpu(,[^:]*)?:' /proc/self/cgroup) || return 1
    CPU_ROOT=/sys/fs/cgroup/cpu
  elif [ -f /sys/fs/cgroup/cgroup.subtree_control ] && grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control; then
    line=$(grep -E '^0::' /proc/self/cgroup) || return 1
    CPU_ROOT=/sys/fs/cgroup
  else
    return 1
  fi
  CPU_HOME="$CPU_ROOT${line#*:*:}"
  [ -w "$CPU_ROOT" ] && [ -d "$CPU_HOME" ]
}

# Moves process $1 (every thread) into the idle group; fails quietly where that is not possible.
enter_idle() {
  local group="$CPU_ROOT/$IDLE_GROUP"
  mkdir -p "$group" 2>/dev/null && echo 1 > "$group/cpu.idle" 2>/dev/null \
    && echo "$1" > "$group/cgroup.procs" 2>/dev/null
}

if [ "${1:-}" = idle ]; then
  case "${2:-}" in ''|*[!0-9]*) echo "async-path.sh: idle needs a process id, was '${2:-}'" >&2; exit 2 ;; esac
  [ "$START_IDLE" != 0 ] && decision_path_serving && cpu_cgroup && enter_idle "$2" || true
  exit 0
fi
if [ "${1:-}" = background ]; then
  case "${2:-}" in ''|*[!0-9]*) echo "async-path.sh: background needs a process id, was '${2:-}'" >&2; exit 2 ;; esac
  cpu_cgroup && enter_idle "$2" || true
  exit 0
fi

nice_value="$1"
shift
stat=$(cat /proc/$$/stat)
read -r _state _ppid _pgrp session _rest <<< "${stat##*) }"
if [ "$session" != "$$" ]; then
  exec setsid -w "$0" "$nice_value" "$@"
fi
if [ -w /proc/self/autogroup ]; then
  echo "$nice_value" > /proc/self/autogroup 2>/dev/null || true
fi
if [ "$START_IDLE" != 0 ] && decision_path_serving && cpu_cgroup && enter_idle $$; then
  # Back to its own cgroup (and the session's weight) after the start window, unless the process
  # ended and its pid was reused meanwhile. Detached, and without the command's output open, so a
  # caller reading that output to its end does not wait for it.
  ( ( sleep "$START_IDLE"
      grep -q "/$IDLE_GROUP\$" "/proc/$$/cgroup" 2>/dev/null && echo $$ > "$CPU_HOME/cgroup.procs"
    ) </dev/null >/dev/null 2>&1 & )
fi
exec nice -n "$nice_value" "$@"
