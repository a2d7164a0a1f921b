package io.vigil.engine.testing;

import io.vigil.engine.decision.DecisionRecord;
import io.vigil.engine.decision.DecisionSink;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Keeps every decision record offered, for tests that check what goes downstream. Enabled per test profile. */
@Alternative
@ApplicationScoped
public class CapturingDecisionSink implements DecisionSink {
    private static final List<DecisionRecord> RECORDS = new CopyOnWriteArrayList<>();

    public static List<DecisionRecord> records() {
        return RECORDS;
    }

    public static void reset() {
        RECORDS.clear();
    }

    @Override
    public void offer(DecisionRecord record) {
        RECORDS.add(record);
    }

    /**
     * The record of a transaction id, waiting (bounded) for it: the sink is offered the record right
     * after the answer is written, so a test that just read the answer may be a moment early.
     */
    public static DecisionRecord await(String transactionId) throws InterruptedException {
        for (int i = 0; i < 500; i++) {
            DecisionRecord r = of(transactionId);
            if (r != null) {
                return r;
            }
            Thread.sleep(10);
        }
        throw new AssertionError("no decision record offered for " + transactionId);
    }

    /** The record of a transaction id, or null. */
    public static DecisionRecord of(String transactionId) {
        for (DecisionRecord r : RECORDS) {
            if (transactionId.equals(r.transactionId())) {
                return r;
            }
        }
        return null;
    }
}
