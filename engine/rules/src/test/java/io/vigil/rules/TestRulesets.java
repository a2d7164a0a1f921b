package io.vigil.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.vigil.rules.eval.CompiledRuleset;
import io.vigil.rules.eval.EvaluationType;
import io.vigil.rules.eval.Evaluation;
import io.vigil.rules.eval.VelocityFailurePolicy;
import io.vigil.rules.parse.ParseResult;
import io.vigil.rules.parse.RulesetFormat;
import io.vigil.rules.parse.Rulesets;
import io.vigil.rules.parse.ValidationError;
import io.vigil.rules.txn.InvalidTransactionException;
import io.vigil.rules.txn.Transaction;
import io.vigil.rules.txn.TransactionReader;
import io.vigil.rules.velocity.VelocityResults;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Small helpers shared by the tests: documents from text, transactions from JSON. */
public final class TestRulesets {
    private static final TransactionReader READER = new TransactionReader();

    private TestRulesets() {
    }

    /** The repository's engine/rulesets directory (tests run with the module as working directory). */
    public static Path rulesetsDir() {
        Path p = Path.of("../rulesets").toAbsolutePath().normalize();
        assertThat(p).isDirectory();
        return p;
    }

    public static CompiledRuleset yaml(String yaml) {
        return compiled(yaml, RulesetFormat.YAML);
    }

    public static CompiledRuleset json(String json) {
        return compiled(json, RulesetFormat.JSON);
    }

    public static CompiledRuleset compiled(String text, RulesetFormat format) {
        ParseResult r = Rulesets.load(text.getBytes(StandardCharsets.UTF_8), format);
        assertThat(r.errors()).as("validation errors").isEmpty();
        return r.ruleset();
    }

    public static List<ValidationError> errors(String text, RulesetFormat format) {
        ParseResult r = Rulesets.load(text.getBytes(StandardCharsets.UTF_8), format);
        if (!r.valid()) {
            assertThat(r.ruleset()).isNull();
        }
        return r.errors();
    }

    public static CompiledRuleset file(Path p) throws Exception {
        ParseResult r = Rulesets.load(Files.readAllBytes(p), RulesetFormat.ofFileName(p.toString()));
        assertThat(r.errors()).as("validation errors of " + p).isEmpty();
        return r.ruleset();
    }

    public static Transaction txn(String json) {
        try {
            return READER.read(json.getBytes(StandardCharsets.UTF_8));
        } catch (InvalidTransactionException e) {
            throw new AssertionError(e);
        }
    }

    /** Evaluates with no velocity involved (fails if a velocity check was requested). */
    public static Evaluation eval(CompiledRuleset rs, String txnJson) {
        CompiledRuleset.Pending p = rs.prepare(txn(txnJson), EvaluationType.AUTH);
        return p.decide(p.velocityRequest() == null ? null : VelocityResults.unavailable("test: no store"),
                VelocityFailurePolicy.SKIP);
    }

    /** Evaluates answering every velocity check with {@code value}. */
    public static Evaluation evalWithVelocity(CompiledRuleset rs, String txnJson, double value) {
        CompiledRuleset.Pending p = rs.prepare(txn(txnJson), EvaluationType.AUTH);
        if (p.velocityRequest() == null) {
            return p.decide(null, VelocityFailurePolicy.SKIP);
        }
        double[] values = new double[p.velocityRequest().checks().size()];
        java.util.Arrays.fill(values, value);
        return p.decide(VelocityResults.of(values), VelocityFailurePolicy.SKIP);
    }
}
