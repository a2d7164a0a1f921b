package io.vigil.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import java.util.LinkedHashMap;
import java.util.Map;

public class ObservabilitySpec {

    @Default("{}")
    public ServiceMonitor serviceMonitor = new ServiceMonitor();
    @Default("{}")
    public Toggle prometheusRule = new Toggle();
    @Default("{}")
    public Toggle grafanaDashboard = new Toggle();

    public static class ServiceMonitor {
        @Default("true")
        public Boolean enabled = true;

        @JsonPropertyDescription("Extra labels on the ServiceMonitor, e.g. release: kube-prometheus-stack (how that chart selects monitors).")
        public Map<String, String> labels = new LinkedHashMap<>();

        @Default("15s")
        @Pattern(Durations.PATTERN)
        public String interval = "15s";
    }

    public static class Toggle {
        @Default("true")
        public Boolean enabled = true;
    }
}
