{{/* FraudEngine name: the release name unless overridden. */}}
{{- define "vigil-engine.name" -}}
{{- default .Release.Name .Values.nameOverride | trunc 40 | trimSuffix "-" -}}
{{- end -}}

{{- define "vigil-engine.labels" -}}
app.kubernetes.io/name: vigil-engine
app.kubernetes.io/instance: {{ include "vigil-engine.name" . }}
app.kubernetes.io/part-of: vigil
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* FraudRuleset object name for a key and version: <engine>-card-auth-v2 */}}
{{- define "vigil-engine.rulesetName" -}}
{{- printf "%s-%s-v%d" .engine (.key | lower | replace "_" "-") (int .version) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
The rulesets as a list of {key, version, description, active, document}: the samples (when enabled)
followed by .Values.rulesets.
*/}}
{{- define "vigil-engine.rulesets" -}}
{{- $out := list -}}
{{- if .Values.sampleRulesets -}}
{{- range $path, $_ := .Files.Glob "files/rulesets/*" -}}
{{- $doc := $.Files.Get $path | fromYaml -}}
{{- $out = append $out (dict "key" $doc.ruleset_key "version" $doc.ruleset_version "description" (default "" $doc.description) "active" true "document" $doc) -}}
{{- end -}}
{{- end -}}
{{- range $i, $r := .Values.rulesets -}}
{{- $doc := $r.document -}}
{{- if $r.documentText -}}
{{- $doc = fromYaml $r.documentText -}}
{{- if hasKey $doc "Error" -}}
{{- fail (printf "rulesets[%d].documentText: not YAML/JSON: %s" $i (get $doc "Error")) -}}
{{- end -}}
{{- end -}}
{{- if not $doc -}}
{{- fail (printf "rulesets[%d]: document or documentText is required" $i) -}}
{{- end -}}
{{- $active := true -}}
{{- if hasKey $r "active" }}{{ $active = $r.active }}{{ end -}}
{{- $out = append $out (dict "key" $r.key "version" $r.version "description" (default "" $r.description) "active" $active "document" $doc) -}}
{{- end -}}
{{- toJson (dict "items" $out) -}}
{{- end -}}

{{/*
The engine histogram's `le` label for an objective in milliseconds. Only bucket boundaries of the
engine's vigil_evaluate_seconds histogram (EngineMetrics.LATENCY_BUCKETS) can be SLO objectives,
spelled as the engine's /q/metrics spells them.
*/}}
{{- define "vigil-engine.le" -}}
{{- $les := dict "1" "0.001" "1.5" "0.0015" "2" "0.002" "3" "0.003" "5" "0.005" "7.5" "0.0075" "10" "0.01" "20" "0.02" "50" "0.05" "100" "0.1" -}}
{{- $key := toString . -}}
{{- if not (hasKey $les $key) -}}
{{- fail (printf "slo objective %s ms is not a bucket boundary of the engine's latency histogram (one of 1, 1.5, 2, 3, 5, 7.5, 10, 20, 50, 100)" $key) -}}
{{- end -}}
{{- get $les $key -}}
{{- end -}}

{{/* spec.slo.window in hours: 30d -> 720 (the burn-rate factors scale with it). */}}
{{- define "vigil-engine.windowHours" -}}
{{- $w := toString . -}}
{{- if regexMatch "^[0-9]+d$" $w -}}{{ mul (trimSuffix "d" $w | int) 24 }}
{{- else if regexMatch "^[0-9]+h$" $w -}}{{ trimSuffix "h" $w | int }}
{{- else if regexMatch "^[0-9]+w$" $w -}}{{ mul (trimSuffix "w" $w | int) 168 }}
{{- else -}}{{ fail (printf "slo.window %q: use hours, days or weeks (720h, 30d, 4w)" $w) }}
{{- end -}}
{{- end -}}

{{/*
The SLO rules: files/rules/vigil-slo.rules.yaml with its placeholders substituted exactly as the
operator substitutes them from a FraudEngine (same names: <name>-engine-management and
<name>-relay-management are the Services the operator's ServiceMonitor scrapes, so they are the jobs).
*/}}
{{- define "vigil-engine.sloRules" -}}
{{- $name := include "vigil-engine.name" . -}}
{{- $ns := .Release.Namespace -}}
{{- $slo := .Values.slo -}}
{{- $text := .Files.Get "files/rules/vigil-slo.rules.yaml" -}}
{{- $text = replace "${engineSelector}" (printf "namespace=%q,job=%q" $ns (printf "%s-engine-management" $name)) $text -}}
{{- $text = replace "${relaySelector}" (printf "namespace=%q,job=%q" $ns (printf "%s-relay-management" $name)) $text -}}
{{- $text = replace "${engine}" $name $text -}}
{{- $text = replace "${namespace}" $ns $text -}}
{{- $text = replace "${availabilityPercent}" (toString $slo.availability) $text -}}
{{- $text = replace "${p50Le}" (include "vigil-engine.le" $slo.p50Ms) $text -}}
{{- $text = replace "${p95Le}" (include "vigil-engine.le" $slo.p95Ms) $text -}}
{{- $text = replace "${p99Le}" (include "vigil-engine.le" $slo.p99Ms) $text -}}
{{- $text = replace "${windowHours}" (include "vigil-engine.windowHours" $slo.window) $text -}}
{{- $text = replace "${window}" (toString $slo.window) $text -}}
{{- $text -}}
{{- end -}}
