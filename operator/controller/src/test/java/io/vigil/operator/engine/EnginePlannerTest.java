package io.vigil.operator.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.vigil.operator.Fixtures;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.api.v1alpha1.FraudEngineStatus;
import io.vigil.operator.api.v1alpha1.FraudRuleset;
import io.vigil.operator.api.v1alpha1.RulesetRef;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class EnginePlannerTest {

    static List<FraudRuleset> rulesets() {
        return new ArrayList<>(Fixtures.sampleRulesets("payments"));
    }

    static FraudRuleset broken(String key, int version) {
        return Fixtures.SERIALIZATION.unmarshal("""
                apiVersion: vigil.io/v1alpha1
                kind: FraudRuleset
                metadata: {name: broken, namespace: payments}
                spec:
                  key: %s
                  version: %d
                  document:
                    execution_mode: FIRST_MATCH
                    rules: [{rule_id: x, condition: {field: amount, op: neq, value: 1}, action: DECLINE}]
                """.formatted(key, version), FraudRuleset.class);
    }

    @Test
    void requestedVersionsAreServed() {
        EnginePlan plan = EnginePlanner.plan(Fixtures.engine("defaults"), rulesets());
        assertThat(plan.problems()).isEmpty();
        assertThat(plan.rulesets()).extracting(r -> r.key() + ":v" + r.version() + ":" + r.requested())
                .containsExactly("CARD_AUTH:v2:true", "CARD_MONITORING:v1:true");
        assertThat(plan.rulesets()).allSatisfy(r -> {
            assertThat(r.configMapName()).startsWith("fraud-rs-" + r.key().toLowerCase().replace('_', '-') + "-v" + r.version() + "-")
                    .endsWith(r.contentHash().substring(0, 10));
            assertThat(r.checksum()).hasSize(64);
        });
    }

    @Test
    void invalidRequestedVersionKeepsTheLastGoodOne() {
        FraudEngine fe = Fixtures.engine("defaults");
        List<FraudRuleset> available = rulesets();
        EnginePlan before = EnginePlanner.plan(fe, available);
        fe.setStatus(new FraudEngineStatus());
        before.rulesets().forEach(r -> fe.getStatus().activeRulesets.add(
                new FraudEngineStatus.ActiveRuleset(r.key(), r.version(), r.checksum(), r.configMapName())));

        available.add(broken("CARD_AUTH", 3));
        fe.getSpec().rulesets.set(0, new RulesetRef("CARD_AUTH", 3));
        EnginePlan after = EnginePlanner.plan(fe, available);

        assertThat(after.problems()).singleElement().satisfies(p -> {
            assertThat(p.reason()).isEqualTo("RulesetInvalid");
            assertThat(p.message()).contains("CARD_AUTH v3", "rules[0].condition.op", "unknown operator");
        });
        assertThat(after.rulesets()).extracting(r -> r.key() + ":v" + r.version() + ":" + r.requested())
                .containsExactly("CARD_AUTH:v2:false", "CARD_MONITORING:v1:true");
        assertThat(after.rulesets().get(0).configMapName()).isEqualTo(before.rulesets().get(0).configMapName());
    }

    @Test
    void missingVersionWithoutHistoryServesNothingForThatKey() {
        FraudEngine fe = Fixtures.engine("defaults");
        fe.getSpec().rulesets.set(0, new RulesetRef("CARD_AUTH", 42));
        EnginePlan plan = EnginePlanner.plan(fe, rulesets());
        assertThat(plan.problems()).extracting(EnginePlan.RulesetProblem::reason).containsExactly("RulesetNotFound");
        assertThat(plan.rulesets()).extracting(EnginePlan.PlannedRuleset::key).containsExactly("CARD_MONITORING");
    }

    @Test
    void rulesetsOfOtherNamespacesAreNotCandidates() {
        // The planner is given the namespace's rulesets by the reconciler; a FraudEngine elsewhere sees none.
        FraudEngine fe = Fixtures.engine("replication");
        EnginePlan plan = EnginePlanner.plan(fe, List.of());
        assertThat(plan.problems()).extracting(EnginePlan.RulesetProblem::message)
                .singleElement().asString().contains("namespace risk");
    }
}
