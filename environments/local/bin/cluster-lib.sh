# Shared settings and helpers of the cluster-*.sh scripts (sourced, not run).
# shellcheck shell=bash disable=SC2034  # variables are used by the scripts that source this file
# Everything the local control plane writes lives under $CLUSTER_DIR (git-ignored .local/cluster).

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
BIN="$ROOT/environments/local/bin"
# shellcheck source=versions.sh
. "$BIN/versions.sh"
# shellcheck source=process-lib.sh
. "$BIN/process-lib.sh"

# One spelling per cluster (a/b/../.. and a symlinked path name the same cluster): the real node's owner
# file compares it as a string.
CLUSTER_DIR="$(realpath -m "${VIGIL_CLUSTER_DIR:-$ROOT/.local/cluster}")"
PKI="$CLUSTER_DIR/pki"
LOGS="$CLUSTER_DIR/logs"
PIDS="$CLUSTER_DIR/pids"
KUBECONFIG_OUT="$CLUSTER_DIR/kubeconfig"
# Components authenticate with the same admin token, through their own copy of the kubeconfig so a
# user editing .local/cluster/kubeconfig (e.g. a default namespace) does not affect them.
COMPONENT_KUBECONFIG="$PKI/component.kubeconfig"

# Fixed loopback ports of the local platform (see docs/local-environment.md). Tests never use these:
# their cluster (VIGIL_CLUSTER_FRESH=1, below) picks free ports.
# cluster-up records the ports a cluster starts on in ports.env; while any of its components runs,
# those win over the environment, so a shell with other VIGIL_*_PORT values neither moves nor
# breaks a running cluster (load_ports runs at the end of this file).
PORTS_FILE="$CLUSTER_DIR/ports.env"
load_ports() {
  APISERVER_PORT="${VIGIL_APISERVER_PORT:-16443}"
  ETCD_PORT="${VIGIL_ETCD_PORT:-12379}"
  ETCD_PEER_PORT="${VIGIL_ETCD_PEER_PORT:-12380}"
  KCM_PORT="${VIGIL_KCM_PORT:-16457}"
  SCHEDULER_PORT="${VIGIL_SCHEDULER_PORT:-16459}"
  if [ -f "$PORTS_FILE" ] && any_running; then
    # shellcheck source=/dev/null
    . "$PORTS_FILE"
  fi
}

# Records the current ports as this cluster's (cluster-up, before starting anything).
save_ports() {
  mkdir -p "$CLUSTER_DIR"
  printf 'APISERVER_PORT=%s\nETCD_PORT=%s\nETCD_PEER_PORT=%s\nKCM_PORT=%s\nSCHEDULER_PORT=%s\n' \
    "$APISERVER_PORT" "$ETCD_PORT" "$ETCD_PEER_PORT" "$KCM_PORT" "$SCHEDULER_PORT" > "$PORTS_FILE"
}
SERVICE_CIDR="10.96.0.0/16"
SERVICE_FIRST_IP="10.96.0.1"
NODE_COUNT="${VIGIL_NODE_COUNT:-3}"

# Node heartbeats (see cluster-up.sh): kwok renews each node's Lease every quarter of its duration,
# and the node-lifecycle controller marks a node NotReady when neither its Lease nor its status was
# renewed for the grace period. Upstream defaults of Kubernetes 1.32: 40 s lease (kubelet), 50 s grace
# (checked every 5 s). The tests' cluster runs with 40 s (LocalCluster.java).
NODE_LEASE_SECONDS="${VIGIL_NODE_LEASE_SECONDS:-40}"
NODE_MONITOR_GRACE_PERIOD="${VIGIL_NODE_MONITOR_GRACE_PERIOD:-50s}"

# Start order; shutdown goes in reverse.
COMPONENTS=(etcd kube-apiserver kube-controller-manager kube-scheduler kwok)

# Whether any component of this cluster directory is running.
any_running() {
  local name
  for name in "${COMPONENTS[@]}"; do
    running_pid "$name" >/dev/null && return 0
  done
  return 1
}

# Sets the five ports to loopback ports that are free right now (all held open together while
# choosing, so they differ).
pick_free_ports() {
  local ports
  ports=$(python3 -c '
import socket
socks = [socket.socket() for _ in range(5)]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))
') || die "cannot pick free ports (python3 is needed)"
  read -r APISERVER_PORT ETCD_PORT ETCD_PEER_PORT KCM_PORT SCHEDULER_PORT <<< "$ports"
}

log() { echo "==> [cluster] $*" >&2; }
die() { echo "ERROR [cluster]: $*" >&2; exit 1; }

tool() { "$BIN/tools.sh" path "$1"; }

# The process recorded in pids/<name>.pid, if it is alive AND runs that component's program (a
# recycled pid of some other program is never treated as ours, so `down` never kills a stranger).
running_pid() { recorded_pid "$PIDS/$1.pid" "argv0=$1"; }

# Stops one component (SIGTERM, SIGKILL after 10 s) and forgets its pid file. Messages go to stderr,
# like every message of the cluster scripts.
stop_component() {
  local name="$1" pid t0=$SECONDS
  if ! pid=$(running_pid "$name"); then
    rm -f "$PIDS/$name.pid"
    return 0
  fi
  stop_background "$name" "$PIDS/$name.pid" "argv0=$name" 10 >&2
  log "$name stopped (pid $pid, $((SECONDS - t0))s)"
}

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

kubectl_() { "$KUBECTL" --kubeconfig "$COMPONENT_KUBECONFIG" "$@"; }

# wait_for <what> <timeout seconds> <command...>: retries the command every second, printing progress.
# The command keeps its stderr, so it must be quiet while not ready (and loud when it gives up).
wait_for() {
  local what="$1" timeout="$2" start=$SECONDS next=10; shift 2
  until "$@" >/dev/null; do
    if [ $((SECONDS - start)) -ge "$timeout" ]; then
      echo "ERROR [cluster]: $what not ready after ${timeout}s" >&2
      return 1
    fi
    if [ $((SECONDS - start)) -ge $next ]; then
      log "  ... waiting for $what ($((SECONDS - start))s)"
      next=$((next + 10))
    fi
    sleep 1
  done
  log "$what ready ($((SECONDS - start))s)"
}

admin_token() { cat "$PKI/admin.token"; }

# Directory of a Go module's source (downloads it into the module cache on first use).
module_dir() {
  local dir
  dir=$(cd "$ROOT/environments/local/kube" && GOFLAGS=-mod=mod go mod download -json "$1" \
    | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [ -n "$dir" ] && [ -d "$dir" ] || die "could not download Go module $1"
  echo "$dir"
}

# start_process <name> <binary> <port> <args...>: runs the binary in its own session, output to
# logs/<name>.log, pid in pids/<name>.pid (port "-": none to check).
start_process() {
  local name="$1" bin="$2" port="$3" pid; shift 3
  if pid=$(running_pid "$name"); then
    # Left alone if it runs as this script would start it; restarted when its binary or flags changed
    # (e.g. a checkout that fixed a flag, while the old cluster kept running).
    if [ "$(tr '\0' '\n' < "/proc/$pid/cmdline")" = "$(printf '%s\n' "$bin" "$@")" ]; then
      log "$name already running (pid $pid)"
      return 0
    fi
    log "$name runs with other flags or another binary than this checkout's: restarting it"
    stop_component "$name"
  fi
  if [ "$port" != - ] && port_busy "$port"; then
    die "port $port (for $name) is used by another process; stop it or set VIGIL_*_PORT (see docs/local-environment.md)"
  fi
  echo "---- $(date -u +%FT%TZ) starting $name" >> "$LOGS/$name.log"
  # 8>&-: the daemon must not inherit (and so keep holding) the lock of this script. The real node's
  # daemons do inherit fd 7, the node lock (node-lib.sh).
  setsid "$bin" "$@" >> "$LOGS/$name.log" 2>&1 < /dev/null 8>&- &
  pid=$!
  echo "$pid" > "$PIDS/$name.pid"
  # Until the forked shell has exec'ed the binary, the pid does not look like $name yet.
  for _ in $(seq 1 50); do
    running_pid "$name" >/dev/null || [ ! -d "/proc/$pid" ] && break
    sleep 0.1
  done
  log "$name started (pid $pid, log $LOGS/$name.log)"
}

# Fails the wait early, with the log tail, when the process died instead of becoming ready.
alive_and() {
  local name="$1"; shift
  if ! running_pid "$name" >/dev/null; then
    echo "ERROR [cluster]: $name exited; last lines of $LOGS/$name.log:" >&2
    tail -n 20 "$LOGS/$name.log" >&2
    exit 1
  fi
  "$@"
}

healthy() { curl -sf --max-time 2 "$@" >/dev/null; }

# Takes the cluster directory's lock (fd 8) for the rest of the calling script: serialises concurrent
# `up`s and `down`s (make, several test JVMs) on the same state directory.
cluster_lock() {
  mkdir -p "$CLUSTER_DIR"
  exec 8>"$CLUSTER_DIR/.lock"
  if ! flock -n 8; then
    log "another cluster script holds $CLUSTER_DIR/.lock; waiting"
    flock 8
  fi
}

load_ports
