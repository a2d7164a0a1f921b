package io.vigil.bench;

import io.vigil.rules.eval.CompiledRuleset;
import io.vigil.rules.eval.Evaluation;
import io.vigil.rules.eval.EvaluationType;
import io.vigil.rules.eval.VelocityFailurePolicy;
import io.vigil.rules.parse.ParseResult;
import io.vigil.rules.parse.Rulesets;
import io.vigil.rules.txn.TransactionReader;
import io.vigil.rules.velocity.VelocityResults;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * Prints what the benchmark's transaction mix decides (so the numbers describe a realistic mix, not
 * one where every transaction stops at the first rule): {@code java -cp benchmarks.jar io.vigil.bench.MixReport}.
 */
public final class MixReport {
    private MixReport() {
    }

    public static void main(String[] args) throws Exception {
        Path file = Path.of(args.length > 0 ? args[0] : "engine/rulesets/CARD_AUTH/v2/ruleset.yaml");
        ParseResult r = Rulesets.load(file);
        if (!r.valid()) {
            throw new IllegalStateException(r.errors().toString());
        }
        CompiledRuleset rs = r.ruleset();
        TransactionReader reader = new TransactionReader();
        for (boolean velocity : new boolean[] {false, true}) {
            Map<String, Integer> decisions = new TreeMap<>();
            Map<String, Integer> rules = new TreeMap<>();
            long candidates = 0;
            long checks = 0;
            byte[][] mix = TransactionMix.generate(4096, velocity ? 43 : 42, velocity);
            for (byte[] body : mix) {
                CompiledRuleset.Pending p = rs.prepare(reader.read(body), EvaluationType.AUTH);
                int n = p.velocityRequest() == null ? 0 : p.velocityRequest().checks().size();
                checks += n;
                Evaluation e = p.decide(n == 0 ? null : VelocityResults.of(new double[n]), VelocityFailurePolicy.SKIP);
                candidates += e.candidateRules();
                decisions.merge(e.decision() + (e.ruleId() == null ? " (default)" : ""), 1, Integer::sum);
                if (e.ruleId() != null) {
                    rules.merge(e.ruleId(), 1, Integer::sum);
                }
            }
            System.out.printf("%s mix: %s, candidate rules/txn %.1f of %d, velocity checks/txn %.2f%n",
                    velocity ? "full" : "no-velocity", decisions, candidates / (double) mix.length, rs.ruleCount(),
                    checks / (double) mix.length);
            System.out.println("  deciding rules: " + rules);
        }
    }
}
