package io.vigil.rules;

import static io.vigil.rules.TestRulesets.eval;
import static io.vigil.rules.TestRulesets.json;
import static io.vigil.rules.TestRulesets.yaml;
import static org.assertj.core.api.Assertions.assertThat;

import io.vigil.rules.eval.CompiledRuleset;
import io.vigil.rules.eval.Outcome;
import io.vigil.rules.parse.RulesetFormat;
import io.vigil.rules.parse.ValidationError;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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

    private static List<String> regexErrors(String pattern) {
        String doc = "{\"ruleset_key\":\"K\",\"ruleset_version\":1,\"execution_mode\":\"FIRST_MATCH\",\"rules\":[{\"rule_id\":\"r\","
                + "\"condition\":{\"field\":\"email\",\"op\":\"regex\",\"value\":\"" + pattern.replace("\\", "\\\\") + "\"},"
                + "\"action\":\"DECLINE\"}]}";
        return TestRulesets.errors(doc, RulesetFormat.JSON).stream().map(ValidationError::toString).toList();
    }

    @Test
    void nestedCountsThatWouldExhaustTheHeapAtLoadAreRefusedWithWhy() {
        // RE2 compiles x{n} to n copies of x: (a{1000}){1000} is a million, three levels a billion.
        assertThat(regexErrors("(a{1000}){1000}")).containsExactly("rules[0].condition.value: regex too large: its counted"
                + " repetitions expand to 1000000 atoms (at most 10000); x{n} compiles to n copies of x, so nested counts multiply");
        assertThat(regexErrors("((a{1000}){1000}){1000}")).singleElement().asString().contains("expand to over 10^9 atoms");
        assertThat(regexErrors("(((x{100}){100}){100}){100}")).singleElement().asString().contains("regex too large");
        assertThat(regexErrors("(?:[a-z]{2,1000}){2,1000}")).singleElement().asString().contains("regex too large");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "^[a-z0-9._%+-]{1,64}@[a-z0-9.-]{1,255}\\.[a-z]{2,63}$",
            "^\\d{1,3}(\\.\\d{1,3}){3}$",
            "(?i)^[[:alpha:] ]{2,50}(casino|bet|poker)",
            "\\Q(a{1000}){1000}\\E",
            "[{(]a{1000}[)}]",
            "(a{100}){100}",
            "\\p{Greek}{1,500}",
    })
    void ordinaryPatternsStayWellWithinTheLimit(String pattern) {
        assertThat(regexErrors(pattern)).isEmpty();
    }
}
