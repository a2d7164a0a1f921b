package io.vigil.rules.eval;

import io.vigil.rules.txn.Transaction;
import io.vigil.rules.velocity.VelocityCheck;
import io.vigil.rules.velocity.VelocityRequest;
import io.vigil.rules.velocity.VelocityResults;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * One transaction's evaluation between {@code prepare} and {@code decide}. It is the only object
 * allocated per evaluation besides the result: a bitset of candidate rules that becomes the bitset
 * of rules whose condition held, and the velocity checks (only when some velocity rule applies).
 */
final class PendingEvaluation implements CompiledRuleset.Pending {
    private final IndexedRuleset rs;
    private final Transaction txn;
    private final long[] bits;
    private ArrayList<VelocityCheck> checks;
    private VelocityRequest request;
    private int candidates;
    private long nanos;

    PendingEvaluation(IndexedRuleset rs, Transaction txn) {
        this.rs = rs;
        this.txn = txn;
        this.bits = new long[rs.scope.words()];
    }

    void run() {
        long start = System.nanoTime();
        rs.scope.candidates(txn, bits);
        CompiledRule[] rules = rs.rules;
        boolean decided = false;
        int count = 0;
        long present = txn.presence();
        for (int w = 0; w < bits.length; w++) {
            long word = bits[w];
            count += Long.bitCount(word);
            if (decided) {
                word &= rs.afterDecider[w];
            }
            long matched = 0;
            while (word != 0) {
                long low = word & -word;
                word ^= low;
                CompiledRule r = rules[(w << 6) + Long.numberOfTrailingZeros(low)];
                if ((r.required & ~present) != 0) {
                    continue; // needs a field this transaction does not have: cannot be TRUE (ADR 0002)
                }
                if (r.condition != null && r.condition.eval(txn) != Node.TRUE) {
                    continue;
                }
                if (r.velocity) {
                    if (!addCheck(r)) {
                        continue; // no dimension value: no check, the rule does not match
                    }
                } else if (rs.firstMatch && !r.shadow && !decided) {
                    // First ACTIVE plain match: later rules can no longer decide; only shadow rules
                    // (reported) and velocity rules (counted) are still evaluated.
                    decided = true;
                    word &= rs.afterDecider[w];
                }
                matched |= low;
            }
            bits[w] = matched;
        }
        candidates = count;
        nanos = System.nanoTime() - start;
    }

    private boolean addCheck(CompiledRule r) {
        String value = txn.text(r.dimension);
        if (value == null) {
            return false;
        }
        double sum = 0;
        String distinct = null;
        switch (r.aggregate) {
            case SUM -> {
                if (r.of != null) {
                    sum = txn.isNumber(r.of) ? txn.number(r.of) : 0;
                } else if (txn.custom(r.ofCustom) instanceof Double d) {
                    sum = d;
                }
            }
            case DISTINCT -> {
                if (r.of != null) {
                    distinct = txn.text(r.of);
                } else {
                    Object o = txn.custom(r.ofCustom);
                    distinct = o == null ? null : o.toString();
                }
            }
            default -> {
            }
        }
        if (checks == null) {
            checks = new ArrayList<>(16);
        }
        checks.add(new VelocityCheck(rs.key(), r.id, r.dimensionName, value, r.windowSeconds, r.aggregate, sum,
                distinct, r.threshold));
        return true;
    }

    /** Candidate rules after scope filtering (for explanations). */
    int candidates() {
        return candidates;
    }

    @Override
    public VelocityRequest velocityRequest() {
        if (checks == null) {
            return null;
        }
        if (request == null) {
            request = new VelocityRequest(txn.transactionId(), Collections.unmodifiableList(checks), false);
        }
        return request;
    }

    @Override
    public VelocityRequest readOnlyVelocityRequest() {
        return checks == null ? null
                : new VelocityRequest(txn.transactionId(), Collections.unmodifiableList(checks), true);
    }

    @Override
    public Evaluation decide(VelocityResults results, VelocityFailurePolicy policy) {
        long start = System.nanoTime();
        int nChecks = checks == null ? 0 : checks.size();
        boolean unavailable = nChecks > 0 && (results == null || !results.available() || results.size() < nChecks);
        VelocityFailurePolicy effective = rs.velocityFailurePolicy() != null ? rs.velocityFailurePolicy()
                : policy != null ? policy : VelocityFailurePolicy.SKIP;
        List<VelocityResult> velocity = nChecks == 0 ? List.of() : new ArrayList<>(nChecks);
        CompiledRule[] rules = rs.rules;
        CompiledRule decider = null;
        MatchedRule single = null;
        ArrayList<MatchedRule> many = null;
        int ci = 0;
        for (int w = 0; w < bits.length; w++) {
            long word = bits[w];
            while (word != 0) {
                long low = word & -word;
                word ^= low;
                CompiledRule r = rules[(w << 6) + Long.numberOfTrailingZeros(low)];
                if (r.velocity) {
                    VelocityCheck c = checks.get(ci);
                    double value = unavailable ? Double.NaN : results.value(ci);
                    boolean exceeded = unavailable ? effective == VelocityFailurePolicy.EXCEEDED : value >= r.threshold;
                    velocity.add(new VelocityResult(r.id, r.dimensionName, c.dimensionValue(), r.windowSeconds,
                            r.aggregate, value, r.threshold, exceeded, !unavailable));
                    ci++;
                    if (!exceeded) {
                        continue;
                    }
                }
                boolean report;
                if (r.shadow) {
                    report = true;
                } else if (decider == null) {
                    decider = r;
                    report = true;
                } else {
                    // FIRST_MATCH: an ACTIVE match after the decider was evaluated only to be counted.
                    report = !rs.firstMatch;
                }
                if (report) {
                    if (single == null) {
                        single = r.matched;
                    } else {
                        if (many == null) {
                            many = new ArrayList<>();
                            many.add(single);
                        }
                        many.add(r.matched);
                    }
                }
            }
        }
        List<MatchedRule> matched = many != null ? many : single != null ? List.of(single) : List.of();
        Outcome decision = decider != null ? decider.decision : rs.defaultAction.decision();
        String reason = decider != null ? decider.reasonCode : rs.defaultAction.reasonCode();
        nanos += System.nanoTime() - start;
        return new Evaluation(decision, unavailable ? EngineMode.DEGRADED : EngineMode.NORMAL,
                unavailable ? EngineErrorCode.VELOCITY_UNAVAILABLE : null, rs.key(), rs.version(),
                decider == null ? null : decider.id, reason, matched, velocity, nanos, candidates);
    }
}
