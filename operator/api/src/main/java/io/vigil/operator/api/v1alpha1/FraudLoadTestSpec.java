package io.vigil.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.kubernetes.api.model.ResourceRequirements;

/**
 * An in-cluster k6 run against a FraudEngine. The operator renders the scenario's script ConfigMap
 * (from the same k6 sources as the local runs, loadtests/k6) and a k6-operator TestRun; see
 * docs/loadtests.md. Any change of the spec (for example {@link #rerun}) is a new run.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class FraudLoadTestSpec {

    @Required
    public Target target;

    @Default("constant-arrival-rate")
    @Pattern("^(constant-arrival-rate|ramp|spike|soak|smoke|mixed)$")
    @JsonPropertyDescription("constant-arrival-rate: open loop at rate; ramp: open-loop ladder 10%, 20%, 50%, 100% of rate; "
            + "spike: 10% of rate, a jump to rate and back; soak: rate for a long duration; smoke: a few checked requests; "
            + "mixed: AUTH and MONITORING on one open-loop rate.")
    public String scenario = "constant-arrival-rate";

    @Default("1000")
    @Min(1)
    @JsonPropertyDescription("Requests per second (the peak for ramp and spike).")
    public Integer rate = 1000;

    @Default("5m")
    @Pattern(Durations.PATTERN)
    public String duration = "5m";

    @Default("1")
    @Min(1)
    @Max(64)
    @JsonPropertyDescription("k6 runner pods.")
    public Integer parallelism = 1;

    @JsonPropertyDescription("Pass/fail thresholds; unset values default to the target engine's SLO.")
    public Thresholds thresholds;

    @JsonPropertyDescription("The k6 runner pods: image, resources, placement and caller credentials (tokens, client certificate).")
    public Runner runner;

    @Min(0)
    @JsonPropertyDescription("Change (e.g. increment) to run the same test again: every spec change is a new run.")
    public Integer rerun;

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Runner {
        @JsonPropertyDescription("k6 image; defaults to the k6 release the local tools use.")
        public String image;

        @JsonPropertyDescription("Resources of each runner pod; default requests 1 CPU and 512Mi, limit 1Gi memory.")
        public ResourceRequirements resources;

        @JsonPropertyDescription("Placement of the runner pods (pod spec nodeSelector and tolerations), e.g. load generators "
                + "kept off the engine's nodes, or the local cluster's real node.")
        public SchedulingSpec scheduling;

        @JsonPropertyDescription("Bearer tokens the runners send (a Secret key holding one token a line; each k6 VU uses one). "
                + "Required when the target FraudEngine has spec.auth.data.jwt: mounted read-only and passed as TOKENS_FILE.")
        public SecretKeyRef tokensSecretRef;

        @JsonPropertyDescription("The client certificate the runners present (mutual TLS). Required when the target FraudEngine has "
                + "spec.auth.data.mutualTls: the runners then call its data port over HTTPS.")
        public ClientCertificate clientCertificate;
    }

    /** A kubernetes.io/tls Secret as cert-manager writes it: the runners' certificate, its key, and the CA they trust. */
    public static class ClientCertificate {
        @Required
        @JsonPropertyDescription("Secret with the runners' certificate (tls.crt) and private key (tls.key, PEM), issued by a CA the "
                + "engine trusts (its spec.auth.tls.clientCaSecretRef).")
        public String secretName;

        @Default("ca.crt")
        @JsonPropertyDescription("Key of the same Secret holding the CA that signed the engine's serving certificate (cert-manager "
                + "writes ca.crt): the runners trust that CA alone, and check the engine's name <engine>-engine.<namespace>.svc.")
        public String serverCaKey = "ca.crt";
    }

    public static class Target {
        @Required
        @JsonPropertyDescription("Name of the FraudEngine in the same namespace.")
        public String fraudEngine;

        @Default("/v1/evaluate/auth")
        public String path = "/v1/evaluate/auth";
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Thresholds {
        @Min(0.01)
        public Double p50Ms;
        @Min(0.01)
        public Double p95Ms;
        @Min(0.01)
        public Double p99Ms;
        @Min(0)
        @Max(1)
        @JsonPropertyDescription("Highest acceptable share of failed or non-NORMAL answers.")
        public Double errorRate;
    }
}
