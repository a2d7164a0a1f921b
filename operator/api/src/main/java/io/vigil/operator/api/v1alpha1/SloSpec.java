package io.vigil.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.ValidationRule;

@ValidationRule(value = "self.p50Ms <= self.p95Ms && self.p95Ms <= self.p99Ms",
        message = "slo latencies must be ordered: p50Ms <= p95Ms <= p99Ms")
public class SloSpec {
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
