{{- define "vigil-operator.fullname" -}}
{{- if contains "vigil-operator" .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-vigil-operator" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "vigil-operator.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "vigil-operator.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "vigil-operator.selectorLabels" -}}
app.kubernetes.io/name: vigil-operator
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "vigil-operator.labels" -}}
{{ include "vigil-operator.selectorLabels" . }}
app.kubernetes.io/part-of: vigil
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* Default image of a FraudEngine workload ("engine" or "relay"): images.<name>, else beside the operator image with its tag. */}}
{{- define "vigil-operator.workloadImage" -}}
{{- $root := index . 0 -}}
{{- $name := index . 1 -}}
{{- $explicit := index $root.Values.images $name -}}
{{- if $explicit -}}
{{- $explicit -}}
{{- else -}}
{{- printf "%s/%s:%s" (dir $root.Values.image.repository) $name (default $root.Chart.AppVersion $root.Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{/* The namespaced rules: everything the operator reads and writes next to a FraudEngine. */}}
{{- define "vigil-operator.namespacedRules" -}}
- apiGroups: [vigil.io]
  resources: [fraudengines, fraudrulesets, fraudloadtests]
  verbs: [get, list, watch, patch, update]
- apiGroups: [vigil.io]
  resources: [fraudengines/status, fraudrulesets/status, fraudloadtests/status]
  verbs: [get, patch, update]
- apiGroups: [vigil.io]
  resources: [fraudengines/finalizers, fraudrulesets/finalizers, fraudloadtests/finalizers]
  verbs: [update]
# Owned objects (server-side apply; garbage-collected through owner references).
- apiGroups: [""]
  resources: [configmaps, services, serviceaccounts]
  verbs: [get, list, watch, create, patch, update, delete]
- apiGroups: [""]
  resources: [events]
  verbs: [create, patch]
# Secrets, read only: the ones spec.auth and spec.personalData name are checked before an engine pod
# mounts them (SecretsValid), and watched so a fixed one clears the condition. Never written or copied:
# the engine and relay get them by reference (volumes, secretKeyRef).
- apiGroups: [""]
  resources: [secrets]
  verbs: [get, list, watch]
- apiGroups: [apps]
  resources: [deployments]
  verbs: [get, list, watch, create, patch, update, delete]
# Managed Redis health: the StatefulSets redis-operator creates for it (read only).
- apiGroups: [apps]
  resources: [statefulsets]
  verbs: [get, list, watch]
- apiGroups: [autoscaling]
  resources: [horizontalpodautoscalers]
  verbs: [get, list, watch, create, patch, update, delete]
- apiGroups: [policy]
  resources: [poddisruptionbudgets]
  verbs: [get, list, watch, create, patch, update, delete]
- apiGroups: [networking.k8s.io]
  resources: [networkpolicies]
  verbs: [get, list, watch, create, patch, update, delete]
# A FraudLoadTest's verdict is read from the k6 runner Jobs and their pods (created by the operator
# itself where it runs the TestRuns, ADR 0014); the engine and relay pods are watched for why they do
# not start (image pull, crash loop) (read only).
- apiGroups: [batch]
  resources: [jobs]
  verbs: [get, list, watch, create]
- apiGroups: [""]
  resources: [pods]
  verbs: [get, list, watch]
{{- if .Values.rbac.keda }}
- apiGroups: [keda.sh]
  resources: [scaledobjects, triggerauthentications]
  verbs: [get, list, watch, create, patch, update, delete]
{{- end }}
{{- if .Values.rbac.monitoring }}
- apiGroups: [monitoring.coreos.com]
  resources: [servicemonitors, prometheusrules]
  verbs: [get, list, watch, create, patch, update, delete]
{{- end }}
{{- if .Values.rbac.strimzi }}
- apiGroups: [kafka.strimzi.io]
  resources: [kafkas, kafkanodepools, kafkatopics]
  verbs: [get, list, watch, create, patch, update, delete]
{{- end }}
{{- if .Values.rbac.redisOperator }}
- apiGroups: [redis.redis.opstreelabs.in]
  resources: [redis, redisreplications, redissentinels, redisclusters]
  verbs: [get, list, watch, create, patch, update, delete]
{{- end }}
{{- if .Values.rbac.certManager }}
- apiGroups: [cert-manager.io]
  resources: [certificates]
  verbs: [get, list, watch, create, patch, update, delete]
{{- end }}
{{- if .Values.rbac.k6 }}
- apiGroups: [k6.io]
  resources: [testruns]
  verbs: [get, list, watch, create, patch, update, delete]
- apiGroups: [k6.io]
  resources: [testruns/status]
  verbs: [get, patch, update]
{{- end }}
{{- end -}}
