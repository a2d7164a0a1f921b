package io.vigil.bench;

import io.vigil.engine.decision.DecisionIds;
import io.vigil.engine.decision.DecisionRecord;
import io.vigil.engine.http.AnswerJson;
import io.vigil.engine.http.JsonWriter;
import io.vigil.engine.outbox.DecisionEvents;
import io.vigil.rules.eval.CompiledRuleset;
import io.vigil.rules.eval.EngineMode;
import io.vigil.rules.eval.Evaluation;
import io.vigil.rules.eval.EvaluationType;
import io.vigil.rules.eval.VelocityFailurePolicy;
import io.vigil.rules.txn.InvalidTransactionException;
import io.vigil.rules.txn.Transaction;
import io.vigil.rules.txn.TransactionReader;
import io.vigil.rules.velocity.VelocityResults;
import java.io.IOException;
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
 * The engine's serialization per decision, on one thread: the decision event the outbox writer
 * writes ({@link DecisionEvents#toJson}, ~2.9 KB for a CARD_AUTH v2 decision with its 10 velocity
 * results) and the AUTH answer ({@link AnswerJson}). One operation = one decision. The records are
 * the sample CARD_AUTH v2 evaluated over the generated transaction mix with every velocity check
 * answered, as the engine records them (raw request bytes kept).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class DecisionEventBenchmark {
    @Param({"CARD_AUTH/v2/ruleset.yaml"})
    public String ruleset;

    /** Distinct decisions cycled through (a power of two). */
    @Param({"256"})
    public int mix;

    private final DecisionEvents events = new DecisionEvents("vigil-engine-7f9c6d5b8-x2kqp");
    private DecisionRecord[] records;
    private int i;

    @Setup
    public void setup() throws IOException, InvalidTransactionException {
        CompiledRuleset rs = RulesBenchmark.load(ruleset, mix);
        TransactionReader reader = new TransactionReader();
        byte[][] bodies = TransactionMix.generate(mix, 43, true);
        SplittableRandom random = new SplittableRandom(7);
        records = new DecisionRecord[mix];
        for (int k = 0; k < mix; k++) {
            Transaction txn = reader.read(bodies[k]);
            CompiledRuleset.Pending p = rs.prepare(txn, EvaluationType.AUTH);
            int checks = p.velocityRequest() == null ? 0 : p.velocityRequest().checks().size();
            double[] values = new double[checks];
            for (int c = 0; c < checks; c++) {
                // mostly quiet cards, a few busy ones; sums with cents
                values[c] = random.nextInt(100) < 97 ? 1 + random.nextInt(3) : 5 + random.nextInt(20) + 0.25 * random.nextInt(4);
            }
            Evaluation e = p.decide(checks == 0 ? null : VelocityResults.of(values), VelocityFailurePolicy.SKIP);
            records[k] = new DecisionRecord(DecisionIds.next(), EvaluationType.AUTH, txn, e.decision(), EngineMode.NORMAL,
                    e.errorCode(), "CARD_AUTH", 2, e, 1_795_000_000_000L + k * 7L, 9_000 + k, 310_000 + k, 480_000 + k);
        }
    }

    @Benchmark
    public byte[] eventJson() {
        return events.toJson(records[next()]);
    }

    @Benchmark
    public int answerJson() {
        return AnswerJson.write(JsonWriter.get(), records[next()], false).length();
    }

    private int next() {
        int k = i;
        i = (k + 1) & (mix - 1);
        return k;
    }
}
