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
# Owned objects (server-side apply; garbage-collected through owner references). No secrets: the
# engine and relay get them by reference (secretKeyRef/envFrom), the operator never reads them.
- apiGroups: [""]
  resources: [configmaps, services, serviceaccounts]
  verbs: [get, list, watch, create, patch, update, delete]
- apiGroups: [""]
  resources: [events]
  verbs: [create, patch]
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
# A FraudLoadTest's verdict is read from the k6 runner Jobs and their pods (read only).
- apiGroups: [batch]
  resources: [jobs]
  verbs: [get, list, watch]
- apiGroups: [""]
  resources: [pods]
  verbs: [get, list]
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
{{- if .Values.rbac.k6 }}
- apiGroups: [k6.io]
  resources: [testruns]
  verbs: [get, list, watch, create, patch, update, delete]
{{- end }}
{{- end -}}
