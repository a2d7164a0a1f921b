package io.vigil.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Who may reach the engine and relay pods (their NetworkPolicies). Egress is not configured here: it
 * follows from spec.velocity and spec.durability (Redis, Kafka) plus DNS.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class NetworkSpec {

    public static final String DEFAULT_CALLER_LABEL = "vigil.io/fraud-caller";
    public static final String DEFAULT_MONITORING_LABEL = "vigil.io/scrape";

    @JsonPropertyDescription("Pod labels of the callers allowed on the decision API (data port). Default vigil.io/fraud-caller: \"true\".")
    public Map<String, String> callerPodLabels = new LinkedHashMap<>(Map.of(DEFAULT_CALLER_LABEL, "true"));

    @JsonPropertyDescription("Labels of the namespaces those callers may run in; empty (the default): any namespace.")
    public Map<String, String> callerNamespaceLabels = new LinkedHashMap<>();

    @JsonPropertyDescription("Labels of the monitoring namespace(s), allowed on the management ports (metrics, health). Default vigil.io/scrape: \"true\".")
    public Map<String, String> monitoringNamespaceLabels = new LinkedHashMap<>(Map.of(DEFAULT_MONITORING_LABEL, "true"));
}
