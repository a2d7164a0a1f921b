package io.vigil.rules.eval;

import io.vigil.rules.model.Action;
import io.vigil.rules.model.ExecutionMode;
import io.vigil.rules.model.RulesetDocument;
import io.vigil.rules.txn.Field;
import io.vigil.rules.txn.Transaction;
import java.util.ArrayList;
import java.util.List;

/** The compiled form of one ruleset version: rules in evaluation order plus the scope index. Immutable. */
final class IndexedRuleset implements CompiledRuleset {
    final RulesetDocument document;
    final String checksum;
    final CompiledRule[] rules;
    final ScopeIndex scope;
    final boolean firstMatch;
    final Action defaultAction;
    /** Rules that still need evaluating after a FIRST_MATCH decider is found: shadow and velocity rules. */
    final long[] afterDecider;

    IndexedRuleset(RulesetDocument document, String checksum, List<CompiledRule> rules, ScopeIndex scope) {
        this.document = document;
        this.checksum = checksum;
        this.rules = rules.toArray(new CompiledRule[0]);
        this.scope = scope;
        this.firstMatch = document.executionMode() == ExecutionMode.FIRST_MATCH;
        this.defaultAction = document.defaultAction();
        this.afterDecider = new long[scope.words()];
        for (CompiledRule r : this.rules) {
            if (r.shadow || r.velocity) {
                ScopeIndex.set(afterDecider, r.index);
            }
        }
    }

    @Override
    public String key() {
        return document.rulesetKey();
    }

    @Override
    public int version() {
        return document.rulesetVersion();
    }

    @Override
    public String checksum() {
        return checksum;
    }

    @Override
    public ExecutionMode executionMode() {
        return document.executionMode();
    }

    @Override
    public int ruleCount() {
        return rules.length;
    }

    @Override
    public VelocityFailurePolicy velocityFailurePolicy() {
        return document.velocityFailurePolicy();
    }

    @Override
    public String country() {
        return document.country();
    }

    @Override
    public RulesetDocument document() {
        return document;
    }

    @Override
    public Pending prepare(Transaction txn, EvaluationType type) {
        PendingEvaluation p = new PendingEvaluation(this, txn);
        p.run();
        return p;
    }

    @Override
    public List<RuleTrace> trace(Transaction txn) {
        long[] candidates = new long[scope.words()];
        scope.candidates(txn, candidates);
        long present = txn.presence();
        List<RuleTrace> out = new ArrayList<>(rules.length);
        for (CompiledRule r : rules) {
            boolean inScope = (candidates[r.index >>> 6] & (1L << r.index)) != 0;
            int c = r.condition == null ? Node.TRUE : r.condition.eval(txn);
            List<String> missing = new ArrayList<>();
            long absent = r.required & ~present;
            for (Field f : Field.values()) {
                if ((absent & (1L << f.ordinal())) != 0) {
                    missing.add(f.jsonName());
                }
            }
            if ((absent & Transaction.CUSTOM_PRESENT) != 0) {
                missing.add("custom_fields");
            }
            out.add(new RuleTrace(r.id, r.index, r.specificity, r.priority, r.shadow, inScope,
                    c == Node.TRUE ? "TRUE" : c == Node.FALSE ? "FALSE" : "UNKNOWN", List.copyOf(missing), r.velocity));
        }
        return out;
    }

    @Override
    public String toString() {
        return key() + " v" + version() + " (" + rules.length + " rules, " + checksum + ")";
    }
}
