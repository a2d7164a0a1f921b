package io.vigil.bench;

import io.vigil.rules.eval.CompiledRuleset;
import io.vigil.rules.eval.Evaluation;
import io.vigil.rules.eval.EvaluationType;
import io.vigil.rules.eval.VelocityFailurePolicy;
import io.vigil.rules.parse.ParseResult;
import io.vigil.rules.parse.Rulesets;
import io.vigil.rules.txn.InvalidTransactionException;
import io.vigil.rules.txn.Transaction;
import io.vigil.rules.txn.TransactionReader;
import io.vigil.rules.velocity.VelocityResults;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Throughput of the decision path's CPU work on one thread: evaluating the sample CARD_AUTH v2 over
 * a generated transaction mix, and parsing request bodies. One operation = one transaction.
 *
 * <ul>
 *   <li>{@code evaluateNoVelocity}: prepare + decide for transactions without velocity dimensions
 *       (no velocity rule applies; what the engine does besides the store round trip).</li>
 *   <li>{@code evaluateWithVelocity}: the full mix; every applicable velocity rule produces a check and
 *       the store's answer is precomputed (the round trip itself is not measured here).</li>
 *   <li>{@code parse}: request body to {@link Transaction} with {@link TransactionReader}.</li>
 *   <li>{@code parseAndEvaluateNoVelocity}: both, as the service does per request.</li>
 * </ul>
 * The ruleset comes from {@code -Dvigil.ruleset=<file>} (default: engine/rulesets/CARD_AUTH/v2/ruleset.yaml
 * relative to the working directory).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class RulesBenchmark {
    @Param({"CARD_AUTH/v2/ruleset.yaml"})
    public String ruleset;

    /**
     * Distinct transactions cycled through (a power of two). 4096 transactions (~9 MB with their
     * strings) do not fit in the CPU caches, so each evaluation pays cache misses on the transaction's
     * fields - pessimistic: in the service the transaction was parsed just before and is hot.
     * 256 (~0.5 MB) is closer to that case.
     */
    @Param({"4096"})
    public int mix;

    private CompiledRuleset rs;
    private final TransactionReader reader = new TransactionReader();
    private byte[][] plainBodies;
    private Transaction[] plain;
    private byte[][] fullBodies;
    private Transaction[] full;
    private VelocityResults[] answers;
    private int i;

    @Setup
    public void setup() throws IOException, InvalidTransactionException {
        rs = load(ruleset, mix);
        plainBodies = TransactionMix.generate(mix, 42, false);
        fullBodies = TransactionMix.generate(mix, 43, true);
        plain = new Transaction[mix];
        full = new Transaction[mix];
        answers = new VelocityResults[mix];
        SplittableRandom random = new SplittableRandom(7);
        for (int k = 0; k < mix; k++) {
            plain[k] = reader.read(plainBodies[k]);
            full[k] = reader.read(fullBodies[k]);
            if (rs.prepare(plain[k], EvaluationType.AUTH).velocityRequest() != null) {
                throw new IllegalStateException("the no-velocity mix triggered a velocity check: " + plain[k]);
            }
            CompiledRuleset.Pending p = rs.prepare(full[k], EvaluationType.AUTH);
            int checks = p.velocityRequest() == null ? 0 : p.velocityRequest().checks().size();
            double[] values = new double[checks];
            for (int c = 0; c < checks; c++) {
                // Mostly quiet cards, a few busy ones.
                values[c] = random.nextInt(100) < 97 ? 1 + random.nextInt(3) : 5 + random.nextInt(20);
            }
            answers[k] = checks == 0 ? null : VelocityResults.of(values);
        }
    }

    /** The sample ruleset of {@code -Dvigil.rulesets} (default engine/rulesets), compiled; checks the mix size. */
    static CompiledRuleset load(String ruleset, int mix) throws IOException {
        Path dir = Path.of(System.getProperty("vigil.rulesets", "engine/rulesets"));
        ParseResult r = Rulesets.load(dir.resolve(ruleset));
        if (!r.valid()) {
            throw new IllegalStateException("ruleset does not validate: " + r.errors());
        }
        if (Integer.bitCount(mix) != 1) {
            throw new IllegalArgumentException("mix must be a power of two: " + mix);
        }
        return r.ruleset();
    }

    @Benchmark
    public Evaluation evaluateNoVelocity() {
        int k = next();
        return rs.prepare(plain[k], EvaluationType.AUTH).decide(null, VelocityFailurePolicy.SKIP);
    }

    @Benchmark
    public Evaluation evaluateWithVelocity() {
        int k = next();
        CompiledRuleset.Pending p = rs.prepare(full[k], EvaluationType.AUTH);
        p.velocityRequest();
        return p.decide(answers[k], VelocityFailurePolicy.SKIP);
    }

    @Benchmark
    public Transaction parse() throws InvalidTransactionException {
        return reader.read(fullBodies[next()]);
    }

    @Benchmark
    public Evaluation parseAndEvaluateNoVelocity() throws InvalidTransactionException {
        Transaction t = reader.read(plainBodies[next()]);
        return rs.prepare(t, EvaluationType.AUTH).decide(null, VelocityFailurePolicy.SKIP);
    }

    private int next() {
        int k = i;
        i = (k + 1) & (mix - 1);
        return k;
    }
}
