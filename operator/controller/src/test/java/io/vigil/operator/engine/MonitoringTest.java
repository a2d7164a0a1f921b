package io.vigil.operator.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.openshift.api.model.monitoring.v1.Rule;
import io.fabric8.openshift.api.model.monitoring.v1.RuleGroup;
import io.vigil.operator.Fixtures;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.engine.desired.Monitoring;
import io.vigil.operator.engine.desired.SloRuleSource;
import java.util.List;
import org.junit.jupiter.api.Test;

class MonitoringTest {

    static List<Rule> rules(FraudEngine fe) {
        return Monitoring.prometheusRule(fe).getSpec().getGroups().stream().map(RuleGroup::getRules).flatMap(List::stream).toList();
    }

    static List<Rule> alerts(FraudEngine fe, String name) {
        return rules(fe).stream().filter(r -> name.equals(r.getAlert())).toList();
    }

    @Test
    void prometheusRuleIsTheSharedRuleSourceRenderedForTheEngine() {
        FraudEngine fe = Fixtures.engine("defaults");
        var rule = Monitoring.prometheusRule(fe);
        // One rule source for the chart and the operator: the spec is exactly the rendered shared file.
        assertThat(rule.getSpec()).isEqualTo(SloRuleSource.spec(fe));
        assertThat(rule.getMetadata().getOwnerReferences()).singleElement()
                .satisfies(o -> assertThat(o.getKind()).isEqualTo("FraudEngine"));
        assertThat(rules(fe)).extracting(Rule::getRecord).contains("vigil:auth_latency_seconds:p99");
    }

    @Test
    void burnRateTiersAreTheWorkbooksScaledToTheWindow() {
        FraudEngine fe = Fixtures.engine("defaults"); // 30d → 720 h, 99.9 %
        List<Rule> burn = alerts(fe, "VigilAuthAvailabilityBudgetBurn");
        assertThat(burn).extracting(r -> r.getLabels().get("burn_factor")).containsExactly("14.4", "6", "3", "1");
        assertThat(burn.get(0).getExpr().getStrVal()).contains("(14.4 * 720 / 720) * (1 - 99.9 / 100)");

        FraudEngine other = Fixtures.engine("replication"); // 28d → 672 h, 99.95 %
        assertThat(alerts(other, "VigilAuthAvailabilityBudgetBurn").get(0).getExpr().getStrVal())
                .contains("(14.4 * 672 / 720) * (1 - 99.95 / 100)");
    }

    @Test
    void latencyObjectivesBecomeHistogramBoundaries() {
        FraudEngine fe = Fixtures.engine("replication"); // p99 7.5 ms
        assertThat(rules(fe)).anySatisfy(r -> assertThat(r.getExpr().getStrVal()).contains("le=\"0.0075\""));
        assertThat(alerts(fe, "VigilAuthLatencyP99BudgetBurn")).hasSize(4);
    }

    @Test
    void dashboardIsLabelledForGrafanasSidecar() {
        var cm = Monitoring.dashboard(Fixtures.engine("defaults"));
        assertThat(cm.getMetadata().getLabels()).containsEntry("grafana_dashboard", "1");
        assertThat(cm.getData().values()).singleElement().asString().contains("vigil:auth_latency_seconds:p99", "\"value\" : 0.01");
    }
}
