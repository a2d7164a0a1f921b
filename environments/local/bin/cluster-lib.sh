# Shared settings and helpers of the cluster-*.sh scripts (sourced, not run).
# shellcheck shell=bash disable=SC2034  # variables are used by the scripts that source this file
# Everything the local control plane writes lives under $CLUSTER_DIR (git-ignored .local/cluster).

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
BIN="$ROOT/environments/local/bin"
# shellcheck source=versions.sh
. "$BIN/versions.sh"

CLUSTER_DIR="${VIGIL_CLUSTER_DIR:-$ROOT/.local/cluster}"
PKI="$CLUSTER_DIR/pki"
LOGS="$CLUSTER_DIR/logs"
PIDS="$CLUSTER_DIR/pids"
KUBECONFIG_OUT="$CLUSTER_DIR/kubeconfig"
# Components authenticate with the same admin token, through their own copy of the kubeconfig so a
# user editing .local/cluster/kubeconfig (e.g. a default namespace) does not affect them.
COMPONENT_KUBECONFIG="$PKI/component.kubeconfig"

# Fixed loopback ports of the local platform (see docs/local-environment.md). Tests never use these.
APISERVER_PORT="${VIGIL_APISERVER_PORT:-16443}"
ETCD_PORT="${VIGIL_ETCD_PORT:-12379}"
ETCD_PEER_PORT="${VIGIL_ETCD_PEER_PORT:-12380}"
KCM_PORT="${VIGIL_KCM_PORT:-16457}"
SCHEDULER_PORT="${VIGIL_SCHEDULER_PORT:-16459}"
SERVICE_CIDR="10.96.0.0/16"
SERVICE_FIRST_IP="10.96.0.1"
NODE_COUNT="${VIGIL_NODE_COUNT:-3}"

# Start order; shutdown goes in reverse.
COMPONENTS=(etcd kube-apiserver kube-controller-manager kube-scheduler kwok)

log() { echo "==> [cluster] $*" >&2; }
die() { echo "ERROR [cluster]: $*" >&2; exit 1; }

tool() { "$BIN/tools.sh" path "$1"; }

# The process recorded in pids/<name>.pid, if it is alive AND is that component (a recycled pid of
# some other program is never treated as ours, so `down` never kills a stranger).
running_pid() {
  local name="$1" pidfile="$PIDS/$1.pid" pid argv0
  [ -f "$pidfile" ] || return 1
  pid=$(cat "$pidfile")
  [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] || return 1
  argv0=$(tr '\0' '\n' < "/proc/$pid/cmdline" | head -1)
  [ "$(basename "$argv0")" = "$name" ] || return 1
  echo "$pid"
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
