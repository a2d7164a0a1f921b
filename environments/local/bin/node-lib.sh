# The local cluster's one real node (sourced by node-up.sh / node-down.sh / cluster-down.sh after
# cluster-lib.sh, not run): Debian's containerd + runc + CNI plugins, and a kubelet and kube-proxy
# built from the same wrapper module as the control plane (ADR 0008, docs/local-environment.md).
#   node_up       start containerd, kubelet, kube-proxy for this cluster (idempotent), wait for Ready
#   node_down     delete the node's pods, stop kubelet, kube-proxy, containerd, undo the host changes
#   node_import   import a docker-archive into the node's containerd (images without a registry)
#
# One real node per MACHINE: the kubelet and containerd use fixed host paths (/var/lib/kubelet/
# device-plugins, /var/log/pods, /run/containerd/s, /var/lib/cni) whatever their flags say. So the
# node takes $NODE_LOCK; its daemons inherit the locked descriptor (fd 7), so the lock is held exactly
# as long as one of them (or a container shim they started) lives, and $NODE_OWNER names the cluster
# directory that holds it. Its own state is under $NODE_STATE and $NODE_RUN, its logs and pids in the
# cluster's directory like the control plane's.
# shellcheck shell=bash disable=SC2034

. "$BIN/process-lib.sh"

NODE_NAME=vigil-real-node
NODE_STATE=/var/lib/vigil-node
NODE_RUN=/run/vigil-node
NODE_LOCK=/run/vigil-node.lock
NODE_OWNER=/run/vigil-node.owner
NODE_SOCKET="$NODE_RUN/containerd.sock"
NODE_CONF="$CLUSTER_DIR/node"
NODE_SYSCTLS="$NODE_STATE/sysctls-before.conf"
# Pods ask for the node with this label and toleration (FraudEngine spec.pods, docs/operator).
NODE_LABEL_KEY=vigil.io/node
NODE_LABEL_VALUE=real
NODE_TAINT_KEY=vigil.io/real-node
POD_CIDR=10.244.0.0/24
CLUSTER_POD_CIDR=10.244.0.0/16
NODE_BRIDGE=vigil0
PAUSE_IMAGE=localhost/vigil/pause:3.10
KUBELET_PORT=10250
KUBELET_HEALTHZ_PORT=10248
PROXY_HEALTHZ_PORT=10256
PROXY_METRICS_PORT=10249
NODE_COMPONENTS=(containerd kubelet kube-proxy)
# Kernel settings the kubelet (the first six, at start), the bridge CNI plugin (ip_forward) and
# kube-proxy change on the host. Recorded before the node starts; the kubelet's are put back right
# after it started (it does not set them again), the rest when the node stops.
KUBELET_SYSCTLS=(vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops
  kernel.keys.root_maxkeys kernel.keys.root_maxbytes)
NODE_SYSCTLS_ALL=("${KUBELET_SYSCTLS[@]}" net.ipv4.ip_forward net.ipv4.conf.all.route_localnet
  net.bridge.bridge-nf-call-iptables)

# The host address pods reach the host on (Redis, Kafka): the kubelet's KUBE-FIREWALL drops pod
# traffic to 127.0.0.0/8. The address of the default route's interface; VIGIL_NODE_IP overrides.
node_ip() { pod_reachable_host; }

node_missing_packages() {
  local missing=()
  command -v containerd >/dev/null || missing+=(containerd)
  command -v ctr >/dev/null || missing+=(containerd)
  [ -x /usr/sbin/runc ] || missing+=(runc)
  [ -x /usr/lib/cni/bridge ] || missing+=(containernetworking-plugins)
  command -v iptables >/dev/null || missing+=(iptables)
  command -v ipset >/dev/null || missing+=(ipset)
  command -v conntrack >/dev/null || missing+=(conntrack)
  echo "${missing[*]}"
}

ctr_() { ctr --address "$NODE_SOCKET" --namespace k8s.io "$@"; }

# The cluster directory whose node holds the lock now ("" when free).
node_holder() {
  if flock -n "$NODE_LOCK" true 2>/dev/null; then
    echo ""
  else
    cat "$NODE_OWNER" 2>/dev/null || echo "an unknown process"
  fi
}

node_running_here() {
  local name
  for name in "${NODE_COMPONENTS[@]}"; do
    running_pid "$name" >/dev/null && return 0
  done
  return 1
}

# The pause image (the pod sandbox): a static Go binary of this repo in a FROM-scratch image, built
# without podman (single-binary-image.py) and cached by its sources; the same binary gives the same image.
node_pause_archive() {
  local src="$ROOT/environments/local/node/pause" sum dir
  sum=$(cat "$src/go.mod" "$src/main.go" "$BIN/single-binary-image.py" | sha256sum | cut -c1-10)
  dir="${VIGIL_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/vigil}/bin/pause-$sum"
  if [ ! -s "$dir/pause.tar" ]; then
    mkdir -p "$dir"
    (cd "$src" && CGO_ENABLED=0 GOFLAGS=-buildvcs=false go build -trimpath -ldflags "-s -w" -o "$dir/pause" .)
    "$BIN/single-binary-image.py" "$dir/pause" "$PAUSE_IMAGE" "$dir/pause.tar" >/dev/null
  fi
  echo "$dir/pause.tar"
}

# node_import ARCHIVE: a docker-archive (podman save --format docker-archive, images.sh archive) into
# the node's containerd, where the kubelet finds it (imagePullPolicy IfNotPresent or Never).
node_import() {
  ctr_ images import --no-unpack=false "$1" >/dev/null
}

write_node_config() {
  local ip="$1"
  mkdir -p "$NODE_CONF/cni" "$NODE_STATE" "$NODE_RUN"
  # restrict_oom_score_adj: root here lacks CAP_SYS_RESOURCE, so runc cannot lower oom_score_adj
  # and every sandbox would fail ("can't get final child's PID from pipe"). runc, not crun: crun
  # refuses cgroups v1 in hybrid mode. Own root/state/socket beside any containerd of the host.
  cat > "$NODE_CONF/containerd.toml" <<EOF
version = 2
root = "$NODE_STATE/containerd"
state = "$NODE_RUN/containerd"
[grpc]
  address = "$NODE_SOCKET"
[ttrpc]
  address = "$NODE_RUN/containerd.sock.ttrpc"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE_IMAGE"
  restrict_oom_score_adj = true
  netns_mounts_under_state_dir = true
  enable_selinux = false
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        BinaryName = "/usr/sbin/runc"
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$NODE_CONF/cni"
EOF
  # No loopback plugin: containerd brings lo up itself. ipMasq: pods reach beyond the host.
  cat > "$NODE_CONF/cni/10-vigil.conflist" <<EOF
{
  "cniVersion": "1.0.0",
  "name": "vigil",
  "plugins": [
    {"type": "bridge", "bridge": "$NODE_BRIDGE", "isGateway": true, "ipMasq": true, "hairpinMode": true,
     "ipam": {"type": "host-local", "ranges": [[{"subnet": "$POD_CIDR"}]], "routes": [{"dst": "0.0.0.0/0"}],
              "dataDir": "$NODE_STATE/cni-ipam"}},
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
EOF
  # Only pods that ask for it land here (label + NoSchedule taint); kwok nodes serve the rest.
  # The API server authenticates to the kubelet (logs, exec, port-forward) with the cluster CA.
  cat > "$NODE_CONF/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $ip
port: $KUBELET_PORT
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: $KUBELET_HEALTHZ_PORT
containerRuntimeEndpoint: unix://$NODE_SOCKET
imageServiceEndpoint: unix://$NODE_SOCKET
cgroupDriver: cgroupfs
failSwapOn: false
failCgroupV1: false
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: false}
  x509: {clientCAFile: $PKI/ca.crt}
authorization:
  mode: AlwaysAllow
registerWithTaints:
- {key: $NODE_TAINT_KEY, value: "true", effect: NoSchedule}
maxPods: 20
# Images are imported, not pulled: never garbage-collect them for disk pressure on a shared machine.
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: 100Mi, nodefs.available: 1%, imagefs.available: 1%}
serializeImagePulls: false
EOF
  # localhostNodePorts off: kube-proxy would set route_localnet. conntrack 0: leave the host's.
  cat > "$NODE_CONF/kube-proxy.yaml" <<EOF
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: iptables
hostnameOverride: $NODE_NAME
clusterCIDR: $CLUSTER_POD_CIDR
clientConnection: {kubeconfig: $COMPONENT_KUBECONFIG}
healthzBindAddress: 127.0.0.1:$PROXY_HEALTHZ_PORT
metricsBindAddress: 127.0.0.1:$PROXY_METRICS_PORT
iptables: {localhostNodePorts: false}
conntrack: {maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
EOF
}

record_sysctls() {
  # Recorded once per node life: a restart must not record what the kubelet set.
  [ -s "$NODE_SYSCTLS" ] && return 0
  local s v
  for s in "${NODE_SYSCTLS_ALL[@]}"; do
    v=$(sysctl -n "$s" 2>/dev/null) && echo "$s=$v"
  done > "$NODE_SYSCTLS.tmp"
  mv -f "$NODE_SYSCTLS.tmp" "$NODE_SYSCTLS"
}

# restore_sysctls [name...]: back to the recorded values (all recorded ones when no name is given).
restore_sysctls() {
  [ -s "$NODE_SYSCTLS" ] || return 0
  local line name changed=()
  while IFS= read -r line; do
    name="${line%%=*}"
    if [ $# -gt 0 ] && [[ " $* " != *" $name "* ]]; then continue; fi
    if [ "$(sysctl -n "$name" 2>/dev/null)" != "${line#*=}" ]; then
      sysctl -qw "$line" >/dev/null 2>&1 && changed+=("$line")
    fi
  done < "$NODE_SYSCTLS"
  [ ${#changed[@]} -eq 0 ] || log "host settings restored: ${changed[*]}"
}

node_ready() {
  kubectl_ get node "$NODE_NAME" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null | grep -qx True
}

sysctls_set_by_kubelet() {
  [ "$(sysctl -n vm.overcommit_memory)" = 1 ] && [ "$(sysctl -n kernel.panic)" = 10 ] \
    && [ "$(sysctl -n kernel.panic_on_oops)" = 1 ]
}

node_up() {
  local missing ip holder
  missing=$(node_missing_packages)
  [ -z "$missing" ] || die "the real node needs Debian packages: $missing (run environments/local/bin/ensure-deps.sh)"
  ip=$(node_ip)
  [ -n "$ip" ] || die "no host address for the real node (no default route); set VIGIL_NODE_IP"
  exec 7>>"$NODE_LOCK"
  if ! flock -n 7; then
    holder=$(cat "$NODE_OWNER" 2>/dev/null || echo "an unknown process")
    if [ "$holder" != "$CLUSTER_DIR" ]; then
      exec 7>&-
      echo "ERROR [cluster]: the real node runs for another cluster ($holder): only one real node per machine" \
        "(fixed host paths). Stop that cluster first (VIGIL_CLUSTER_DIR=$holder environments/local/bin/cluster-down.sh)," \
        "or use kwok nodes only (VIGIL_REAL_NODE=0)" >&2
      exit 4
    fi
    if ! running_pid kubelet >/dev/null || ! running_pid containerd >/dev/null || ! running_pid kube-proxy >/dev/null; then
      # Ours but incomplete (a part crashed or a shim outlived it): clean up and start again.
      log "real node of this cluster is incomplete: stopping what is left"
      exec 7>&-
      node_down
      exec 7>>"$NODE_LOCK"
      flock -n 7 || die "the real node lock $NODE_LOCK is still held after cleanup (fuser -v $NODE_LOCK)"
    fi
  fi
  echo "$CLUSTER_DIR" > "$NODE_OWNER"
  # The daemons inherit the umask: cluster-up's 077 (for its credentials) would make every unpacked
  # image directory and volume unreadable for non-root containers.
  umask 022
  "$BIN/tools.sh" build kubelet kube-proxy
  write_node_config "$ip"
  record_sysctls

  start_process containerd /usr/bin/containerd - --config "$NODE_CONF/containerd.toml"
  wait_for containerd 60 alive_and containerd ctr_ version
  # Imported on every start (1.4 MB, well under a second): a changed pause build replaces the old one.
  node_import "$(node_pause_archive)"
  start_process kubelet "$(tool kubelet)" "$KUBELET_PORT" \
    --config "$NODE_CONF/kubelet.yaml" \
    --kubeconfig "$COMPONENT_KUBECONFIG" \
    --hostname-override "$NODE_NAME" \
    --node-ip "$ip" \
    --node-labels "$NODE_LABEL_KEY=$NODE_LABEL_VALUE,type=real" \
    --root-dir "$NODE_STATE/kubelet" \
    --cert-dir "$NODE_STATE/kubelet/pki"
  start_process kube-proxy "$(tool kube-proxy)" - --config "$NODE_CONF/kube-proxy.yaml"
  wait_for "real node $NODE_NAME" 120 alive_and kubelet node_ready
  # The kubelet sets its kernel settings once while starting (before Ready): put the host's back.
  wait_for "kubelet kernel settings" 30 alive_and kubelet sysctls_set_by_kubelet || true
  restore_sysctls "${KUBELET_SYSCTLS[@]}"
  kubectl_ uncordon "$NODE_NAME" >/dev/null 2>&1 || true
  wait_for kube-proxy 60 alive_and kube-proxy healthy "http://127.0.0.1:$PROXY_HEALTHZ_PORT/healthz"
  exec 7>&-
  log "real node $NODE_NAME Ready at $ip (pods: nodeSelector $NODE_LABEL_KEY=$NODE_LABEL_VALUE, toleration $NODE_TAINT_KEY)"
}

# Deletes the pods (so kubelet and CNI tear down their sandboxes, mounts and veths), then stops the
# kubelet, kube-proxy and containerd, and removes what they leave on the host.
node_down() {
  local t0=$SECONDS
  node_running_here || [ "$(cat "$NODE_OWNER" 2>/dev/null)" = "$CLUSTER_DIR" ] || return 0
  if running_pid kubelet >/dev/null && running_pid kube-apiserver >/dev/null; then
    KUBECTL=${KUBECTL:-$(tool kubectl)}
    kubectl_ cordon "$NODE_NAME" >/dev/null 2>&1 || true
    kubectl_ delete pods -A --field-selector "spec.nodeName=$NODE_NAME" --wait=false >/dev/null 2>&1 || true
    local i
    for i in $(seq 1 60); do
      [ -z "$(kubectl_ get pods -A --field-selector "spec.nodeName=$NODE_NAME" -o name 2>/dev/null)" ] && break
      sleep 1
    done
  fi
  stop_component kubelet
  stop_component kube-proxy
  # A restarted node registers afresh (not Ready, not cordoned) instead of showing its old status.
  if running_pid kube-apiserver >/dev/null; then
    KUBECTL=${KUBECTL:-$(tool kubectl)}
    kubectl_ delete node "$NODE_NAME" --wait=false >/dev/null 2>&1 || true
  fi
  if running_pid containerd >/dev/null; then
    # Whatever the kubelet did not tear down (API server gone, pods stuck): kill and remove it.
    local id
    for id in $(ctr_ tasks ls -q 2>/dev/null); do
      ctr_ tasks kill -s SIGKILL "$id" >/dev/null 2>&1 || true
    done
    for id in $(ctr_ containers ls -q 2>/dev/null); do
      ctr_ tasks delete -f "$id" >/dev/null 2>&1 || true
      ctr_ containers delete "$id" >/dev/null 2>&1 || true
    done
  fi
  stop_component containerd
  node_host_cleanup
  log "real node stopped ($((SECONDS - t0))s)"
}

node_host_cleanup() {
  local shim m
  # Shims of this containerd that outlived it (they hold the node lock and /run/containerd/s).
  for shim in $(pgrep -f "containerd-shim-runc-v2 .*-address $NODE_SOCKET" || true); do
    kill -KILL "$shim" 2>/dev/null || true
  done
  for m in $(findmnt -rn -o TARGET | { grep -E "^($NODE_STATE|$NODE_RUN)/" || true; } | sort -r); do
    umount -l "$m" 2>/dev/null || true
  done
  local proxy
  proxy=$("$BIN/tools.sh" list | awk '$1 == "kube-proxy" && $2 == "built" {print $3}')
  [ -z "$proxy" ] || "$proxy" --cleanup >/dev/null 2>&1 || true
  iptables_cleanup
  ip link delete "$NODE_BRIDGE" >/dev/null 2>&1 || true
  rm -rf "$NODE_STATE/cni-ipam"
  # Empty kubepods cgroups the kubelet leaves in each v1 hierarchy.
  find /sys/fs/cgroup/*/kubepods -depth -type d -exec rmdir {} \; 2>/dev/null || true
  restore_sysctls
  rm -f "$NODE_SYSCTLS" "$NODE_OWNER"
}

# Removes the KUBE-* and CNI-* rules and chains the kubelet, kube-proxy and CNI plugins added (what
# kube-proxy --cleanup leaves: the kubelet's KUBE-FIREWALL, KUBE-KUBELET-CANARY, CNI masquerading).
iptables_cleanup() {
  local table rule chain
  for table in filter nat mangle; do
    { iptables -t "$table" -S 2>/dev/null || true; } \
      | { grep -E '^-A (INPUT|OUTPUT|FORWARD|PREROUTING|POSTROUTING) .*(KUBE-|CNI-)' || true; } \
      | sed 's/^-A/-D/' | while read -r rule; do
        eval "iptables -t $table $rule" 2>/dev/null || true
      done
    for chain in $(iptables -t "$table" -S 2>/dev/null | sed -n 's/^-N \(\(KUBE\|CNI\)-[^ ]*\)$/\1/p'); do
      iptables -t "$table" -F "$chain" 2>/dev/null || true
    done
    for chain in $(iptables -t "$table" -S 2>/dev/null | sed -n 's/^-N \(\(KUBE\|CNI\)-[^ ]*\)$/\1/p'); do
      iptables -t "$table" -X "$chain" 2>/dev/null || true
    done
  done
}

# Client certificate the API server presents to the kubelet (logs, exec, port-forward).
node_client_cert() {
  [ -f "$PKI/kubelet-client.crt" ] && return 0
  (
    cd "$PKI"
    umask 077
    openssl req -newkey rsa:2048 -nodes -sha256 -keyout kubelet-client.key -out kubelet-client.csr \
      -subj "/O=system:masters/CN=kube-apiserver-kubelet-client" 2>/dev/null
    printf 'extendedKeyUsage=clientAuth\n' > kubelet-client.ext
    openssl x509 -req -in kubelet-client.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 3650 \
      -sha256 -extfile kubelet-client.ext -out kubelet-client.crt 2>/dev/null
    rm -f kubelet-client.csr kubelet-client.ext
  )
}
