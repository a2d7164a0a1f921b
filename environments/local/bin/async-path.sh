#!/usr/bin/env bash
# async-path.sh NICE COMMAND [ARGS...]: runs COMMAND at the async path's lower CPU priority (relay, Kafka,
# Prometheus; ADR 0019). Used through process-lib.sh's "${ASYNC_PATH[@]}".
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
set -euo pipefail
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
exec nice -n "$nice_value" "$@"
