package io.vigil.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.ResourceRequirements;

@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "!(has(self.replicas) && has(self.autoscaling))",
        message = "set either engine.replicas or engine.autoscaling, not both")
public class EngineSpec {

    /** Operator-side default when neither replicas nor autoscaling is set. */
    public static final int DEFAULT_REPLICAS = 2;

    @JsonPropertyDescription("Engine container image. Default: the engine image of the operator's own release (the operator chart's"
            + " images.engine, env VIGIL_OPERATOR_ENGINE_IMAGE), so an operator upgrade rolls engines onto the matching version.")
    public String image;

    @Default("IfNotPresent")
    @Pattern("^(Always|IfNotPresent|Never)$")
    public String imagePullPolicy = "IfNotPresent";

    @Min(0)
    @Max(200)
    @JsonPropertyDescription("Fixed number of engine pods (default 2 when autoscaling is not set).")
    public Integer replicas;

    @JsonPropertyDescription("CPU-based autoscaling bounds; the operator renders a HorizontalPodAutoscaler and leaves spec.replicas to it.")
    public Autoscaling autoscaling;

    @JsonPropertyDescription("Container resources of the engine.")
    public ResourceRequirements resources;

    // MetaspaceSize: the engine's classes settle near 36 MB; the default 21 MB threshold made the first new
    // code path (a Redis outage's) trigger a full collection, a 55-136 ms pause (docs/performance.md).
    @Default("-XX:MaxRAMPercentage=75 -XX:+UseParallelGC -XX:MetaspaceSize=64m")
    @JsonPropertyDescription("JVM options (JAVA_TOOL_OPTIONS).")
    public String jvmOptions = "-XX:MaxRAMPercentage=75 -XX:+UseParallelGC -XX:MetaspaceSize=64m";

    @Default("5ms")
    @Pattern(Durations.PATTERN)
    @JsonPropertyDescription("Deadline per AUTH request; past it the answer is DEGRADED/DEADLINE_EXCEEDED.")
    public String deadline = "5ms";

    @Default("2000")
    @Min(1)
    @JsonPropertyDescription("Load-shedding limit: maximum requests in flight per pod (vigil.engine.max-in-flight); beyond it requests are answered LOAD_SHED.")
    public Integer loadShedLimit = 2000;

    @Default("SKIP")
    @JsonPropertyDescription("What velocity rules do when Redis cannot answer in time: SKIP (fail open) or EXCEEDED (fail closed).")
    public VelocityFailurePolicy velocityFailurePolicy = VelocityFailurePolicy.SKIP;

    public enum VelocityFailurePolicy {
        SKIP, EXCEEDED
    }

    @ValidationRule(value = "self.minReplicas <= self.maxReplicas",
            message = "engine.autoscaling.minReplicas must not exceed maxReplicas")
    public static class Autoscaling {
        @Default("2")
        @Min(1)
        public Integer minReplicas = 2;

        @Default("10")
        @Min(1)
        @Max(200)
        public Integer maxReplicas = 10;

        @Default("70")
        @Min(1)
        @Max(100)
        @JsonPropertyDescription("Average CPU utilisation (percent of requests) the HPA aims for.")
        public Integer targetCpuUtilization = 70;
    }
}
