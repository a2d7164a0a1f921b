package io.vigil.rules.model;

import io.vigil.rules.eval.Outcome;

/** What a matching rule decides, with the reason code reported to the caller (may be null). */
public record Action(Outcome decision, String reasonCode) {
    public static final Action APPROVE = new Action(Outcome.APPROVE, null);
}
