# The sample FraudEngine as it runs on the local cluster's real node (ADR 0008), shared by
# operator-sample.sh and auth-probe.sh. Needs ROOT, BIN, a k() kubectl function and process-lib.sh.

# Imports the engine, relay and load-test runner images into the real node (no registry), then prints the
# merge patch that puts the sample there: placement, its own images, the stores of `make run` by the
# host's address (pods cannot reach the host's 127.0.0.1), one replica (2 cores).
real_node_sample_patch() {
  local host image
  host=$(pod_reachable_host)
  for image in engine relay loadtest-runner; do
    VIGIL_CLUSTER_DIR="$ROOT/.local/cluster" "$BIN/node-import.sh" "$("$BIN/images.sh" archive "$image")" >&2
  done
  cat <<JSON
{"spec": {
  "engine": {"replicas": 1, "image": "$("$BIN/images.sh" ref engine)"},
  "velocity": {"redis": {"external": {"address": "$host:${VIGIL_REDIS_PORT:-16379}"}}},
  "durability": {"relay": {"image": "$("$BIN/images.sh" ref relay)"}, "kafka": {"external": {"bootstrapServers": "$host:${VIGIL_KAFKA_POD_PORT:-19094}"}}},
  "scheduling": {"nodeSelector": {"vigil.io/node": "real"},
                 "tolerations": [{"key": "vigil.io/real-node", "operator": "Exists", "effect": "NoSchedule"}]}}}
JSON
}

# Whether the cluster's real node is up and Ready.
real_node_ready() {
  [ "$(k get node vigil-real-node -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null)" = True ]
}
