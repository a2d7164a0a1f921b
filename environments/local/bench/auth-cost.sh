#!/usr/bin/env bash
# Caller authentication cost (ADR 0013, docs/performance.md "Caller authentication"): CPU per decision
# of the packaged engine with bearer JWT off and on, in alternating phases of the same run (off, jwt,
# off, jwt, ...), the same open-loop rate and body pool, a few hundred callers each reusing its token.
# Velocity and the outbox are off, so the ratio is of the engine's HTTP + decision work alone (the
# smallest denominator: JWT's share of a full durable decision is smaller still).
#
#   environments/local/bench/auth-cost.sh   (RATE=2000 DURATION=30s WARMUP=60s WARMUP_PARTS=2 ROUNDS=2 CALLERS=300 CONNS=32 TIMEOUT=5s)
#
# The summary also splits each window's engine CPU by thread group (/proc/<pid>/task): event loops
# (HTTP, the auth check, the decision), GC, the JIT's compiler threads, the rest.
#
# The warm-up runs as WARMUP_PARTS generator runs, so the callers' connections close and new ones
# open before the window as at its start. With one part, JWT's engine spent ~2 s of C2 time in the
# window (21-24 µs per decision, 2026-11-26): an engine with caller authentication skips the data-port
# phase of its own warm-up (WarmUp: its requests would be refused), so Netty's read/write/select paths
# were compiled having seen one set of connections; the first turnover (the measured run's new
# connections) hit class and branch checks compiled in (uncommon traps) and C2 recompiled those big
# inlined methods. The off engine's own warm-up had already gone through connection open and close.
# A one-off after ready, not a cost per request (ADR 0013, "2026-11-26 night").
#
# JFR=1 also records each engine phase with Java Flight Recorder (profile settings) into
# $OUT/<phase>-<round>.jfr: `jfr view hot-methods <file>` shows where the CPU goes (where the JWT's share is).
#
# HEADER=1 adds a third phase per round, "hdr": JWT off but every request still carries its caller's
# Authorization header, which splits JWT's cost into the header's bytes (read and parsed by Netty
# whatever the engine does with them) and the check itself (jwt / hdr).
#
# PROFILE=1 also samples each engine's CPU in the measured window with async-profiler (attached at the
# window's start, stopped at its end): $OUT/<phase>-<round>.collapsed and its summary
# $OUT/<phase>-<round>-profile.txt (profile-summary.py); the agent comes from
# environments/local/bin/async-profiler.sh (fetched on first use), or PROFILER_LIB.
#
# ENGINE_JAVA_OPTS adds JVM options to each engine, e.g. a compilation log per engine process:
#   ENGINE_JAVA_OPTS='-Xlog:jit+compilation=debug,deoptimization=debug:file=/tmp/jit-%p.log'
#
# Needs engine/service/target/quarkus-app (./mvnw -pl engine/service -am package -DskipTests).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
RATE=${RATE:-2000}
DURATION=${DURATION:-30s}
WARMUP=${WARMUP:-60s}
WARMUP_PARTS=${WARMUP_PARTS:-2}
ROUNDS=${ROUNDS:-2}
CALLERS=${CALLERS:-300}
CONNS=${CONNS:-32}
TIMEOUT=${TIMEOUT:-5s}
OUT=${OUT:-$ROOT/.local/bench/auth-cost}
APP=${APP:-$ROOT/engine/service/target/quarkus-app/quarkus-run.jar}
JFR=${JFR:-0}
PROFILE=${PROFILE:-0}
HEADER=${HEADER:-0}
PROFILER_LIB=${PROFILER_LIB:-}
ENGINE_JAVA_OPTS=${ENGINE_JAVA_OPTS:-}
JAVA_HOME=${JAVA_HOME:-$("$ROOT/environments/local/bin/java-home.sh")}
[[ $WARMUP =~ ^[0-9]+s$ ]] || { echo "auth-cost: WARMUP in seconds (60s), not $WARMUP" >&2; exit 2; }
[[ -f $APP ]] || { echo "auth-cost: $APP missing; build it: ./mvnw -B -pl engine/service -am package -DskipTests" >&2; exit 2; }
if [[ $PROFILE == 1 && -z $PROFILER_LIB ]]; then PROFILER_LIB=$("$ROOT/environments/local/bin/async-profiler.sh"); fi
mkdir -p "$OUT"
. "$ROOT/environments/local/bench/auth-tokens.sh"
bench_auth_tokens "$OUT" "$CALLERS"
[[ -f $OUT/pool.txt ]] || node "$ROOT/loadtests/wrk/pool.js" 20000 "$OUT/pool.txt"
(cd "$ROOT/loadtests/gen" && go build -o "$OUT/vigil-load" .)

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
ENGINE=
stop_engine() { if [[ -n $ENGINE ]]; then kill "$ENGINE" 2>/dev/null || true; wait "$ENGINE" 2>/dev/null || true; fi; ENGINE=; }
trap stop_engine EXIT

# Each engine thread's name and CPU ticks (utime + stime), so the summary can say where a difference
# goes: event loops (HTTP, auth, decision), GC, the JIT's compilers, or the rest.
threads() {
  local t
  for t in /proc/"$1"/task/*; do
    printf '%s\t%s\n' "$(cat "$t/comm" 2>/dev/null)" "$(sed 's/.*) //' "$t/stat" 2>/dev/null | awk '{print $12 + $13}')"
  done
}

phase() { # <name> <jwt: true|false> <round>
  local name=$1 jwt=$2 round=$3 port mport jfr=()
  port=$(free_port); mport=$(free_port)
  [[ $JFR == 1 ]] && jfr=("-XX:StartFlightRecording=filename=$OUT/$name-$round.jfr,settings=profile,dumponexit=true")
  local auth=()
  if [[ $jwt == true ]]; then mapfile -t auth < <(bench_jwt_engine_env "$OUT"); fi
  env QUARKUS_HTTP_PORT="$port" QUARKUS_MANAGEMENT_PORT="$mport" \
    VIGIL_RULESETS_DIR="$ROOT/engine/service/src/test/resources/rulesets" \
    VIGIL_VELOCITY_ENABLED=false VIGIL_OUTBOX_ENABLED=false "${auth[@]}" \
    "$JAVA_HOME/bin/java" -XX:+UseParallelGC -Xmx1g "${jfr[@]}" $ENGINE_JAVA_OPTS -jar "$APP" > "$OUT/engine-$name-$round.log" 2>&1 &
  ENGINE=$!
  for _ in $(seq 1 120); do
    curl -fs "http://127.0.0.1:$mport/q/health/ready" > /dev/null && break
    sleep 0.5
  done
  local tokens=()
  [[ $jwt == true || $name == hdr ]] && tokens=(-tokens "$OUT/tokens.txt")
  # The warm-up in WARMUP_PARTS generator runs: each ends by closing its connections and the next opens
  # new ones, as the measured run does, so that this is not first met (and compiled) in the window.
  local part
  for part in $(seq 1 "$WARMUP_PARTS"); do
    "$OUT/vigil-load" -url "http://127.0.0.1:$port/v1/evaluate/auth" -pool "$OUT/pool.txt" -rate "$RATE" \
      -duration "$(( ${WARMUP%s} / WARMUP_PARTS ))s" -conns "$CONNS" -timeout "$TIMEOUT" "${tokens[@]}" > /dev/null
  done
  echo "== $name round $round ($(uptime | sed 's/.*load average/load average/'))"
  threads "$ENGINE" > "$OUT/$name-$round.threads0"
  [[ $PROFILE == 1 ]] && "$JAVA_HOME/bin/jcmd" "$ENGINE" JVMTI.agent_load "$PROFILER_LIB" '"start,event=cpu,interval=500us,threads"' > /dev/null
  "$OUT/vigil-load" -url "http://127.0.0.1:$port/v1/evaluate/auth" -pool "$OUT/pool.txt" -rate "$RATE" -duration "$DURATION" \
    -conns "$CONNS" -timeout "$TIMEOUT" "${tokens[@]}" -watch "engine:$ENGINE" -out "$OUT/$name-$round.json"
  threads "$ENGINE" > "$OUT/$name-$round.threads1"
  if [[ $PROFILE == 1 ]]; then
    "$JAVA_HOME/bin/jcmd" "$ENGINE" JVMTI.agent_load "$PROFILER_LIB" "\"stop,file=$OUT/$name-$round.collapsed,collapsed\"" > /dev/null
    python3 "$ROOT/environments/local/bench/profile-summary.py" "$OUT/$name-$round.collapsed" 40 > "$OUT/$name-$round-profile.txt"
  fi
  stop_engine
}

echo "auth-cost: $RATE/s for $DURATION per phase, $ROUNDS rounds, $CALLERS callers; before: $(uptime)"
for r in $(seq 1 "$ROUNDS"); do
  phase off false "$r"
  [[ $HEADER == 1 ]] && phase hdr false "$r"
  phase jwt true "$r"
done
echo "after: $(uptime)"
python3 - "$OUT" "$ROUNDS" "$HEADER" <<'PY'
import json, sys
out, rounds, header = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
phases = ("off", "hdr", "jwt") if header else ("off", "jwt")
def us(name, r):
    d = json.load(open(f"{out}/{name}-{r}.json"))
    return d["process_cpu_us"]["engine"] / max(d["answered"], 1), d
print("| round | off µs/decision | jwt µs/decision | jwt / off | answered/s off / jwt | non-200 + errors off / jwt |")
print("|---|---:|---:|---:|---|---|")
ratios = []
for r in range(1, rounds + 1):
    off, doff = us("off", r)
    jwt, djwt = us("jwt", r)
    ratios.append(jwt / off)
    bad = lambda d: d['non200'] + d['transport_errors']
    print(f"| {r} | {off:.1f} | {jwt:.1f} | {jwt/off:.3f} | {doff['achieved_rate']:.0f} / {djwt['achieved_rate']:.0f} | {bad(doff)} / {bad(djwt)} |")
print(f"mean jwt/off: {sum(ratios)/len(ratios):.3f}")
if header:
    print()
    print("| round | hdr µs/decision (header sent, JWT off) | hdr / off (the header's bytes) | jwt / hdr (the check) |")
    print("|---|---:|---:|---:|")
    for r in range(1, rounds + 1):
        off, _ = us("off", r); hdr, _ = us("hdr", r); jwt, _ = us("jwt", r)
        print(f"| {r} | {hdr:.1f} | {hdr/off:.3f} | {jwt/hdr:.3f} |")
import os
HZ = os.sysconf("SC_CLK_TCK")
def group(name):
    n = name.lower()
    if "eventloo" in n: return "event loops"
    if n.startswith("gc ") or "vm thread" in n or n.startswith("g1 ") or "parallel" in n: return "GC + VM"
    if "compilerthre" in n or n.startswith("c1 ") or n.startswith("c2 "): return "JIT"
    return "other"
def groups(name, r):
    def read(f):
        out = {}
        for line in open(f):
            comm, _, ticks = line.rstrip("\n").rpartition("\t")
            if ticks:
                out.setdefault(comm, []).append(int(ticks))
        return out
    t0, t1 = read(f"{out}/{name}-{r}.threads0"), read(f"{out}/{name}-{r}.threads1")
    d = json.load(open(f"{out}/{name}-{r}.json"))
    res = {}
    for comm, ticks in t1.items():
        used = sum(ticks) - sum(t0.get(comm, []))  # a thread that ended in between is lost: a rough split
        res[group(comm)] = res.get(group(comm), 0) + used / HZ * 1e6 / max(d["answered"], 1)
    return res
names = ["event loops", "GC + VM", "JIT", "other"]
print()
print("Engine CPU by thread group, µs per decision (from /proc/<pid>/task, same windows):")
print("| phase | round | " + " | ".join(names) + " |")
print("|---|---|" + "---:|" * len(names))
for r in range(1, rounds + 1):
    for name in phases:
        g = groups(name, r)
        print(f"| {name} | {r} | " + " | ".join(f"{g.get(n, 0):.1f}" for n in names) + " |")
PY
