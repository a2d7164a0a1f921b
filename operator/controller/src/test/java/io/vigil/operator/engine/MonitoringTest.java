package io.vigil.operator.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.openshift.api.model.monitoring.v1.Rule;
import io.vigil.operator.Fixtures;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.engine.desired.Monitoring;
import java.util.List;
import org.junit.jupiter.api.Test;

class MonitoringTest {

    static List<Rule> alerts(FraudEngine fe) {
        return Monitoring.prometheusRule(fe).getSpec().getGroups().get(1).getRules();
    }

    @Test
    void burnRatesAreTheWorkbooksForAThirtyDayWindow() {
        FraudEngine fe = Fixtures.engine("defaults"); // availability 99.9 → budget 0.001
        String fast = alerts(fe).get(0).getExpr().getStrVal();
        String slow = alerts(fe).get(1).getExpr().getStrVal();
        // 14.4 × 0.001 over 1h/5m, 6 × 0.001 over 6h/30m; 3 × 0.001 over 1d/2h, 1 × 0.001 over 3d/6h
        assertThat(fast).contains("ratio_rate1h{", "> 0.0144", "ratio_rate5m{", "ratio_rate6h{", "> 0.006", "ratio_rate30m{");
        assertThat(slow).contains("ratio_rate1d{", "> 0.003", "ratio_rate2h{", "ratio_rate3d{", "> 0.001", "ratio_rate6h{");
    }

    @Test
    void burnRatesScaleWithTheWindowAndLatencyAlertsUseTheObjectives() {
        FraudEngine fe = Fixtures.engine("replication"); // 99.95 over 28d → budget 0.0005, fast factor 13.44
        assertThat(alerts(fe).get(0).getExpr().getStrVal()).contains("> 0.00672");
        assertThat(alerts(fe)).extracting(Rule::getAlert).contains("VigilAuthLatencyP99AboveObjective");
        assertThat(alerts(fe).stream().filter(r -> r.getAlert().equals("VigilAuthLatencyP99AboveObjective")).findFirst().orElseThrow()
                .getExpr().getStrVal()).endsWith("> 0.008");
    }

    @Test
    void dashboardIsLabelledForGrafanasSidecar() {
        var cm = Monitoring.dashboard(Fixtures.engine("defaults"));
        assertThat(cm.getMetadata().getLabels()).containsEntry("grafana_dashboard", "1");
        assertThat(cm.getData().values()).singleElement().asString().contains("vigil:auth_latency_seconds:p99", "\"value\" : 0.01");
    }
}
