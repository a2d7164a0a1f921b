package io.vigil.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.ArrayList;
import java.util.List;

@JsonInclude(JsonInclude.Include.NON_NULL)
public class FraudEngineStatus {

    @JsonPropertyDescription("metadata.generation of the spec this status describes.")
    public Long observedGeneration;

    @JsonPropertyDescription("Ready, RulesetsValid, SecretsValid, VelocityStoreReady, DurabilityReady, Progressing, Degraded; each with its own observedGeneration.")
    public List<Condition> conditions = new ArrayList<>();

    @JsonPropertyDescription("Ruleset versions the engine pods are configured with.")
    public List<ActiveRuleset> activeRulesets = new ArrayList<>();

    @JsonPropertyDescription("Active rulesets in one line for kubectl, e.g. CARD_AUTH:v7,CARD_MONITORING:v3.")
    public String rulesets;

    public Integer replicas;
    public Integer readyReplicas;
    public Integer relayReplicas;

    public Endpoints endpoints;

    public static class ActiveRuleset {
        public String key;
        public Integer version;
        @JsonPropertyDescription("SHA-256 of the ruleset's canonical content (the rules library's checksum).")
        public String checksum;
        @JsonPropertyDescription("The immutable ConfigMap holding this version.")
        public String configMap;

        public ActiveRuleset() {
        }

        public ActiveRuleset(String key, int version, String checksum, String configMap) {
            this.key = key;
            this.version = version;
            this.checksum = checksum;
            this.configMap = configMap;
        }
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Endpoints {
        @JsonPropertyDescription("In-cluster URL of the decision API.")
        public String data;
        @JsonPropertyDescription("In-cluster URL of the management API (health, metrics).")
        public String management;
    }
}
