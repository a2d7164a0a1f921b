package io.vigil.engine.velocity;

import io.vigil.engine.ruleset.KeyRulesets;
import io.vigil.engine.ruleset.LoadedRuleset;
import io.vigil.engine.ruleset.RulesetSnapshot;
import io.vigil.rules.parse.ParseResult;
import io.vigil.rules.parse.Rulesets;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The activation-time warning for distinct rules whose threshold the cap makes unreachable. */
class VelocityDistinctCapWarningTest {

    @Test
    void distinctRulesWithAThresholdAboveTheCapAreReported() throws Exception {
        // the sample CARD_AUTH v2: distinct thresholds 6 (card merchants), 4 (device cards), 5 (email cards)
        ParseResult parsed = Rulesets.load(Path.of("../rulesets/CARD_AUTH/v2/ruleset.yaml"));
        assertThat(parsed.errors()).isEmpty();
        RulesetSnapshot snapshot = RulesetSnapshot.EMPTY.with(new KeyRulesets("CARD_AUTH", 2,
                new LoadedRuleset("CARD_AUTH", null, parsed.ruleset(), Instant.now(), "test"), Map.of()));

        assertThat(RedisVelocityStore.unreachableDistinctRules(snapshot, 1000)).isEmpty();
        assertThat(RedisVelocityStore.unreachableDistinctRules(snapshot, 6)).as("a threshold equal to the cap can match").isEmpty();
        assertThat(RedisVelocityStore.unreachableDistinctRules(snapshot, 5)).singleElement().asString()
                .contains("CARD_AUTH v2", "card-1h-distinct-merchants", "threshold 6");
        assertThat(RedisVelocityStore.unreachableDistinctRules(snapshot, 3)).hasSize(3);
    }
}
