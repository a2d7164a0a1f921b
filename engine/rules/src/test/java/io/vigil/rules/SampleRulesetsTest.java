package io.vigil.rules;

import static io.vigil.rules.TestRulesets.file;
import static io.vigil.rules.TestRulesets.rulesetsDir;
import static io.vigil.rules.TestRulesets.txn;
import static org.assertj.core.api.Assertions.assertThat;

import io.vigil.rules.eval.CompiledRuleset;
import io.vigil.rules.eval.Evaluation;
import io.vigil.rules.eval.EvaluationType;
import io.vigil.rules.eval.MatchedRule;
import io.vigil.rules.eval.Outcome;
import io.vigil.rules.eval.VelocityFailurePolicy;
import io.vigil.rules.model.Condition;
import io.vigil.rules.model.ExecutionMode;
import io.vigil.rules.model.Operator;
import io.vigil.rules.model.Rule;
import io.vigil.rules.model.RuleMode;
import io.vigil.rules.velocity.Aggregate;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The sample rulesets in engine/rulesets load in the layout the service reads and behave as the demo shows. */
class SampleRulesetsTest {

    @Test
    void everyActiveVersionLoads() throws Exception {
        List<String> loaded = new ArrayList<>();
        try (Stream<Path> keys = Files.list(rulesetsDir())) {
            for (Path key : keys.filter(Files::isDirectory).sorted().toList()) {
                int active = Integer.parseInt(Files.readString(key.resolve("active")).trim());
                Path dir = key.resolve("v" + active);
                Path doc = Files.exists(dir.resolve("ruleset.yaml")) ? dir.resolve("ruleset.yaml") : dir.resolve("ruleset.json");
                CompiledRuleset rs = file(doc);
                assertThat(rs.key()).isEqualTo(key.getFileName().toString());
                assertThat(rs.version()).isEqualTo(active);
                loaded.add(rs.key() + " v" + rs.version());
            }
        }
        assertThat(loaded).contains("CARD_AUTH v2", "CARD_MONITORING v1");
    }

    @Test
    void everyVersionOnDiskValidates() throws Exception {
        try (Stream<Path> files = Files.walk(rulesetsDir())) {
            List<Path> docs = files.filter(p -> p.getFileName().toString().startsWith("ruleset.")).toList();
            assertThat(docs).hasSizeGreaterThanOrEqualTo(3);
            for (Path p : docs) {
                file(p);
            }
        }
    }

    @Test
    void cardAuthV2UsesTheWholeLanguage() throws Exception {
        CompiledRuleset rs = file(rulesetsDir().resolve("CARD_AUTH/v2/ruleset.yaml"));
        List<Rule> rules = rs.document().rules();
        assertThat(rules).hasSizeGreaterThanOrEqualTo(60);
        assertThat(rs.executionMode()).isEqualTo(ExecutionMode.FIRST_MATCH);
        Set<Operator> ops = EnumSet.noneOf(Operator.class);
        rules.forEach(r -> collect(r.condition(), ops));
        assertThat(ops).containsExactlyInAnyOrder(Operator.values());
        assertThat(rules).anyMatch(r -> r.mode() == RuleMode.SHADOW);
        assertThat(rules).anyMatch(r -> r.scope().specificity() >= 2);
        assertThat(rules).anyMatch(r -> !r.scope().bin().isEmpty());
        assertThat(rules).anyMatch(r -> !r.scope().network().isEmpty());
        assertThat(rules).anyMatch(r -> !r.scope().mcc().isEmpty());
        assertThat(rules).anyMatch(r -> !r.scope().logo().isEmpty());
        assertThat(rules).anyMatch(r -> !r.scope().country().isEmpty());
        assertThat(rules.stream().filter(r -> r.velocity() != null).map(r -> r.velocity().aggregate()))
                .contains(Aggregate.COUNT, Aggregate.SUM, Aggregate.DISTINCT);
        assertThat(rs.document().lists()).containsKeys("blocked_cards", "allowed_cards");
    }

    private static void collect(Condition c, Set<Operator> ops) {
        switch (c) {
            case null -> {
            }
            case Condition.All a -> a.args().forEach(x -> collect(x, ops));
            case Condition.Any a -> a.args().forEach(x -> collect(x, ops));
            case Condition.Not n -> collect(n.arg(), ops);
            case Condition.Leaf l -> ops.add(l.op());
        }
    }

    static final String[] TYPICAL = {
        "{\"transaction_id\":\"%s\",\"card_hash\":\"c-%s\",\"amount\":42.10,\"currency\":\"USD\",\"merchant_id\":\"m-coffee-9\","
                + "\"merchant_category_code\":\"5814\",\"card_present\":true,\"entry_mode\":\"CHIP\",\"transaction_type\":\"PURCHASE\","
                + "\"country_code\":\"US\",\"card_network\":\"VISA\",\"card_bin\":\"414720\",\"card_logo\":\"CLASSIC\"}",
        "{\"transaction_id\":\"%s\",\"card_hash\":\"c-%s\",\"amount\":129.99,\"currency\":\"EUR\",\"merchant_id\":\"m-shop-2\","
                + "\"merchant_category_code\":\"5999\",\"card_present\":false,\"entry_mode\":\"ECOM\",\"transaction_type\":\"PURCHASE\","
                + "\"country_code\":\"DE\",\"email\":\"anna@example.de\",\"device_id\":\"d-1\",\"ip_address\":\"81.2.69.142\","
                + "\"card_network\":\"MASTERCARD\",\"card_bin\":\"545454\",\"card_logo\":\"STANDARD\","
                + "\"billing_address\":{\"country\":\"DE\",\"city\":\"Berlin\"},\"shipping_address\":{\"country\":\"DE\"},"
                + "\"custom_fields\":{\"risk_score\":12,\"three_ds_result\":\"AUTHENTICATED\"}}",
        "{\"transaction_id\":\"%s\",\"card_hash\":\"c-%s\",\"amount\":64,\"currency\":\"GBP\",\"merchant_id\":\"m-grocery-001\","
                + "\"merchant_category_code\":\"5411\",\"card_present\":true,\"entry_mode\":\"CONTACTLESS\",\"country_code\":\"GB\","
                + "\"card_network\":\"VISA\",\"card_bin\":\"475129\"}",
    };

    @Test
    void typicalTransactionsApprove() throws Exception {
        CompiledRuleset rs = file(rulesetsDir().resolve("CARD_AUTH/v2/ruleset.yaml"));
        FakeVelocityStore store = new FakeVelocityStore();
        for (int i = 0; i < TYPICAL.length; i++) {
            Evaluation e = evaluate(rs, store, TYPICAL[i].formatted("t" + i, "typical-" + i));
            assertThat(e.decision()).as(TYPICAL[i]).isEqualTo(Outcome.APPROVE);
        }
    }

    @Test
    void aCardRepeatingWithinMinutesIsReviewedThenDeclined() throws Exception {
        CompiledRuleset rs = file(rulesetsDir().resolve("CARD_AUTH/v2/ruleset.yaml"));
        FakeVelocityStore store = new FakeVelocityStore();
        List<String> decisions = new ArrayList<>();
        for (int i = 1; i <= 10; i++) {
            Evaluation e = evaluate(rs, store, TYPICAL[0].formatted("rep-" + i, "repeat"));
            decisions.add(e.decision() + (e.reasonCode() == null ? "" : "/" + e.reasonCode()));
        }
        assertThat(decisions).containsExactly("APPROVE", "APPROVE", "APPROVE", "APPROVE",
                "REVIEW/VELOCITY_CARD_5M_REVIEW", "REVIEW/VELOCITY_CARD_5M_REVIEW", "REVIEW/VELOCITY_CARD_5M_REVIEW",
                "DECLINE/VELOCITY_CARD_5M", "DECLINE/VELOCITY_CARD_5M", "DECLINE/VELOCITY_CARD_5M");
    }

    @Test
    void shadowVelocityRuleIsReportedBeforeTheLiveOnes() throws Exception {
        CompiledRuleset rs = file(rulesetsDir().resolve("CARD_AUTH/v2/ruleset.yaml"));
        FakeVelocityStore store = new FakeVelocityStore();
        Evaluation e = null;
        for (int i = 1; i <= 3; i++) {
            e = evaluate(rs, store, TYPICAL[0].formatted("sh-" + i, "shadowed"));
        }
        assertThat(e.decision()).isEqualTo(Outcome.APPROVE);
        assertThat(e.matchedRules()).extracting(MatchedRule::ruleId, MatchedRule::shadow)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("card-2min-velocity-tuning", true));
    }

    @Test
    void monitoringReportsEveryMatch() throws Exception {
        CompiledRuleset rs = file(rulesetsDir().resolve("CARD_MONITORING/v1/ruleset.json"));
        assertThat(rs.executionMode()).isEqualTo(ExecutionMode.ALL_MATCHING);
        FakeVelocityStore store = new FakeVelocityStore();
        Evaluation e = evaluate(rs, store, "{\"transaction_id\":\"m1\",\"card_hash\":\"c-watch-0001\",\"amount\":1000,"
                + "\"decision\":\"DECLINE\",\"merchant_category_code\":\"7995\",\"merchant_name\":\"BEST GIFT SHOP\"}");
        assertThat(e.matchedRules()).extracting(MatchedRule::ruleId).containsExactly(
                "gambling", "declined-high-amount", "gift-card-purchases", "round-amounts", "watchlist-cards");
    }

    static Evaluation evaluate(CompiledRuleset rs, FakeVelocityStore store, String json) {
        CompiledRuleset.Pending p = rs.prepare(txn(json), EvaluationType.AUTH);
        return p.decide(p.velocityRequest() == null ? null : store.answer(p.velocityRequest()), VelocityFailurePolicy.SKIP);
    }
}
