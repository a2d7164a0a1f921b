package io.vigil.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.ValidationRule;

@ValidationRule(value = "self.p50Ms <= self.p95Ms && self.p95Ms <= self.p99Ms",
        message = "slo latencies must be ordered: p50Ms <= p95Ms <= p99Ms")
// Latency SLIs count requests under the objective from the engine's histogram buckets, which is exact
// only at a bucket boundary: anything else would give alerts that silently never fire.
@ValidationRule(value = "[self.p50Ms, self.p95Ms, self.p99Ms].all(o, " + SloSpec.BOUNDARIES + ".exists(b, b == o))",
        message = "slo latencies must be boundaries of the engine's latency histogram: "
                + "0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 1.5, 2, 3, 5, 7.5, 10, 20, 50, 100 ms")
public class SloSpec {
    /** The engine's latency histogram boundaries in ms (kept equal to the engine's meter configuration). */
    public static final String BOUNDARIES = "[0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0, 7.5, 10.0, 20.0, 50.0, 100.0]";

    @Default("2.0")
    @Min(0.01)
    @JsonPropertyDescription("Median AUTH latency objective, milliseconds.")
    public Double p50Ms = 2.0;

    @Default("5.0")
    @Min(0.01)
    public Double p95Ms = 5.0;

    @Default("10.0")
    @Min(0.01)
    public Double p99Ms = 10.0;

    @Default("99.9")
    @Min(90)
    @Max(99.999)
    @JsonPropertyDescription("Availability objective in percent: share of AUTH requests answered NORMAL within the p99 objective.")
    public Double availability = 99.9;

    @Default("30d")
    @Pattern(Durations.PATTERN)
    @JsonPropertyDescription("SLO window for error-budget accounting.")
    public String window = "30d";
}
