#!/usr/bin/env bash
# Builds the Go tools of the local environment into a cache outside the repo, keyed by version:
#   ${VIGIL_CACHE_DIR:-~/.cache/vigil}/bin/<key>/<tool>
# A tool whose binary is already in its key's directory is not rebuilt, so a second run costs nothing.
#
#   tools.sh [build] [tool...]   build the given tools (default: all) and print where they are
#   tools.sh path <tool>         print the binary path of one tool (builds it first if missing)
#   tools.sh list                print tool, key and whether it is built
#
# Tools: kube-apiserver kube-controller-manager kube-scheduler etcd kubectl, and the real node's kubelet
# and kube-proxy (from the wrapper module in environments/local/kube), kwok, helm, k6 (go install of
# pinned versions), prometheus and promtool (from the wrapper module in environments/local/prometheus).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
KUBE_MOD="$ROOT/environments/local/kube"
PROM_MOD="$ROOT/environments/local/prometheus"
CACHE_DIR="${VIGIL_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/vigil}"

# shellcheck source=versions.sh
. "$ROOT/environments/local/bin/versions.sh"

ALL_TOOLS=(etcd kube-apiserver kube-controller-manager kube-scheduler kubectl kubelet kube-proxy kwok helm k6 prometheus promtool)

# k8s.io/kubernetes and k8s.io/controller-manager are not in the checksum database served here (404);
# their hashes are pinned in the committed go.sum instead.
export GONOSUMDB="${GONOSUMDB:+$GONOSUMDB,}k8s.io/kubernetes,k8s.io/controller-manager"
export GOFLAGS="${GOFLAGS:-} -buildvcs=false"

log() { echo "==> [tools] $*" >&2; }

kube_key() {
  # The wrapper module's content decides the key, so editing go.mod/go.sum or a main rebuilds.
  local sum
  sum=$(cd "$KUBE_MOD" && cat go.mod go.sum cmd/*/main.go | sha256sum | cut -c1-10)
  echo "kube-${K8S_VERSION}-etcd-${ETCD_VERSION}-${sum}"
}

prom_key() {
  local sum ver
  sum=$(cd "$PROM_MOD" && cat go.mod go.sum | sha256sum | cut -c1-10)
  ver=$(awk '$1 == "require" && $2 == "github.com/prometheus/prometheus" {print $3}' "$PROM_MOD/go.mod")
  echo "prometheus-${ver}-${sum}"
}

key_of() {
  case "$1" in
    etcd|kube-apiserver|kube-controller-manager|kube-scheduler|kubectl|kubelet|kube-proxy) kube_key ;;
    kwok) echo "kwok-${KWOK_VERSION}" ;;
    helm) echo "helm-${HELM_VERSION}" ;;
    k6) echo "k6-${K6_VERSION}" ;;
    prometheus|promtool) prom_key ;;
    *) echo "unknown tool: $1 (known: ${ALL_TOOLS[*]})" >&2; return 2 ;;
  esac
}

path_of() { echo "$CACHE_DIR/bin/$(key_of "$1")/$1"; }

# Prints a line every 30 s while a build runs, so a long cold build does not look hung (CI, JUnit).
with_heartbeat() {
  local what="$1"; shift
  local start=$SECONDS
  ( while sleep 30; do echo "    ... still building $what ($((SECONDS - start))s)" >&2; done ) &
  local hb=$!
  local rc=0
  "$@" || rc=$?
  kill "$hb" 2>/dev/null || true
  wait "$hb" 2>/dev/null || true
  return $rc
}

build_one() {
  local tool="$1" dest tmp start
  dest=$(path_of "$tool")
  if [ -x "$dest" ]; then
    log "$tool: cached ($dest)"
    return 0
  fi
  mkdir -p "$(dirname "$dest")"
  # One build per tool at a time (make, the JUnit extension and CI may race for it); different
  # tools may build side by side, so `cluster-up` does not wait for helm/k6 being built elsewhere.
  exec 9>"$(dirname "$dest")/.lock-$tool"
  if ! flock -n 9; then
    log "$tool: another build is running; waiting for it"
    flock 9
  fi
  if [ -x "$dest" ]; then
    log "$tool: built meanwhile ($dest)"
    exec 9>&-
    return 0
  fi
  command -v go >/dev/null || { echo "go is required to build $tool (https://go.dev/dl/)" >&2; return 1; }
  mkdir -p "$(dirname "$dest")"
  tmp="$(dirname "$dest")/.tmp-$tool-$$"
  rm -rf "$tmp"; mkdir -p "$tmp"
  start=$SECONDS
  case "$tool" in
    etcd|kube-apiserver|kube-controller-manager|kube-scheduler|kubectl|kubelet|kube-proxy)
      log "building $tool (Kubernetes $K8S_VERSION / etcd $ETCD_VERSION); cold builds take minutes"
      # Stamp the version the way the upstream release build does, so `kubectl version` and Helm's
      # kubeVersion checks see v1.32.4 rather than v0.0.0-master.
      local v="$K8S_VERSION" minor
      minor=$(echo "$v" | cut -d. -f2)
      local ld="-s -w"
      for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
        ld+=" -X $pkg.gitVersion=$v -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
      done
      (cd "$KUBE_MOD" && with_heartbeat "$tool" go build -ldflags "$ld" -o "$tmp/$tool" "./cmd/$tool")
      ;;
    prometheus|promtool)
      # Prometheus' go.mod has replace directives, so it cannot be `go install`ed; the wrapper
      # module requires it (and repeats the replace it needs) and builds its commands from there.
      # remove_all_sd keeps only static and file service discovery (all the local environment uses)
      # and leaves out the cloud SDKs that make most of a full build's time.
      log "building $tool (Prometheus module $(prom_key)); a cold build takes a few minutes"
      (cd "$PROM_MOD" && with_heartbeat "$tool" go build -tags remove_all_sd -ldflags "-s -w" -o "$tmp/$tool" \
        "github.com/prometheus/prometheus/cmd/$tool")
      ;;
    kwok|helm|k6)
      local mod ver
      case "$tool" in
        kwok) mod=sigs.k8s.io/kwok/cmd/kwok; ver=$KWOK_VERSION ;;
        helm) mod=helm.sh/helm/v3/cmd/helm; ver=$HELM_VERSION ;;
        k6) mod=go.k6.io/k6; ver=$K6_VERSION ;;
      esac
      log "installing $tool $ver (go install $mod@$ver)"
      (cd "$tmp" && GOBIN="$tmp" with_heartbeat "$tool" go install -ldflags "-s -w" "$mod@$ver")
      ;;
  esac
  mv -f "$tmp/$tool" "$dest"
  rm -rf "$tmp"
  exec 9>&-
  log "$tool: built in $((SECONDS - start))s -> $dest"
}

main() {
  cmd="${1:-build}"
  case "$cmd" in
    path)
      [ $# -eq 2 ] || { echo "usage: tools.sh path <tool>" >&2; exit 2; }
      p=$(path_of "$2")
      [ -x "$p" ] || "$0" build "$2" >&2
      echo "$p"
      ;;
    list)
      for t in "${ALL_TOOLS[@]}"; do
        p=$(path_of "$t"); s=missing; [ -x "$p" ] && s=built
        printf '%-24s %-8s %s\n' "$t" "$s" "$p"
      done
      ;;
    build|*)
      [ "$cmd" = build ] && shift || true
      tools=("$@"); [ ${#tools[@]} -eq 0 ] && tools=("${ALL_TOOLS[@]}")
      for t in "${tools[@]}"; do key_of "$t" >/dev/null; done
      mkdir -p "$CACHE_DIR/bin"
      total=$SECONDS
      for t in "${tools[@]}"; do build_one "$t"; done
      log "tools ready in $((SECONDS - total))s (cache: $CACHE_DIR/bin)"
      ;;
  esac
}

main "$@"
