package io.vigil.operator.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.openshift.api.model.monitoring.v1.PrometheusRuleSpec;
import io.fabric8.openshift.api.model.monitoring.v1.Rule;
import io.vigil.operator.Fixtures;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.engine.desired.SloRuleSource;
import org.junit.jupiter.api.Test;

/** The operator renders the shared SLO rule source (charts/vigil-engine/files/rules) for a FraudEngine. */
class SloRuleSourceTest {

    @Test
    void rendersEveryPlaceholderFromTheSpecAndTheNamesTheServiceMonitorScrapes() {
        FraudEngine fe = Fixtures.engine("defaults");
        String rules = SloRuleSource.render(fe);
        assertThat(rules).doesNotContainPattern("(?m)^[^#]*\\$\\{[A-Za-z]");
        String ns = fe.getMetadata().getNamespace();
        assertThat(rules).contains("job=\"" + Names.engineManagement(fe) + "\"", "namespace=\"" + ns + "\"",
                "le=\"0.005\"", "le=\"0.01\"", "[30d]", "(14.4 * 720 / 720) * (1 - 99.9 / 100)",
                "vigil_engine: \"" + fe.getMetadata().getName() + "\"");
    }

    @Test
    void theSpecHasTheRecordingAndTheAlertingGroup() {
        PrometheusRuleSpec spec = SloRuleSource.spec(Fixtures.engine("defaults"));
        assertThat(spec.getGroups()).extracting(g -> g.getName()).containsExactly("vigil-slo-recording", "vigil-slo-alerts");
        assertThat(spec.getGroups().get(1).getRules()).extracting(Rule::getAlert)
                .contains("VigilAuthAvailabilityBudgetBurn", "VigilAuthLatencyP99BudgetBurn", "VigilAuthFailOpen",
                        "VigilOutboxDropping", "VigilRelayStalled", "VigilRelayDeadLetters");
        assertThat(spec.getGroups().get(1).getRules().get(0).getAnnotations()).containsKeys("summary", "description", "runbook_url");
    }

    @Test
    void anObjectiveThatIsNotAHistogramBoundaryIsRefusedWithItsField() {
        FraudEngine fe = Fixtures.engine("defaults");
        fe.getSpec().slo.p99Ms = 8.0;
        assertThatThrownBy(() -> SloRuleSource.render(fe)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("spec.slo.p99Ms: 8.0 ms is not a boundary");
    }
}
