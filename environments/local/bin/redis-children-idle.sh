#!/usr/bin/env bash
# Puts every child a redis-server forks (its AOF rewrite) in SCHED_IDLE, until that server exits:
#   redis-children-idle.sh <redis pid>
# started in the background by redis-lib.sh's start_redis (VIGIL_REDIS_CHILDREN=idle, the default).
#
# Why (docs/adr/0028-aof-rewrites-off-the-decision-path.md): the rewrite child inherits Redis' session,
# which make run weighs at nice -5 (ADR 0025), and serialises the whole dataset for about a second of
# CPU per 100 MB (more with rdbcompression). On a 2-core machine that took a core from the engine, the
# relay and Redis' own main thread for the rewrite's duration: hundreds of deadline misses per rewrite.
# A SCHED_IDLE task runs only on CPU that nothing else wants; within its session it weighs 3 against the
# main thread's 1024, so the session's share goes to the main thread. Redis 7.0 has no setting for its
# children's priority (aof-rewrite-cpulist only pins them), hence a watcher. A rewrite under a machine
# saturated for minutes waits that long; the AOF meanwhile keeps growing in its incr file, as it would.
#
# A poll every 50 ms (a blocking read with a timeout: no process forked per tick), so the first tick of a
# rewrite runs at the child's inherited priority.
set -u
pid=${1:?usage: redis-children-idle.sh <redis pid>}
[[ $pid =~ ^[1-9][0-9]*$ ]] || { echo "redis-children-idle.sh: a pid, was '$pid'" >&2; exit 2; }
[ -r "/proc/$pid/task/$pid/children" ] || { echo "redis-children-idle.sh: no process $pid (or no /proc/PID/task/PID/children)" >&2; exit 1; }
tick=$(mktemp -u "${TMPDIR:-/tmp}/redis-children-idle.XXXXXX")
mkfifo "$tick"
exec {wait_fd}<>"$tick"
rm -f "$tick"
idle=" "
while [ -d "/proc/$pid" ]; do
  kids=()
  # the file has no newline: read answers "end of file" having read the pids
  read -r -a kids < "/proc/$pid/task/$pid/children" 2>/dev/null || true
  for kid in ${kids[@]+"${kids[@]}"}; do
    case "$idle" in *" $kid "*) continue ;; esac
    chrt --idle -p 0 "$kid" 2>/dev/null && idle="$idle$kid "
  done
  # forget children that have gone (pids are reused)
  [ "${#kids[@]}" -gt 0 ] || idle=" "
  read -r -t 0.05 -u "$wait_fd" _ || true
done
