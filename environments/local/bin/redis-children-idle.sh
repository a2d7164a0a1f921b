#!/usr/bin/env bash
# Puts every child a redis-server forks (its AOF rewrite) in SCHED_IDLE and in the idle CPU cgroup
# (async-path.sh background), until that server exits:
#   redis-children-idle.sh <redis pid>
# started in the background by redis-lib.sh's start_redis (VIGIL_REDIS_CHILDREN=idle, the default).
#
# Why (docs/adr/0028-aof-rewrites-off-the-decision-path.md): the rewrite child inherits Redis' session,
# which make run weighs at nice -5 (ADR 0025), and serialises the whole dataset for about a second of
# CPU per 100 MB (more with rdbcompression). On a 2-core machine that took a core from the engine, the
# relay and Redis' own main thread for the rewrite's duration: hundreds of deadline misses per rewrite.
# SCHED_IDLE ranks the child below Redis' main thread within their session (weight 3 against 1024), but
# with autogroups a SCHED_IDLE task does not yield to another session's task that wakes (ADR 0032's
# finding: the idle check is made between the competing entities, the sessions); a CPU cgroup marked
# idle (cpu.idle=1, async-path.sh's group) does, so the child goes there too where one can be made.
# Redis 7.0 has no setting for its children's priority (aof-rewrite-cpulist only pins them), hence a watcher. A rewrite under a machine
# saturated for minutes waits that long; the AOF meanwhile keeps growing in its incr file, as it would.
#
# A poll every 50 ms (a blocking read with a timeout: no process forked per tick), so the first tick of a
# rewrite runs at the child's inherited priority.
set -u
pid=${1:?usage: redis-children-idle.sh <redis pid>}
[[ $pid =~ ^[1-9][0-9]*$ ]] || { echo "redis-children-idle.sh: a pid, was '$pid'" >&2; exit 2; }
[ -r "/proc/$pid/task/$pid/children" ] || { echo "redis-children-idle.sh: no process $pid (or no /proc/PID/task/PID/children)" >&2; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
# The idle group only for a child's first VIGIL_REDIS_CHILD_IDLE_SECONDS (default 30), then back to Redis'
# own CPU cgroup (SCHED_IDLE stays): on a machine saturated for long a child in an idle group gets no CPU
# at all (a 100 MB rewrite took 81-143 s at load 18-25, against 1.2-2.0 s), and its copy-on-write pages
# pile up meanwhile. On a quiet machine at 2,000/s a rewrite ends well within the window.
window=${VIGIL_REDIS_CHILD_IDLE_SECONDS:-30}
[[ $window =~ ^[0-9]+$ ]] || { echo "redis-children-idle.sh: VIGIL_REDIS_CHILD_IDLE_SECONDS must be a number of seconds, was '$window'" >&2; exit 2; }
home=""
if line=$(grep -E '^[0-9]+:([^:]*,)?cpu(,[^:]*)?:' "/proc/$pid/cgroup"); then home=/sys/fs/cgroup/cpu${line#*:*:}
elif line=$(grep '^0::' "/proc/$pid/cgroup"); then home=/sys/fs/cgroup${line#0::}
fi
tick=$(mktemp -u "${TMPDIR:-/tmp}/redis-children-idle.XXXXXX")
mkfifo "$tick"
exec {wait_fd}<>"$tick"
rm -f "$tick"
declare -A since=() # child pid -> SECONDS when it was made idle; -1 once moved back
while [ -d "/proc/$pid" ]; do
  kids=()
  # the file has no newline: read answers "end of file" having read the pids
  read -r -a kids < "/proc/$pid/task/$pid/children" 2>/dev/null || true
  for kid in ${kids[@]+"${kids[@]}"}; do
    if [ -z "${since[$kid]:-}" ]; then
      chrt --idle -p 0 "$kid" 2>/dev/null || true
      [ "$window" = 0 ] || "$here/async-path.sh" background "$kid" 2>/dev/null || true
      since[$kid]=$SECONDS
    elif [ "${since[$kid]}" -ge 0 ] && [ $((SECONDS - since[$kid])) -ge "$window" ]; then
      [ -z "$home" ] || echo "$kid" > "$home/cgroup.procs" 2>/dev/null || true
      since[$kid]=-1
    fi
  done
  # forget children that have gone (pids are reused)
  [ "${#kids[@]}" -gt 0 ] || since=()
  read -r -t 0.05 -u "$wait_fd" _ || true
done
