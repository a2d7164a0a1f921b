#!/usr/bin/env bash
# Velocity outage and recovery (docs/performance.md, "Redis outage"): the data plane as `make bench-ladder`
# starts it, an open-loop 500 AUTH/s (vigil-load) in 1-second slices, redis-server SIGKILLed after
# BENCH_OUTAGE_BEFORE slices and started again BENCH_OUTAGE_DOWN slices later. Per slice: NORMAL share,
# p99 and max latency, codes. Then: how long after Redis answered again the answers were NORMAL
# (first slice with >= 99 % NORMAL), and the slowest answer during the outage (the deadline is 5 ms).
# Writes loadtests/results/<stamp>-outage/slices.jsonl and summary.md. Stops what it started.
#   BENCH_OUTAGE_PART=redis   (default) redis-server SIGKILLed, started again (AOF reload)
#   BENCH_OUTAGE_PART=kafka   the Kafka broker stopped and started again (the relay waits; answers must not care)
#   BENCH_OUTAGE_PART=relay   the relay stopped and started again (a JVM starting beside the engine)
#   BENCH_OUTAGE_PART=start   no fault: the engine's first minute from the moment it reports ready, at
#                             1,000/s and without a warm-up by the bench (issue 22: ready means warm)
# For every part the summary gives the NORMAL share over the whole run (issue 22: >= 99.99 % through a
# Kafka or relay restart at 500/s) and the slowest answer while the part was down, Redis' dataset when
# the part went down, and what ran beside the pipeline. BENCH_REDIS_DATA=fresh (default) | run, and
# BENCH_REDIS_CONFIG (Redis settings on top of redis.conf, e.g. "zset-max-listpack-entries 16"): bench-lib.sh.
# Per slice also where the time went (bench/path-waits.py, ADR 0025): run-queue waits of Redis and of the
# engine's busiest event loop, Redis' LATENCY events of 1 ms or more, delayed AOF writes, expired keys, the
# engine's JIT compilations and time at safepoints.
set -euo pipefail
cd "$(dirname "$0")/../../.."
JAVA_HOME=${JAVA_HOME:-$(environments/local/bin/java-home.sh)}
export JAVA_HOME
BIN=environments/local/bin
PART=${BENCH_OUTAGE_PART:-redis}
case "$PART" in redis|kafka|relay|start) ;; *) echo "BENCH_OUTAGE_PART must be redis, kafka, relay or start, was '$PART'" >&2; exit 2 ;; esac
if [ "$PART" = start ]; then
  # every slice is "after": the fault is the engine's own start
  RATE=${BENCH_OUTAGE_RATE:-1000}; BEFORE=0; DOWN=0; AFTER=${BENCH_OUTAGE_AFTER:-60}
else
  RATE=${BENCH_OUTAGE_RATE:-500}
  BEFORE=${BENCH_OUTAGE_BEFORE:-10}
  DOWN=${BENCH_OUTAGE_DOWN:-10}
  AFTER=${BENCH_OUTAGE_AFTER:-15}
fi
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
OUT=loadtests/results/$STAMP-outage${PART/redis/}
mkdir -p "$OUT"
T0=$SECONDS
log() { printf '==> [outage %3ss] %s\n' "$((SECONDS - T0))" "$*"; }
# The parts make run starts, as make run knows them (a glob over *-lib.sh also sourced the cluster's
# and the real node's libraries, which need the cluster's settings).
. "$BIN/bench-lib.sh"
. "$BIN/platform-lib.sh"
listener_pid() { bench_listener_pid "$1"; }
for port in 8081 16379; do
  if [ -n "$(listener_pid $port)" ]; then
    echo "ERROR: something already listens on :$port; stop it first (make stop): this run kills Redis" >&2
    exit 1
  fi
done
GEN_SRC=loadtests/gen
GEN_KEY=$(cat "$GEN_SRC"/go.mod "$GEN_SRC"/*.go | sha256sum | cut -c1-10)
GEN="${VIGIL_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/vigil}/bin/vigil-load-$GEN_KEY/vigil-load"
if [ ! -x "$GEN" ]; then
  log "building the generator"
  mkdir -p "$(dirname "$GEN")"
  (cd "$GEN_SRC" && GOFLAGS=-buildvcs=false go build -trimpath -ldflags "-s -w" -o "$GEN.tmp.$$" . && mv "$GEN.tmp.$$" "$GEN")
fi
cleanup() { for c in relay engine kafka redis; do "stop_$c" >/dev/null 2>&1 || true; done; }
trap cleanup EXIT
"$BIN/ensure-deps.sh" >/dev/null
start_redis | sed 's/^/    /'
start_kafka | sed 's/^/    /'
[ -f engine/service/target/quarkus-app/quarkus-run.jar ] || ./mvnw -B -q -pl engine/service -am -DskipTests package
[ -f engine/relay/target/quarkus-app/quarkus-run.jar ] || ./mvnw -B -q -pl engine/relay -am -DskipTests package
export VIGIL_OUTBOX_ENABLED=true
POOL="$OUT/.pool.txt"
node loadtests/wrk/pool.js 20000 "$POOL" auth >/dev/null
# For "start" the relay runs before the engine starts, as it does when a pod of a running platform is
# replaced, and the first slice begins as soon as the engine reports ready.
[ "$PART" = start ] && start_relay | sed 's/^/    /'
start_engine | sed 's/^/    /'
for _ in $(seq 1 120); do curl -fsS -o /dev/null http://127.0.0.1:9081/q/health/ready 2>/dev/null && break; sleep 0.5; done
[ "$PART" = start ] && log "engine ready: the first slice starts now" || start_relay | sed 's/^/    /'
if [ "$PART" != start ]; then
  log "warm-up: $RATE/s for 15 s"
  "$GEN" -pool "$POOL" -rate "$RATE" -duration 15s -conns 16 -tag "$STAMP-warm" >/dev/null
fi
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
for pair in engine:8081 redis:16379 kafka:19092 relay:9091; do
  p=$(listener_pid "${pair#*:}"); [ -n "$p" ] && echo "${pair%%:*} $p"
done > "$OUT/.pids"
BESIDE=$(running_beside "$OUT/.pids")
DATASET="$(redis-cli -p 16379 DBSIZE) keys, $(redis-cli -p 16379 INFO memory | tr -d '\r' | sed -n 's/^used_memory_human://p') used, stream $(redis-cli -p 16379 XLEN vigil:decisions) entries; Redis data: $REDIS_DATA; Redis settings: $(bench_redis_config)"
log "Redis: $DATASET"
log "beside the pipeline: $BESIDE"
# The engine's velocity deadline misses so far, "engine_late store_slow" (docs/velocity.md, Metrics).
missed() {
  curl -fsS --max-time 2 http://127.0.0.1:9081/q/metrics 2>/dev/null | awk '
    /^vigil_velocity_deadline_missed_total\{.*cause="engine_late"/ {e += $NF}
    /^vigil_velocity_deadline_missed_total\{.*cause="store_slow"/ {s += $NF}
    END {printf "%d %d\n", e, s}' || echo "0 0"
}
# Where the slice's time went (environments/local/bench/path-waits.py): run-queue waits of Redis and of
# the engine's event loops, Redis' LATENCY events (it sets latency-monitor-threshold to 1 ms). The pids are
# read each time: the redis part restarts Redis.
WAITS=environments/local/bench/path-waits.py
waits() { python3 "$WAITS" snap 16379 "$(listener_pid 16379)" "$(listener_pid 8081)" 2>/dev/null || echo '{}'; }
total=$((BEFORE + DOWN + AFTER))
: > "$OUT/slices.jsonl"
for i in $(seq 1 "$total"); do
  if [ "$i" = $((BEFORE + 1)) ]; then
    case "$PART" in
      redis) pid=$(listener_pid 16379); log "SIGKILL redis-server (pid $pid)"; kill -9 "$pid" ;;
      # In the background: the load goes on while the part shuts down, as in production.
      kafka) log "stopping kafka"; stop_kafka >/dev/null 2>&1 & ;;
      relay) log "stopping the relay"; stop_relay >/dev/null 2>&1 & ;;
    esac
    echo '{"event":"down"}' >> "$OUT/slices.jsonl"
  fi
  if [ "$i" = $((BEFORE + DOWN + 1)) ]; then
    wait || true
    case "$PART" in
      redis) log "starting redis-server again"; t_start=$(date +%s%N); start_redis >/dev/null
        for _ in $(seq 1 100); do redis-cli -p 16379 ping >/dev/null 2>&1 && break; sleep 0.05; done
        # the AOF reload: Redis answers LOADING, not PONG, until its data is back
        log "redis-server answered PING $(( ($(date +%s%N) - t_start) / 1000000 )) ms after its start (data directory $(du -sh "$REDIS_DIR" 2>/dev/null | cut -f1))" ;;
      kafka) log "starting kafka again"; start_kafka >/dev/null 2>&1 & ;;
      relay) log "starting the relay again"; start_relay >/dev/null 2>&1 & ;;
    esac
    echo '{"event":"up"}' >> "$OUT/slices.jsonl"
  fi
  m0=$(missed)
  w0=$(waits)
  "$GEN" -pool "$POOL" -rate "$RATE" -duration 1s -conns 16 -retry-rate 0 -tag "$STAMP-$i" -out "$OUT/slice.json" >/dev/null
  w1=$(waits)
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); a=[int(x) for x in sys.argv[3].split()]; b=[int(x) for x in sys.argv[4].split()]
print(json.dumps({"slice":int(sys.argv[2]),"answered":d["answered"],"modes":d["modes"],"codes":d["codes"],"latency_ms":d["latency_ms"],
                  "missed":{"engine_late":b[0]-a[0],"store_slow":b[1]-a[1]},"waits":json.loads(sys.argv[5])}))' \
    "$OUT/slice.json" "$i" "$m0" "$(missed)" "$(python3 "$WAITS" delta "$w0" "$w1" 2>/dev/null || echo '{}')" >> "$OUT/slices.jsonl"
done
wait || true
rm -f "$POOL" "$OUT/slice.json" "$OUT/.pids"
python3 - "$OUT" "$RATE" "$PART" "$LOAD_BEFORE" "$(cut -d' ' -f1-3 /proc/loadavg)" "$DATASET" "$BESIDE" <<'PY'
import json, sys
out, rate, part, load_before, load_after, dataset, beside = sys.argv[1:]
rows, phase, events = [], "before", {}
for line in open(out + "/slices.jsonl"):
    d = json.loads(line)
    if "event" in d:
        phase = {"down": "down", "up": "after"}[d["event"]]
        continue
    d["phase"] = phase
    rows.append(d)
def normal(d):
    n = sum(d["modes"].values()) or 1
    return 100.0 * d["modes"].get("NORMAL", 0) / n
what = {"redis": "Redis SIGKILLed and restarted", "kafka": "Kafka stopped and restarted",
        "relay": "the relay stopped and restarted", "start": "The engine's first minute after it reported ready"}[part]
lines = [f"# {what} under {rate} AUTH/s (1-second slices)", "",
         f"Load average before {load_before}, after {load_after}. Redis before the fault: {dataset}. "
         f"Beside the pipeline: {beside}.", "",
         "Deadline misses: velocity waits the deadline ended, by cause (engine late: the engine's timer ran "
         "more than 1 ms late, a busy machine; Redis slow: on time, no answer).", "",
         "Where the time went (environments/local/bench/path-waits.py): run-queue wait, ms in the slice that "
         "Redis' main thread and the busiest engine event loop were runnable and not running (preempted or "
         "not yet scheduled: a machine, not a Redis, problem); Redis' LATENCY events of 1 ms or more "
         "(event: its longest, ms; wall time, so a preempted command shows too); AOF writes delayed behind a "
         "slow fsync; keys expired; the engine JVM's JIT compilations and their time (summed over its compiler "
         "threads, which compete with the event loops for the cores) and its time at safepoints.", "",
         "| slice | phase | answered | NORMAL | p99 ms | max ms | codes | deadline misses: engine late / Redis slow "
         "| run-queue wait ms: Redis / event loop | Redis events | AOF delayed / expired | engine JIT: compiles / ms | safepoints ms |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
def waits(d):
    w = d.get("waits", {})
    queue = f"{w.get('redis_wait_ms', '-')} / {w.get('loop_wait_ms_max', '-')}"
    events = ", ".join(f"{k} {v}" for k, v in sorted(w.get("redis_events", {}).items()))
    return (f"{queue} | {events} | {w.get('aof_delayed_fsync', '-')} / {w.get('expired_keys', '-')} | "
            f"{w.get('jit_compiles', '-')} / {w.get('jit_ms', '-')} | {w.get('safepoint_ms', '-')}")
for d in rows:
    lat = d["latency_ms"]
    lines.append(f"| {d['slice']} | {d['phase']} | {d['answered']} | {normal(d):.1f} % | {lat.get('p99', 0):.2f} | "
                 f"{lat.get('max', 0):.2f} | {', '.join(f'{k} {v}' for k, v in sorted(d['codes'].items()))} | "
                 f"{d.get('missed', {}).get('engine_late', 0)} / {d.get('missed', {}).get('store_slow', 0)} | {waits(d)} |")
after = [d for d in rows if d["phase"] == "after"]
back = next((i for i, d in enumerate(after) if normal(d) >= 99.0), None)
down_max = max((d["latency_ms"].get("max", 0) for d in rows if d["phase"] == "down"), default=0)
answered = sum(sum(d["modes"].values()) for d in rows)
late = sum(d.get("missed", {}).get("engine_late", 0) for d in rows)
slow = sum(d.get("missed", {}).get("store_slow", 0) for d in rows)
# slices with a miss against those without: what the misses coincided with
def mean_wait(sel, key):
    v = [d["waits"][key] for d in sel if key in d.get("waits", {})]
    return f"{sum(v) / len(v):.1f}" if v else "-"
with_miss = [d for d in rows if sum(d.get("missed", {}).values()) > 0]
without = [d for d in rows if sum(d.get("missed", {}).values()) == 0]
wait_line = (f"- run-queue wait per slice, mean ms, slices with a deadline miss ({len(with_miss)}) / without ({len(without)}): "
             f"Redis {mean_wait(with_miss, 'redis_wait_ms')} / {mean_wait(without, 'redis_wait_ms')}, busiest event loop "
             f"{mean_wait(with_miss, 'loop_wait_ms_max')} / {mean_wait(without, 'loop_wait_ms_max')}")
normal_all = 100.0 * sum(d["modes"].get("NORMAL", 0) for d in rows) / (answered or 1)
if part == "start":
    under = [d["slice"] for d in rows if normal(d) < 99.9]
    lines += ["", f"- NORMAL over the first {len(rows)} s after ready: {normal_all:.3f} % of {answered} answers "
                  f"(target >= 99.9 % from the first second)",
              f"- slices below 99.9 % NORMAL: {', '.join(map(str, under)) or 'none'}",
              f"- worst slice: {min((normal(d) for d in rows), default=0):.1f} % NORMAL; slowest answer "
              f"{max((d['latency_ms'].get('max', 0) for d in rows), default=0):.2f} ms",
              f"- velocity deadline misses over the run: {late} with the engine late, {slow} with Redis slow", wait_line]
    open(out + "/summary.md", "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))
    sys.exit(0)
lines += ["", f"- NORMAL over the whole run: {normal_all:.3f} % of {answered} answers",
          f"- back to >= 99 % NORMAL: slice {back + 1 if back is not None else 'never'} after {part} was started again "
          f"(within {back + 1 if back is not None else '?'} s)",
          f"- slowest answer while {part} was down: {down_max:.2f} ms",
          f"- velocity deadline misses over the run: {late} with the engine late, {slow} with Redis slow", wait_line]
open(out + "/summary.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
