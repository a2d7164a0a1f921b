#!/usr/bin/env bash
# The rate ladder (docs/performance.md, "The rate ladder"): the data plane (Redis, Kafka, the engine
# with durability on, the relay) started with the local environment's functions as `make run` does,
# then an open-loop constant-rate generator (loadtests/gen, vigil-load: one epoll loop, tens of µs of CPU per request)
# offers 1k, 2k, 4k, 6k, 8k, 10k AUTH/s, one step at a time. Per step: achieved rate, p50/p99/p99.9,
# NORMAL share and non-NORMAL answers by engine_error_code, CPU µs per decision of the engine, Redis,
# relay, Kafka and the generator (/proc/<pid>/stat), Redis usec_per_call by command (CONFIG RESETSTAT
# before each step), events the relay published to Kafka. Writes loadtests/results/<stamp>-ladder-<profile>/:
# summary.json, summary.md, index.html (latency and NORMAL share against offered rate), step-<rate>.json.
#
#   environments/local/bin/bench-ladder.sh                      # full: 20 s per step, 30 s warm-up (~3 min)
#   BENCH_PROFILE=quick environments/local/bin/bench-ladder.sh  # 6 s per step, 10 s warm-up (~1 min)
#   BENCH_LADDER_KIND=monitoring ...   POST /v1/evaluate/monitoring (CARD_MONITORING, all matching rules)
#                                      with the caller's decision in each body, instead of AUTH
# Settings: BENCH_LADDER_STEPS (1000,2000,4000,6000,8000,10000), BENCH_LADDER_STEP, BENCH_LADDER_GAP (settle
# after each step, counted in the CPU window), BENCH_LADDER_WARM, BENCH_LADDER_CONNS (128), BENCH_POOL (bodies,
# 100000), BENCH_BUILD=0 (run the engine jar as built), BENCH_REUSE_ENGINE=1 (measure an engine already
# listening on :8081 instead of refusing), VIGIL_ENGINE_JAVA_OPTS, BENCH_REDIS_DATA (below),
# BENCH_REDIS_CONFIG="zset-max-listpack-entries 16" (Redis settings on top of redis.conf, ';' between
# them; for a Redis this script starts; read back into the report's header: bench-lib.sh),
# BENCH_LADDER_REWRITE_AT=10 (one BGREWRITEAOF forced 10 s into every step, so a setting that changes a
# rewrite's cost on the decision path compares: docs/adr/0028-aof-rewrites-off-the-decision-path.md);
# VIGIL_REDIS_CHILDREN=normal leaves that rewrite's child at Redis' priority (default idle: redis-lib.sh).
# What this script started is stopped at the end; Redis, Kafka or a relay already running are used and left.
# BENCH_LADDER_AUTH=off,jwt: the same ladder once per mode, in that order (off,jwt,off,jwt repeats them), on
# the same Redis, Kafka and relay, the engine restarted for each: off = no caller authentication; jwt = bearer
# JWT on the data port (a mounted JWKS file, issuer, audience, scope vigil.evaluate: ADR 0013), BENCH_LADDER_CALLERS
# callers (300) each reusing its token (environments/local/bench/auth-tokens.sh, as auth-cost.sh). Each ladder's
# report goes to $OUT/<n>-<mode>/; $OUT/compare.md gives per step and mode each process' CPU µs per decision,
# the pipeline's per durable decision, the NORMAL share, and the ratios jwt / off (ladder.py compare).
# Default: off alone, as before (the report in $OUT itself).
# BENCH_REDIS_DATA=fresh (default): a Redis this script starts begins empty (.local/bench/redis, wiped), so
# runs compare; =run: it loads make run's data (.local/run/redis) with whatever earlier runs left there.
# The report says what each step ran against (keys, memory, stream length, AOF rewrites and forks, the
# machine's other CPU) and which cluster/node processes ran beside the pipeline.
set -euo pipefail
cd "$(dirname "$0")/../../.."
ROOT=$(pwd)
JAVA_HOME=${JAVA_HOME:-$(environments/local/bin/java-home.sh)}
export JAVA_HOME
BIN=environments/local/bin

PROFILE=${BENCH_PROFILE:-full}
case "$PROFILE" in
  quick) STEP=${BENCH_LADDER_STEP:-6s}; WARM=${BENCH_LADDER_WARM:-10s}; GAP=${BENCH_LADDER_GAP:-1s} ;;
  full)  STEP=${BENCH_LADDER_STEP:-20s}; WARM=${BENCH_LADDER_WARM:-30s}; GAP=${BENCH_LADDER_GAP:-2s} ;;
  *) echo "BENCH_PROFILE must be quick or full, was '$PROFILE'" >&2; exit 2 ;;
esac
STEPS=${BENCH_LADDER_STEPS:-1000,2000,4000,6000,8000,10000}
KIND=${BENCH_LADDER_KIND:-auth}
case "$KIND" in auth|monitoring) ;; *) echo "BENCH_LADDER_KIND must be auth or monitoring, was '$KIND'" >&2; exit 2 ;; esac
URL=http://127.0.0.1:8081/v1/evaluate/$KIND
AUTH_MODES=${BENCH_LADDER_AUTH:-off}
IFS=, read -r -a MODES <<< "$AUTH_MODES"
[ "${#MODES[@]}" -gt 0 ] || { echo "BENCH_LADDER_AUTH: off or jwt, comma-separated (off,jwt), was empty" >&2; exit 2; }
for m in "${MODES[@]}"; do
  case "$m" in off|jwt) ;; *) echo "BENCH_LADDER_AUTH: off or jwt, comma-separated (off,jwt), was '$AUTH_MODES'" >&2; exit 2 ;; esac
done
CALLERS=${BENCH_LADDER_CALLERS:-300}
[[ $CALLERS =~ ^[1-9][0-9]*$ ]] || { echo "BENCH_LADDER_CALLERS must be a positive number, was '$CALLERS'" >&2; exit 2; }
COMPARE=0 # 1: a ladder per mode, then ladder.py compare
[ "$AUTH_MODES" != off ] && COMPARE=1
CONNS=${BENCH_LADDER_CONNS:-128}
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
OUT=${BENCH_OUT:-loadtests/results/$STAMP-ladder-$PROFILE${KIND/auth/}}
ENGINE_READY=http://127.0.0.1:9081/q/health/ready
mkdir -p "$OUT" .local/logs
T0=$SECONDS
log() { printf '==> [ladder %3ss] %s\n' "$((SECONDS - T0))" "$*"; }

# The parts make run starts, as make run knows them (a glob over *-lib.sh also sourced the cluster's
# and the real node's libraries, which need the cluster's settings).
. "$BIN/bench-lib.sh"
. "$BIN/platform-lib.sh"
has() { declare -F "$1" >/dev/null; }
listener_pid() { bench_listener_pid "$1"; }

# ---- the generator: built from loadtests/gen (standard library only) into the tools cache ---------
GEN_SRC=loadtests/gen
GEN_KEY=$(cat "$GEN_SRC"/go.mod "$GEN_SRC"/*.go | sha256sum | cut -c1-10)
GEN="${VIGIL_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/vigil}/bin/vigil-load-$GEN_KEY/vigil-load"
if [ ! -x "$GEN" ]; then
  command -v go >/dev/null || { echo "go is required to build the generator (loadtests/gen)" >&2; exit 1; }
  log "building the generator ($GEN)"
  mkdir -p "$(dirname "$GEN")"
  (cd "$GEN_SRC" && GOFLAGS=-buildvcs=false go build -trimpath -ldflags "-s -w" -o "$GEN.tmp.$$" . && mv "$GEN.tmp.$$" "$GEN")
fi

# ---- the platform --------------------------------------------------------------------------------
STARTED=()
ENGINE_OURS=0
start_component() { # name port
  local name=$1 port=$2
  if [ -n "$(listener_pid "$port")" ]; then
    log "$name already running on :$port (used, left running)"
    return 0
  fi
  if [ "$name" = relay ] && [ ! -f engine/relay/target/quarkus-app/quarkus-run.jar ]; then
    log "building the relay (engine/relay, tests skipped)"
    ./mvnw -B --no-transfer-progress -q -pl engine/relay -am -DskipTests package
  fi
  "start_$name" | sed 's/^/    /'
  STARTED+=("$name")
}
cleanup() {
  [ "$ENGINE_OURS" = 1 ] && { stop_engine >/dev/null 2>&1 || true; }
  local c
  for c in "${STARTED[@]}"; do "stop_$c" >/dev/null 2>&1 || true; done
}
trap cleanup EXIT

log "profile $PROFILE: steps $STEPS/s, $STEP each (+$GAP settle), warm-up $WARM, caller authentication $AUTH_MODES -> $OUT"
"$BIN/ensure-deps.sh" >/dev/null
log "Redis data: $REDIS_DATA"
start_component redis 16379
REDIS_CONFIG=$(bench_redis_config)
log "Redis settings: $REDIS_CONFIG"
start_component kafka 19092
if [ -n "$(listener_pid 8081)" ]; then
  if [ "$COMPARE" = 1 ]; then
    echo "ERROR: BENCH_LADDER_AUTH=$AUTH_MODES restarts the engine for each ladder, but something" \
         "(pid $(listener_pid 8081)) already listens on :8081; stop it (make stop)" >&2
    exit 1
  elif [ "${BENCH_REUSE_ENGINE:-0}" = 1 ]; then
    log "measuring the engine already on :8081 (pid $(listener_pid 8081); BENCH_REUSE_ENGINE=1)"
  else
    echo "ERROR: something (pid $(listener_pid 8081)) already listens on :8081; stop it (make stop) or set BENCH_REUSE_ENGINE=1" >&2
    exit 1
  fi
else
  jar=engine/service/target/quarkus-app/quarkus-run.jar
  if [ ! -f "$jar" ] || { [ "${BENCH_BUILD:-1}" = 1 ] && [ -n "$(find engine/service/src/main engine/rules/src/main engine/service/pom.xml -newer "$jar" -type f -print -quit)" ]; }; then
    log "building the engine (engine/service, tests skipped)"
    ./mvnw -B --no-transfer-progress -q -pl engine/service -am -DskipTests package
  fi
  ENGINE_OURS=1
fi
export VIGIL_OUTBOX_ENABLED=true
AUTH_DIR="$(cd "$OUT" && pwd)/.auth" # absolute: the engine reads the JWKS file from its own directory
if [[ ,$AUTH_MODES, == *,jwt,* ]]; then
  . environments/local/bench/auth-tokens.sh
  log "bearer JWT: a JWKS file and $CALLERS callers' tokens ($AUTH_DIR)"
  bench_auth_tokens "$AUTH_DIR" "$CALLERS" | sed 's/^/    /'
fi

# The engine with caller authentication <mode> (off: none; jwt: bearer JWT against the JWKS file), ready.
engine_up() {
  local mode=$1 kv
  unset VIGIL_AUTH_DATA_JWT_ENABLED VIGIL_AUTH_DATA_REQUIRED_SCOPE VIGIL_AUTH_JWT_JWKS_FILE VIGIL_AUTH_JWT_ISSUER VIGIL_AUTH_JWT_AUDIENCE
  if [ "$mode" = jwt ]; then
    while read -r kv; do export "${kv?}"; done < <(bench_jwt_engine_env "$AUTH_DIR")
  fi
  if [ "$ENGINE_OURS" = 1 ]; then
    log "engine: caller authentication $mode"
    start_engine | sed 's/^/    /'
  fi
  for _ in $(seq 1 120); do curl -fsS -o /dev/null "$ENGINE_READY" 2>/dev/null && break; sleep 0.5; done
}

POOL="$OUT/.pool.txt"
log "request bodies: ${BENCH_POOL:-100000} from the traffic generator (loadtests/wrk/pool.js)"
node loadtests/wrk/pool.js "${BENCH_POOL:-100000}" "$POOL" "$KIND" | sed 's/^/    /'

# One ladder (warm-up, steps, report) against the engine engine_up left, into <dir>.
ladder() { # <dir> <mode>
  local dir=$1 mode=$2 tokens=() engine_pid engine_opts beside load_before
  mkdir -p "$dir"
  [ "$mode" = jwt ] && tokens=(--tokens "$AUTH_DIR/tokens.txt")
  load_before=$(cut -d' ' -f1-3 /proc/loadavg)
  {
    for pair in engine:8081 redis:16379 kafka:19092 relay:9091; do
      p=$(listener_pid "${pair#*:}")
      [ -n "$p" ] && echo "${pair%%:*} $p"
    done
    true
  } > "$dir/.pids"
  sed 's/^/    pid /' "$dir/.pids"
  engine_pid=$(listener_pid 8081)
  engine_opts=$(tr '\0' ' ' < "/proc/$engine_pid/cmdline" | sed 's/ -jar .*//; s/^[^ ]*java //')
  beside=$(running_beside "$dir/.pids")
  log "running beside the pipeline: $beside"

  log "warm-up: 1,000/s for $WARM ($URL$([ "$mode" = jwt ] && echo ", $CALLERS callers' tokens"))"
  # vigil-load's flag is -tokens; ladder.py's --tokens passes it on
  "$GEN" -url "$URL" -pool "$POOL" -rate 1000 -duration "$WARM" -conns "$CONNS" -tag "$STAMP-warm" \
    ${tokens[@]:+-tokens "$AUTH_DIR/tokens.txt"} | sed 's/^/    /'

  python3 loadtests/bench/ladder.py run "$dir" --gen "$GEN" --pool "$POOL" --pids "$dir/.pids" --url "$URL" \
    --steps "$STEPS" --step "$STEP" --gap "$GAP" --conns "$CONNS" --tag "$STAMP" ${tokens[@]:+"${tokens[@]}"} \
    ${BENCH_LADDER_REWRITE_AT:+--rewrite-at "$BENCH_LADDER_REWRITE_AT"}

  python3 - "$dir/meta.json" profile="$PROFILE" stamp="$STAMP" \
    commit="$(git rev-parse --short HEAD)" loadavg_before="$load_before" loadavg_after="$(cut -d' ' -f1-3 /proc/loadavg)" \
    step_s="${STEP%s}" conns="$CONNS" engine_java_opts="$engine_opts" kind="$KIND" beside="$beside" \
    redis_data="$REDIS_DATA" redis_config="$REDIS_CONFIG" rewrite_at="${BENCH_LADDER_REWRITE_AT:-}" redis_children="${VIGIL_REDIS_CHILDREN:-idle}" auth="$([ "$COMPARE" = 1 ] && echo "$mode" || true)" <<'EOF'
import json, os, sys
meta = dict(a.split("=", 1) for a in sys.argv[2:])
meta.update(kind=meta["kind"].upper(), conns=int(meta["conns"]), cpus=os.cpu_count(), engine_java_opts=meta["engine_java_opts"].strip())
if not meta["auth"]:
    del meta["auth"]
json.dump(meta, open(sys.argv[1], "w"), indent=2)
EOF
  log "report ($dir)"
  python3 loadtests/bench/ladder.py report "$dir"
}

if [ "$COMPARE" = 0 ]; then
  engine_up off
  start_component relay 9091
  ladder "$OUT" off
else
  specs=()
  for i in "${!MODES[@]}"; do
    mode=${MODES[$i]}
    dir="$OUT/$((i + 1))-$mode"
    log "ladder $((i + 1))/${#MODES[@]}: caller authentication $mode"
    engine_up "$mode"
    if [ "$i" = 0 ]; then start_component relay 9091; fi # then kept for every ladder
    ladder "$dir" "$mode"
    specs+=("$mode=$dir")
    stop_engine | sed "s/^/    /" || true
  done
  log "caller authentication: ${MODES[*]}, ratios to off"
  python3 loadtests/bench/ladder.py compare "$OUT" "${specs[@]}"
fi
rm -f "$POOL" # ~60 MB of request bodies, rebuilt by every run
if [ "$COMPARE" = 1 ]; then
  log "done in $((SECONDS - T0))s: $OUT/compare.md, and each ladder's $OUT/<n>-<mode>/index.html"
else
  log "done in $((SECONDS - T0))s: $OUT/index.html (summary.md, summary.json)"
fi
