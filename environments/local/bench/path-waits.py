# Where a slice's time went on the decision path, for environments/local/bin/bench-outage.sh (issue 22:
# deadline misses at low load). Counters read before and after each 1-second slice; the difference names
# what a miss waited for, on any machine (quiet or not):
#   - run-queue wait (/proc/<pid>/task/<tid>/schedstat, 2nd field: ns runnable but not running) of Redis'
#     main thread and of the engine's event loops: a process that was ready to work and not scheduled;
#   - Redis' involuntary context switches (preempted while working);
#   - Redis' LATENCY monitor events (latency-monitor-threshold, set here to 1 ms when it is off): work
#     inside Redis that took long (aof-write, aof-fsync-always, expire-cycle, fork, command, fast-command...);
#     LATENCY RESET after each read, so an event is counted in the slice it happened in;
#   - INFO: aof_delayed_fsync (a write postponed behind a slow fsync), expired_keys, total_forks;
#   - the engine JVM's own counters (its hsperfdata file, read without touching the JVM): JIT compilations
#     and their time (compiler threads compete with the event loops for the cores), time at safepoints
#     (every thread stopped: collections, deoptimisations).
# LATENCY measures wall time: a command preempted for 4 ms shows as a 4 ms "fast-command" while
# Redis did no work; read it beside the run-queue wait of the same slice.
#   python3 path-waits.py snap REDIS_PORT REDIS_PID ENGINE_PID   one JSON line of counters (pids may be "")
#   python3 path-waits.py delta BEFORE_JSON AFTER_JSON           one JSON line: the slice's differences
# Raw RESP, no client library (as redis-stats.py). Never fails the bench: what cannot be read is absent.
import json, os, socket, struct, sys


def redis_call(port, *args):
    s = socket.create_connection(("127.0.0.1", port), timeout=2)
    f = s.makefile("rb")
    try:
        s.sendall(b"".join([b"*%d\r\n" % len(args)] + [b"$%d\r\n%s\r\n" % (len(a), a) for a in (str(x).encode() for x in args)]))
        return _read(f)
    finally:
        s.close()


def _read(f):
    line = f.readline().rstrip(b"\r\n")
    kind, rest = line[:1], line[1:]
    if kind == b"+":
        return rest.decode()
    if kind == b"-":
        raise RuntimeError(rest.decode())
    if kind == b":":
        return int(rest)
    if kind == b"$":
        n = int(rest)
        return None if n < 0 else f.read(n + 2)[:-2].decode("utf-8", "replace")
    if kind == b"*":
        n = int(rest)
        return None if n < 0 else [_read(f) for _ in range(n)]
    raise ValueError("unexpected reply %r" % line)


def schedstat(pid, tid):
    """(run ns, run-queue wait ns) of one thread."""
    with open("/proc/%s/task/%s/schedstat" % (pid, tid)) as f:
        run, wait = f.read().split()[:2]
    return int(run), int(wait)


def involuntary(pid):
    with open("/proc/%s/status" % pid) as f:
        for line in f:
            if line.startswith("nonvoluntary_ctxt_switches:"):
                return int(line.split()[1])
    return 0


def event_loops(pid):
    """{tid: (run ns, wait ns)} of the engine's Vert.x event-loop threads."""
    loops = {}
    for tid in os.listdir("/proc/%s/task" % pid):
        try:
            with open("/proc/%s/task/%s/comm" % (pid, tid)) as f:
                name = f.read().strip()
            if name.startswith("vert.x-eventloo"):  # comm keeps 15 characters
                loops[tid] = schedstat(pid, tid)
        except OSError:
            pass  # the thread ended
    return loops


# hsperfdata counters the bench reads, and the names it gives them
JVM_COUNTERS = {"sun.ci.totalCompiles": "jit_compiles", "java.ci.totalTime": "jit_ticks",
                "sun.rt.safepointTime": "safepoint_ticks", "sun.os.hrt.frequency": "ticks_per_s"}


def jvm_counters(pid):
    """JVM_COUNTERS of a HotSpot JVM, from /tmp/hsperfdata_<user>/<pid> (the JVM's perf data; absent with -XX:-UsePerfData)."""
    paths = [os.path.join("/tmp", d, str(pid)) for d in os.listdir("/tmp") if d.startswith("hsperfdata_")]
    path = next((p for p in paths if os.path.exists(p)), None)
    if path is None:
        return {}
    with open(path, "rb") as f:
        b = f.read()
    if struct.unpack(">I", b[:4])[0] != 0xCAFEC0C0:
        return {}
    order = "<" if b[4] == 1 else ">"
    offset, entries = struct.unpack(order + "ii", b[24:32])
    out = {}
    for _ in range(entries):
        length, name_at, vector, kind, _flags, _units, _variability, data_at = struct.unpack(order + "iiibbbbi", b[offset:offset + 20])
        name = b[offset + name_at:b.index(b"\0", offset + name_at)].decode()
        if name in JVM_COUNTERS and kind == ord("J") and vector == 0:
            out[JVM_COUNTERS[name]] = struct.unpack(order + "q", b[offset + data_at:offset + data_at + 8])[0]
        offset += length
    return out


def info_fields(port, section, names):
    out = {}
    for line in redis_call(port, "INFO", section).splitlines():
        key, _, value = line.partition(":")
        if key in names:
            out[key] = int(value)
    return out


def snap(port, redis_pid, engine_pid):
    d = {}
    if redis_pid:
        try:
            d["redis_pid"] = redis_pid
            d["redis_run"], d["redis_wait"] = schedstat(redis_pid, redis_pid)
            d["redis_involuntary"] = involuntary(redis_pid)
        except OSError:
            pass
    if engine_pid:
        try:
            d["loops"] = {t: list(v) for t, v in event_loops(engine_pid).items()}
            d["engine_pid"] = engine_pid
            d["jvm"] = jvm_counters(engine_pid)
        except (OSError, ValueError, struct.error):
            pass
    try:
        if redis_call(port, "CONFIG", "GET", "latency-monitor-threshold")[1] == "0":
            redis_call(port, "CONFIG", "SET", "latency-monitor-threshold", "1")
        # LATEST: [event, time of the latest, latest ms, all-time max ms]; after RESET, this slice's only
        d["latency"] = {e[0]: int(e[3]) for e in redis_call(port, "LATENCY", "LATEST") or []}
        redis_call(port, "LATENCY", "RESET")
        d.update(info_fields(port, "persistence", {"aof_delayed_fsync"}))
        d.update(info_fields(port, "stats", {"expired_keys", "total_forks"}))
    except (OSError, RuntimeError, ValueError, IndexError, TypeError):
        pass  # Redis down (the redis part's outage): nothing from it this time
    return d


def delta(a, b):
    out = {}
    same_redis = a.get("redis_pid") and a.get("redis_pid") == b.get("redis_pid")
    if same_redis and "redis_wait" in a and "redis_wait" in b:
        out["redis_wait_ms"] = round((b["redis_wait"] - a["redis_wait"]) / 1e6, 1)
        out["redis_run_ms"] = round((b["redis_run"] - a["redis_run"]) / 1e6, 1)
        out["redis_involuntary"] = b["redis_involuntary"] - a["redis_involuntary"]
    loops_a, loops_b = a.get("loops", {}), b.get("loops", {})
    waits = [(loops_b[t][1] - loops_a[t][1]) / 1e6 for t in loops_b if t in loops_a]
    if waits:
        out["loop_wait_ms_max"] = round(max(waits), 1)
    jvm_a, jvm_b = a.get("jvm", {}), b.get("jvm", {})
    if a.get("engine_pid") == b.get("engine_pid") and "jit_compiles" in jvm_a and "jit_compiles" in jvm_b:
        per_ms = jvm_b.get("ticks_per_s", 1e9) / 1000.0
        out["jit_compiles"] = jvm_b["jit_compiles"] - jvm_a["jit_compiles"]
        out["jit_ms"] = round((jvm_b["jit_ticks"] - jvm_a["jit_ticks"]) / per_ms, 1)
        out["safepoint_ms"] = round((jvm_b["safepoint_ticks"] - jvm_a["safepoint_ticks"]) / per_ms, 1)
    # the events in b happened during the slice (a's read reset them)
    out["redis_events"] = b.get("latency", {})
    for key in ("aof_delayed_fsync", "expired_keys", "total_forks"):
        if same_redis and key in a and key in b:
            out[key] = b[key] - a[key]
    return out


if __name__ == "__main__":
    if sys.argv[1] == "snap":
        print(json.dumps(snap(int(sys.argv[2]), sys.argv[3], sys.argv[4])))
    elif sys.argv[1] == "delta":
        print(json.dumps(delta(json.loads(sys.argv[2] or "{}"), json.loads(sys.argv[3] or "{}"))))
    else:
        sys.exit("usage: path-waits.py snap PORT REDIS_PID ENGINE_PID | delta BEFORE AFTER")
