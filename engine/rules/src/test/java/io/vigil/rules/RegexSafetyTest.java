package io.vigil.rules;

import static io.vigil.rules.TestRulesets.eval;
import static io.vigil.rules.TestRulesets.json;
import static io.vigil.rules.TestRulesets.yaml;
import static org.assertj.core.api.Assertions.assertThat;

import io.vigil.rules.eval.CompiledRuleset;
import io.vigil.rules.eval.Outcome;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Regexes run on attacker-controlled fields (email, merchant name, custom fields). With a
 * backtracking engine, {@code (a+)+$} against "aaaa...a!" takes time exponential in the length
 * (2^n paths; n = 40 is already hours). The evaluator uses RE2/J, which is linear in the input, so
 * these cases answer at once and correctly. The timeout only catches a hang; it measures nothing.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class RegexSafetyTest {
    private static final String LONG_AS = "a".repeat(100_000);

    private static CompiledRuleset declineWhenRegex(String field, String pattern) {
        return yaml("""
                ruleset_key: K
                ruleset_version: 1
                execution_mode: FIRST_MATCH
                rules:
                  - rule_id: catastrophic
                    condition: {field: %s, op: regex, value: '%s'}
                    action: DECLINE
                """.formatted(field, pattern));
    }

    @Test
    void nestedQuantifierOnALongAdversarialEmailAnswersCorrectly() {
        CompiledRuleset rs = declineWhenRegex("email", "(a+)+$");
        // The worst case for backtracking: a long run the group can split every way, then a mismatch.
        // find() semantics: "(a+)+$" is found iff the value ends with an 'a'.
        assertThat(eval(rs, "{\"transaction_id\":\"t\",\"email\":\"" + LONG_AS + "!\"}").decision()).isEqualTo(Outcome.APPROVE);
        assertThat(eval(rs, "{\"transaction_id\":\"t\",\"email\":\"" + LONG_AS + "\"}").decision()).isEqualTo(Outcome.DECLINE);
        assertThat(eval(rs, "{\"transaction_id\":\"t\",\"email\":\"!" + LONG_AS + "\"}").decision()).isEqualTo(Outcome.DECLINE);
    }

    @Test
    void overlappingAlternativesOnAMerchantNameAndACustomField() {
        CompiledRuleset merchant = declineWhenRegex("merchant_name", "^(a|aa)+$");
        assertThat(eval(merchant, "{\"transaction_id\":\"t\",\"merchant_name\":\"" + LONG_AS + "b\"}").decision())
                .isEqualTo(Outcome.APPROVE);
        assertThat(eval(merchant, "{\"transaction_id\":\"t\",\"merchant_name\":\"" + LONG_AS + "\"}").decision())
                .isEqualTo(Outcome.DECLINE);
        CompiledRuleset custom = declineWhenRegex("custom_fields.note", "(x+x+)+y");
        String xs = "x".repeat(50_000);
        assertThat(eval(custom, "{\"transaction_id\":\"t\",\"custom_fields\":{\"note\":\"" + xs + "\"}}").decision())
                .isEqualTo(Outcome.APPROVE);
        assertThat(eval(custom, "{\"transaction_id\":\"t\",\"custom_fields\":{\"note\":\"" + xs + "y\"}}").decision())
                .isEqualTo(Outcome.DECLINE);
    }

    @Test
    void legacyFullMatchOfACatastrophicPatternIsLinearToo() {
        CompiledRuleset rs = json("{\"schema_version\":1,\"ruleset_key\":\"CARD_AUTH\",\"ruleset_version\":1,"
                + "\"rules\":[{\"rule_id\":\"r\",\"condition\":{\"field\":\"email\",\"op\":\"matches\",\"value\":\"(a+)+\"},"
                + "\"action\":\"DECLINE\"}]}");
        assertThat(eval(rs, "{\"transaction_id\":\"t\",\"email\":\"" + LONG_AS + "!\"}").decision()).isEqualTo(Outcome.APPROVE);
        assertThat(eval(rs, "{\"transaction_id\":\"t\",\"email\":\"" + LONG_AS + "\"}").decision()).isEqualTo(Outcome.DECLINE);
    }
}
