package io.vigil.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;

/** Sketch of the load-test API; the reconciler is a later issue. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class FraudLoadTestSpec {

    @Required
    public Target target;

    @Default("constant-arrival-rate")
    @Pattern("^(constant-arrival-rate|ramp|spike|soak)$")
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
        public Double p95Ms;
        @Min(0.01)
        public Double p99Ms;
        @Min(0)
        @Max(1)
        @JsonPropertyDescription("Highest acceptable share of failed or non-NORMAL answers.")
        public Double errorRate;
    }
}
