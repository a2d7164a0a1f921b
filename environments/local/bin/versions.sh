# Pinned versions of the local Kubernetes environment (sourced by tools.sh and the cluster-*.sh scripts).
# Kubernetes and etcd are pinned in environments/local/kube/go.mod; these must match it.
K8S_VERSION=v1.32.4
ETCD_VERSION=v3.5.16
KWOK_VERSION=v0.8.0
HELM_VERSION=v3.16.4
K6_VERSION=v1.8.1
# Go modules whose YAML provides third-party CRDs (cluster-crds.sh).
KEDA_MODULE=github.com/kedacore/keda/v2@v2.20.2
PROMETHEUS_OPERATOR_MODULE=github.com/prometheus-operator/prometheus-operator@v0.93.0
K6_OPERATOR_MODULE=github.com/grafana/k6-operator@v1.5.0
CERT_MANAGER_MODULE=github.com/cert-manager/cert-manager@v1.21.2
