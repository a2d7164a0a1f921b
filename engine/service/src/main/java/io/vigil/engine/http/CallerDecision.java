package io.vigil.engine.http;

import io.vigil.rules.eval.Outcome;
import io.vigil.rules.txn.Field;
import io.vigil.rules.txn.InvalidTransactionException;
import io.vigil.rules.txn.Transaction;

/**
 * The {@code decision} a MONITORING caller already took: required, and one of APPROVE, DECLINE,
 * REVIEW. One rule for the data port and for simulate/replay, so a request simulate accepts is
 * one the data port accepts.
 */
public final class CallerDecision {
    private CallerDecision() {
    }

    public static Outcome of(Transaction txn) throws InvalidTransactionException {
        String d = txn.text(Field.DECISION);
        if (d == null) {
            throw new InvalidTransactionException("decision", "required for monitoring");
        }
        return switch (d) {
            case "APPROVE" -> Outcome.APPROVE;
            case "DECLINE" -> Outcome.DECLINE;
            case "REVIEW" -> Outcome.REVIEW;
            default -> throw new InvalidTransactionException("decision", "expected APPROVE, DECLINE or REVIEW, was \""
                    + (d.length() > 40 ? d.substring(0, 40) + "…" : d) + "\"");
        };
    }
}
