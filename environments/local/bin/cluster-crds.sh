#!/usr/bin/env bash
# Installs (or with --uninstall removes) third-party CRDs the operator works with, one set at a time,
# so "CRD missing" behaviour can be tested:
#   cluster-crds.sh [--uninstall] [keda|monitoring|k6|strimzi|redis|certmanager|all]...
#   keda        ScaledObject, TriggerAuthentication   (YAML from the KEDA Go module)
#   monitoring  ServiceMonitor, PrometheusRule         (YAML from the prometheus-operator Go module)
#   k6          TestRun                                (YAML from the k6-operator Go module)
#   strimzi     Kafka, KafkaNodePool, KafkaTopic       (minimal fixture: environments/local/crds/strimzi.yaml)
#   redis       Redis, RedisReplication, RedisSentinel, RedisCluster (environments/local/crds/redis-operator.yaml)
#   certmanager Certificate                            (YAML from the cert-manager Go module; not in "all":
#               nothing of make run asks for a Certificate, and no cert-manager controller runs here)
# The cluster must be up (make cluster-up). Waits until installed CRDs are Established, and until
# removed ones are gone.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/cluster-lib.sh"

mode=install
sets=()
for a in "$@"; do
  case "$a" in
    --uninstall|--delete) mode=uninstall ;;
    all) sets+=(keda monitoring k6 strimzi redis) ;;
    keda|monitoring|k6|strimzi|redis|certmanager) sets+=("$a") ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) die "unknown CRD set '$a' (known: keda monitoring k6 strimzi redis certmanager all)" ;;
  esac
done
[ ${#sets[@]} -gt 0 ] || sets=(keda monitoring k6 strimzi redis)

[ -f "$COMPONENT_KUBECONFIG" ] && running_pid kube-apiserver >/dev/null \
  || die "the local cluster is not running: make cluster-up"
KUBECTL=$(tool kubectl)

# files <set>: the YAML files of one set (module files are read from the Go module cache).
files() {
  local d
  case "$1" in
    keda) d=$(module_dir "$KEDA_MODULE")/config/crd/bases
      echo "$d/keda.sh_scaledobjects.yaml" "$d/keda.sh_triggerauthentications.yaml" ;;
    monitoring) d=$(module_dir "$PROMETHEUS_OPERATOR_MODULE")/example/prometheus-operator-crd
      echo "$d/monitoring.coreos.com_servicemonitors.yaml" "$d/monitoring.coreos.com_prometheusrules.yaml" ;;
    k6) echo "$(module_dir "$K6_OPERATOR_MODULE")/config/crd/bases/k6.io_testruns.yaml" ;;
    certmanager) echo "$(module_dir "$CERT_MANAGER_MODULE")/deploy/crds/cert-manager.io_certificates.yaml" ;;
    strimzi) echo "$ROOT/environments/local/crds/strimzi.yaml" ;;
    redis) echo "$ROOT/environments/local/crds/redis-operator.yaml" ;;
  esac
}

for s in "${sets[@]}"; do
  read -r -a fs <<< "$(files "$s")"
  args=()
  for f in "${fs[@]}"; do [ -f "$f" ] || die "missing CRD file $f"; args+=(-f "$f"); done
  names=$(kubectl_ create --dry-run=client -o name "${args[@]}" | tr '\n' ' ')
  if [ "$mode" = install ]; then
    # Server-side apply: some upstream CRDs exceed the client-side last-applied annotation limit.
    kubectl_ apply --server-side --force-conflicts --field-manager vigil-local "${args[@]}" >/dev/null
    # A just-created CRD may have no status.conditions yet, and `kubectl wait` fails on that
    # instead of waiting: retry until Established or 60 s.
    deadline=$((SECONDS + 60))
    # shellcheck disable=SC2086
    until kubectl_ wait --for condition=Established --timeout 10s $names >/dev/null 2>&1; do
      [ $SECONDS -lt $deadline ] || { kubectl_ wait --for condition=Established --timeout 1s $names; die "$s CRDs not Established within 60 s"; }
      sleep 1
    done
    # Established is not enough: the API server's storage of a new kind (its watch cache) may still be
    # initializing, and a CRD deleted then cannot list its objects ("storage is (re)initializing"): its
    # finalizer backs off, and the deletion took over 150 s once in CI. Wait until the kind lists from
    # the cache (resourceVersion=0 is answered by it).
    deadline=$((SECONDS + 60))
    for n in $names; do
      path=$(kubectl_ get "$n" -o jsonpath='/apis/{.spec.group}/{.spec.versions[?(@.storage==true)].name}/{.spec.names.plural}')
      until kubectl_ get --raw "$path?limit=1&resourceVersion=0" >/dev/null 2>&1; do
        [ $SECONDS -lt $deadline ] || { kubectl_ get --raw "$path?limit=1&resourceVersion=0"; die "$s: $path not listable within 60 s"; }
        sleep 0.5
      done
    done
    log "installed $s CRDs: ${names//customresourcedefinition.apiextensions.k8s.io\//}"
  else
    # The API server's CRD finalizer deletes every object of the kind first, and its own wait for
    # that gives up after 60 s and starts over (seen once on a fresh CI cluster): allow two rounds,
    # and say what the CRD reports if even that is not enough.
    # shellcheck disable=SC2086
    if ! kubectl_ delete --ignore-not-found --wait --timeout 150s $names >/dev/null; then
      kubectl_ get $names -o jsonpath='{range .items[*]}{.metadata.name}: {.status.conditions}{"\n"}{end}' >&2 || true
      die "$s CRDs not removed within 150 s"
    fi
    log "removed $s CRDs: ${names//customresourcedefinition.apiextensions.k8s.io\//}"
  fi
done
