#!/usr/bin/env bash
# Starts the local Kubernetes control plane (no containers): etcd, kube-apiserver,
# kube-controller-manager, kube-scheduler and kwok simulating $NODE_COUNT nodes and their pods.
# Idempotent: components already running are left alone; certificates and data are reused.
# Writes .local/cluster/kubeconfig. See docs/local-environment.md.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/cluster-lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/node-lib.sh"

mkdir -p "$CLUSTER_DIR" "$PKI" "$LOGS" "$PIDS"
cluster_lock
started_at=$SECONDS

# VIGIL_CLUSTER_FRESH=1 (the tests' cluster, see LocalCluster.java): unless this cluster already runs,
# start from empty state (no namespaces or CRDs left by an earlier build) on free ports, so it never
# meets the `make run` cluster or another checkout's tests on a port.
if [ "${VIGIL_CLUSTER_FRESH:-0}" = 1 ] && ! any_running; then
  case "$CLUSTER_DIR" in
    */.local/*) ;;
    *) die "VIGIL_CLUSTER_FRESH=1 wipes the cluster state: refusing outside a .local directory ($CLUSTER_DIR)" ;;
  esac
  rm -rf "$CLUSTER_DIR/etcd" "$PKI" "$PIDS" "$KUBECONFIG_OUT" "$PORTS_FILE"
  mkdir -p "$PKI" "$PIDS"
  pick_free_ports
  log "fresh cluster in $CLUSTER_DIR on free ports (API server $APISERVER_PORT)"
fi
any_running || save_ports

command -v openssl >/dev/null || die "openssl is missing: run environments/local/bin/ensure-deps.sh"
command -v go >/dev/null || die "go is missing (needed to build the control plane): https://go.dev/dl/"

log "building/locating tools (cached under ~/.cache/vigil/bin)"
"$BIN/tools.sh" build etcd kube-apiserver kube-controller-manager kube-scheduler kubectl kwok
KUBECTL=$(tool kubectl)

# ---------------------------------------------------------------- certificates and credentials
if [ ! -f "$PKI/apiserver.crt" ]; then
  log "generating CA, serving certificate and service-account key pair in $PKI"
  (
    cd "$PKI"
    umask 077
    openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -sha256 \
      -keyout ca.key -out ca.crt -subj "/CN=vigil-local-ca" 2>/dev/null
    cat > apiserver.ext <<EOF
basicConstraints=CA:FALSE
keyUsage=digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,IP:127.0.0.1,IP:$SERVICE_FIRST_IP
EOF
    openssl req -newkey rsa:2048 -nodes -sha256 -keyout apiserver.key -out apiserver.csr \
      -subj "/CN=kube-apiserver" 2>/dev/null
    openssl x509 -req -in apiserver.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 3650 \
      -sha256 -extfile apiserver.ext -out apiserver.crt 2>/dev/null
    openssl genrsa -out sa.key 2048 2>/dev/null
    openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
    openssl rand -hex 32 > admin.token
    # token,user,uid,"group1,group2": the admin is in system:masters (cluster-admin).
    echo "$(cat admin.token),vigil-admin,vigil-admin,\"system:masters\"" > tokens.csv
    rm -f apiserver.csr apiserver.ext
  )
fi

node_client_cert
write_kubeconfig() {
  local out="$1" ca
  ca=$(base64 -w0 < "$PKI/ca.crt")
  umask 077
  cat > "$out.tmp" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: vigil-local
  cluster:
    server: https://127.0.0.1:$APISERVER_PORT
    certificate-authority-data: $ca
users:
- name: vigil-admin
  user:
    token: $(admin_token)
contexts:
- name: vigil-local
  context:
    cluster: vigil-local
    user: vigil-admin
current-context: vigil-local
EOF
  mv -f "$out.tmp" "$out"
}
write_kubeconfig "$COMPONENT_KUBECONFIG"
# The user's copy is theirs to edit; it is only rewritten when missing or pointing at another port.
if ! grep -qs "server: https://127.0.0.1:$APISERVER_PORT\$" "$KUBECONFIG_OUT"; then
  write_kubeconfig "$KUBECONFIG_OUT"
fi

# ---------------------------------------------------------------- processes
# start <name> <port> <args...>: the cached tool <name> (start_process in cluster-lib.sh).
start() {
  local name="$1" before; shift
  before=$(running_pid "$name" || true)
  start_process "$name" "$(tool "$name")" "$@"
  if [ "$name" = kwok ] && [ "$(running_pid kwok || true)" != "$before" ]; then KWOK_STARTED=1; fi
}

CA="$PKI/ca.crt"

start etcd "$ETCD_PORT" \
  --name vigil-local \
  --data-dir "$CLUSTER_DIR/etcd" \
  --listen-client-urls "http://127.0.0.1:$ETCD_PORT" \
  --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
  --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
  --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
  --initial-cluster "vigil-local=http://127.0.0.1:$ETCD_PEER_PORT" \
  --quota-backend-bytes 2147483648 \
  --unsafe-no-fsync
wait_for etcd 60 alive_and etcd healthy "http://127.0.0.1:$ETCD_PORT/health"

# Logs, exec and port-forward reach the real node's kubelet by its InternalIP: the cluster has no DNS
# for node names (the default order tries the hostname first, and `kubectl logs` failed on a lookup).
start kube-apiserver "$APISERVER_PORT" \
  --etcd-servers "http://127.0.0.1:$ETCD_PORT" \
  --bind-address 127.0.0.1 \
  --advertise-address 127.0.0.1 \
  --secure-port "$APISERVER_PORT" \
  --tls-cert-file "$PKI/apiserver.crt" \
  --tls-private-key-file "$PKI/apiserver.key" \
  --client-ca-file "$CA" \
  --token-auth-file "$PKI/tokens.csv" \
  --authorization-mode RBAC \
  --enable-admission-plugins NamespaceLifecycle,LimitRanger,ServiceAccount,DefaultStorageClass,DefaultTolerationSeconds,ResourceQuota,MutatingAdmissionWebhook,ValidatingAdmissionWebhook,ValidatingAdmissionPolicy \
  --service-account-issuer https://kubernetes.default.svc.cluster.local \
  --service-account-key-file "$PKI/sa.pub" \
  --service-account-signing-key-file "$PKI/sa.key" \
  --service-cluster-ip-range "$SERVICE_CIDR" \
  --endpoint-reconciler-type none \
  --allow-privileged=true \
  --kubelet-client-certificate "$PKI/kubelet-client.crt" \
  --kubelet-client-key "$PKI/kubelet-client.key" \
  --kubelet-preferred-address-types InternalIP,Hostname \
  --profiling=false
wait_for kube-apiserver 180 alive_and kube-apiserver \
  healthy --cacert "$CA" -H "Authorization: Bearer $(admin_token)" "https://127.0.0.1:$APISERVER_PORT/readyz"

# Controllers: the upstream default set ("*"), which includes the garbage collector, deployment and
# replicaset, node-lifecycle (removes the not-ready taint once kwok reports a node Ready), namespace
# and service-account(-token) controllers.
# The node-monitor grace period is the usual one (50 s, see cluster-lib.sh): kwok keeps every node's
# Lease renewed, which is the heartbeat the node-lifecycle controller reads (see kwok below).
start kube-controller-manager "$KCM_PORT" \
  --kubeconfig "$COMPONENT_KUBECONFIG" \
  --authentication-kubeconfig "$COMPONENT_KUBECONFIG" \
  --authorization-kubeconfig "$COMPONENT_KUBECONFIG" \
  --bind-address 127.0.0.1 \
  --secure-port "$KCM_PORT" \
  --leader-elect=false \
  --controllers '*' \
  --node-monitor-grace-period "$NODE_MONITOR_GRACE_PERIOD" \
  --service-account-private-key-file "$PKI/sa.key" \
  --root-ca-file "$CA" \
  --cluster-signing-cert-file "$CA" \
  --cluster-signing-key-file "$PKI/ca.key" \
  --service-cluster-ip-range "$SERVICE_CIDR" \
  --profiling=false
start kube-scheduler "$SCHEDULER_PORT" \
  --kubeconfig "$COMPONENT_KUBECONFIG" \
  --authentication-kubeconfig "$COMPONENT_KUBECONFIG" \
  --authorization-kubeconfig "$COMPONENT_KUBECONFIG" \
  --bind-address 127.0.0.1 \
  --secure-port "$SCHEDULER_PORT" \
  --leader-elect=false \
  --profiling=false
wait_for kube-controller-manager 120 alive_and kube-controller-manager healthy -k "https://127.0.0.1:$KCM_PORT/healthz"
wait_for kube-scheduler 120 alive_and kube-scheduler healthy -k "https://127.0.0.1:$SCHEDULER_PORT/healthz"

# kwok: the Stage objects of its "fast" profile make nodes Ready and pods Running/Ready immediately,
# and finish deleted pods (there is no kubelet to do it). Heartbeats as a kubelet does them, and as
# kwokctl sets them up: kwok holds and renews a Lease per node in kube-node-lease (every
# $NODE_LEASE_SECONDS/4 s), and the node-heartbeat-with-lease Stage refreshes the node's status
# conditions every 10-20 minutes. Without them (the fast profile alone) nothing renews a node after
# its first status, and the node-lifecycle controller turns every node and pod NotReady after the
# grace period.
STAGES="$CLUSTER_DIR/kwok-stages-$KWOK_VERSION-lease.yaml"
if [ ! -s "$STAGES" ]; then
  kwok_dir=$(module_dir "sigs.k8s.io/kwok@$KWOK_VERSION")
  {
    for f in "$kwok_dir"/kustomize/stage/node/fast/node-initialize.yaml \
      "$kwok_dir"/kustomize/stage/node/heartbeat-with-lease/node-heartbeat-with-lease.yaml \
      "$kwok_dir"/kustomize/stage/pod/fast/pod-*.yaml; do
      echo "---"; cat "$f"
    done
  } > "$STAGES.tmp"
  mv -f "$STAGES.tmp" "$STAGES"
fi
start kwok - \
  --kubeconfig "$COMPONENT_KUBECONFIG" \
  --config "$STAGES" \
  --node-lease-duration-seconds "$NODE_LEASE_SECONDS" \
  --manage-nodes-with-annotation-selector kwok.x-k8s.io/node=fake

nodes_yaml() {
  for i in $(seq 0 $((NODE_COUNT - 1))); do
    cat <<EOF
---
apiVersion: v1
kind: Node
metadata:
  name: kwok-node-$i
  annotations:
    kwok.x-k8s.io/node: fake
    node.alpha.kubernetes.io/ttl: "0"
  labels:
    kubernetes.io/arch: amd64
    kubernetes.io/hostname: kwok-node-$i
    kubernetes.io/os: linux
    node-role.kubernetes.io/agent: ""
    type: kwok
EOF
  done
}
nodes_yaml | kubectl_ apply -f - >/dev/null
log "applied $NODE_COUNT fake nodes (kwok-node-0..$((NODE_COUNT - 1)))"

nodes_ready() {
  running_pid kwok >/dev/null || { echo "ERROR [cluster]: kwok exited:" >&2; tail -n 20 "$LOGS/kwok.log" >&2; exit 1; }
  local out
  # One line per node: "<Ready status> <taint keys>"; ready means every node "True" with no taint.
  out=$(kubectl_ get nodes -l type=kwok 2>/dev/null \
    -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status} {.spec.taints[*].key}{"\n"}{end}')
  [ "$(echo "$out" | grep -c '^True $')" -ge "$NODE_COUNT" ]
}
wait_for "$NODE_COUNT Ready, untainted nodes" 120 nodes_ready
default_sa() { kubectl_ get serviceaccount default -n default >/dev/null 2>&1; }
wait_for "default service account" 60 default_sa

# A cluster started again on its old state keeps its pods, but while kwok was down the node lifecycle
# controller marked them NotReady, and kwok's stages only make a pod Ready when it starts. Delete the
# NotReady pods that a ReplicaSet or StatefulSet owns: they come back, and kwok makes them Ready
# (without this, a second `make run` shows a FraudEngine whose pods never become ready again).
if [ "${KWOK_STARTED:-0}" = 1 ]; then
  stale=$(kubectl_ get pods -A -o jsonpath='{range .items[*]}{.metadata.namespace} {.metadata.name} {.metadata.ownerReferences[0].kind} {.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' 2>/dev/null \
    | awk '($3 == "ReplicaSet" || $3 == "StatefulSet") && $4 != "True" {print $1 " " $2}')
  if [ -n "$stale" ]; then
    while read -r ns pod; do
      kubectl_ -n "$ns" delete pod "$pod" --wait=false >/dev/null 2>&1 || true
    done <<< "$stale"
    log "recreating $(echo "$stale" | wc -l) simulated pod(s) left NotReady while the cluster was down"
  fi
fi

# The real node (node-lib.sh): VIGIL_REAL_NODE=1 starts it with the cluster (make run, make
# cluster-up); the tests' cluster starts it only for the classes that need it (node-up.sh).
if [ "${VIGIL_REAL_NODE:-0}" = 1 ]; then
  node_up
fi

log "cluster up in $((SECONDS - started_at))s: https://127.0.0.1:$APISERVER_PORT"
echo "  export KUBECONFIG=$KUBECONFIG_OUT"
