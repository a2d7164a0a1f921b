package io.vigil.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.ArrayList;
import java.util.List;

@JsonInclude(JsonInclude.Include.NON_NULL)
public class FraudEngineSpec {

    @Required
    @Size(min = 1, max = 16)
    @ValidationRule(value = "self.all(r, self.exists_one(s, s.key == r.key))",
            message = "each ruleset key may appear only once in spec.rulesets")
    @JsonPropertyDescription("Ruleset key/version pairs the engine must serve; each resolves to a FraudRuleset in the same namespace.")
    public List<RulesetRef> rulesets = new ArrayList<>();

    @JsonPropertyDescription("The engine Deployment: image, size, resources, JVM options and request handling.")
    @Default("{}")
    public EngineSpec engine = new EngineSpec();

    @Required
    @JsonPropertyDescription("Where velocity counters live (Redis) and how the engine talks to it.")
    public VelocitySpec velocity = new VelocitySpec();

    @Required
    @JsonPropertyDescription("The asynchronous path of decision events: outbox queue, Redis stream, relay, Kafka.")
    public DurabilitySpec durability = new DurabilitySpec();

    @JsonPropertyDescription("Service level objectives; they drive the PrometheusRule and the dashboard thresholds.")
    @Default("{}")
    public SloSpec slo = new SloSpec();

    @JsonPropertyDescription("Who may reach the engine and relay pods: the callers of the decision API and the monitoring namespace (NetworkPolicies).")
    @Default("{}")
    public NetworkSpec network = new NetworkSpec();

    @JsonPropertyDescription("Which nodes the engine and relay pods may run on: node selector and tolerations of both pod templates.")
    @Default("{}")
    public SchedulingSpec scheduling = new SchedulingSpec();

    @JsonPropertyDescription("Who may call the engine: bearer JWT and/or mutual TLS on the data port, JWT scopes on the management port (ADR 0013). Off by default.")
    @Default("{}")
    public AuthSpec auth = new AuthSpec();

    @JsonPropertyDescription("Personal data kept out of decision events: fields hashed (HMAC, keyed) or dropped from the embedded request.")
    @Default("{}")
    public PersonalDataSpec personalData = new PersonalDataSpec();

    @JsonPropertyDescription("Monitoring resources the operator renders (each switchable).")
    @Default("{}")
    public ObservabilitySpec observability = new ObservabilitySpec();
}
