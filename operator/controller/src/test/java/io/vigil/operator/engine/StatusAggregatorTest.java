package io.vigil.operator.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.vigil.operator.Fixtures;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.api.v1alpha1.FraudEngineStatus;
import io.vigil.operator.support.OptionalCrds.Crd;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class StatusAggregatorTest {

    static final Instant T0 = Instant.parse("2026-11-21T10:00:00Z");

    static Deployment deployment(int replicas, int ready, int updated, boolean available) {
        return new DeploymentBuilder().withNewMetadata().withName("x").withGeneration(1L).endMetadata()
                .withNewSpec().withReplicas(replicas).endSpec()
                .withNewStatus().withObservedGeneration(1L).withReplicas(replicas).withReadyReplicas(ready)
                .withAvailableReplicas(ready).withUpdatedReplicas(updated)
                .addNewCondition().withType("Available").withStatus(available ? "True" : "False").endCondition()
                .endStatus().build();
    }

    static FraudEngineStatus aggregate(FraudEngine fe, Deployment engine, Set<Crd> missing, Instant now) {
        EnginePlan plan = EnginePlanner.plan(fe, Fixtures.sampleRulesets(fe.getMetadata().getNamespace()));
        return StatusAggregator.aggregate(plan, new Observed(engine, deployment(1, 1, 1, true), null, false, missing, List.of()), now);
    }

    static Condition cond(FraudEngineStatus s, String type) {
        return s.conditions.stream().filter(c -> c.getType().equals(type)).findFirst().orElseThrow();
    }

    @Test
    void externalEngineWithAvailablePodsIsReady() {
        FraudEngine fe = Fixtures.engine("external");
        FraudEngineStatus s = aggregate(fe, deployment(3, 3, 3, true), EnumSet.noneOf(Crd.class), T0);
        assertThat(s.conditions).extracting(Condition::getType).containsExactly(
                "Ready", "RulesetsValid", "VelocityStoreReady", "DurabilityReady", "Progressing", "Degraded");
        assertThat(s.conditions).allSatisfy(c -> assertThat(c.getObservedGeneration()).isEqualTo(3L));
        assertThat(cond(s, "Ready").getStatus()).isEqualTo("True");
        assertThat(cond(s, "Progressing").getStatus()).isEqualTo("False");
        assertThat(cond(s, "Degraded").getStatus()).isEqualTo("False");
        assertThat(s.observedGeneration).isEqualTo(3L);
        assertThat(s.readyReplicas).isEqualTo(3);
        assertThat(s.rulesets).isEqualTo("CARD_AUTH:v1");
        assertThat(s.activeRulesets).singleElement().satisfies(a -> assertThat(a.checksum).hasSize(64));
        assertThat(s.endpoints.data).isEqualTo("http://edge-engine.payments.svc:8081");
    }

    @Test
    void missingKedaDegradesWithAClearMessageButStaysReady() {
        FraudEngine fe = Fixtures.engine("external");
        FraudEngineStatus s = aggregate(fe, deployment(3, 3, 3, true), EnumSet.of(Crd.KEDA_SCALED_OBJECT), T0);
        assertThat(cond(s, "Degraded").getStatus()).isEqualTo("True");
        assertThat(cond(s, "Degraded").getReason()).isEqualTo("KedaNotInstalled");
        assertThat(cond(s, "Degraded").getMessage()).contains("scaledobjects.keda.sh", "not autoscaled");
        assertThat(cond(s, "Ready").getStatus()).isEqualTo("True");
    }

    @Test
    void missingRedisOperatorOrStrimziBlocksReadiness() {
        FraudEngine fe = Fixtures.engine("defaults");
        FraudEngineStatus s = aggregate(fe, deployment(2, 2, 2, true), EnumSet.of(Crd.REDIS, Crd.STRIMZI_KAFKA), T0);
        assertThat(cond(s, "VelocityStoreReady").getReason()).isEqualTo("RedisOperatorNotInstalled");
        assertThat(cond(s, "DurabilityReady").getReason()).isEqualTo("StrimziNotInstalled");
        assertThat(cond(s, "Ready").getStatus()).isEqualTo("False");
        assertThat(cond(s, "Ready").getReason()).isEqualTo("VelocityStoreNotReady");
    }

    @Test
    void rolloutIsProgressingAndTransitionTimesMoveOnlyOnChange() {
        FraudEngine fe = Fixtures.engine("external");
        FraudEngineStatus rolling = aggregate(fe, deployment(3, 3, 1, true), EnumSet.noneOf(Crd.class), T0);
        assertThat(cond(rolling, "Progressing").getStatus()).isEqualTo("True");
        assertThat(cond(rolling, "Ready").getReason()).isEqualTo("RollingOut");

        fe.setStatus(rolling);
        FraudEngineStatus done = aggregate(fe, deployment(3, 3, 3, true), EnumSet.noneOf(Crd.class), T0.plusSeconds(90));
        assertThat(cond(done, "Progressing").getLastTransitionTime()).isEqualTo("2026-11-21T10:01:30Z");
        assertThat(cond(done, "Ready").getLastTransitionTime()).as("Ready stayed True").isEqualTo("2026-11-21T10:00:00Z");
    }

    @Test
    void unavailableEngineIsNotReady() {
        FraudEngineStatus s = aggregate(Fixtures.engine("external"), null, EnumSet.noneOf(Crd.class), T0);
        assertThat(cond(s, "Ready").getReason()).isEqualTo("EngineNotAvailable");
        assertThat(cond(s, "Progressing").getReason()).isEqualTo("Creating");
    }
}
