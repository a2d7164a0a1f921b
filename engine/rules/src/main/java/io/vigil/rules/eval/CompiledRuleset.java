package io.vigil.rules.eval;

import io.vigil.rules.model.ExecutionMode;
import io.vigil.rules.txn.Transaction;
import io.vigil.rules.velocity.VelocityRequest;
import io.vigil.rules.velocity.VelocityResults;

/**
 * A validated ruleset compiled for evaluation: immutable and thread-safe, so activation is an atomic
 * swap of a reference and in-flight requests finish on the version they started with.
 *
 * <p>Evaluation has two steps so the service can do the one velocity round trip asynchronously
 * between them:
 * <pre>
 *   Pending p = ruleset.prepare(txn, type);           // scopes and conditions, no I/O
 *   if (p.velocityRequest() == null) e = p.decide(null, policy);
 *   else store.check(p.velocityRequest()) ... e = p.decide(results, policy);
 * </pre>
 */
public interface CompiledRuleset {

    String key();

    int version();

    /** SHA-256 of the canonical source, hex; identifies a ruleset's content across engine and operator. */
    String checksum();

    ExecutionMode executionMode();

    int ruleCount();

    /** The ruleset's own velocity failure policy, or null to use the engine's. */
    VelocityFailurePolicy velocityFailurePolicy();

    /** The country partition (ISO 3166 alpha-2) this ruleset serves, or null for global. */
    default String country() {
        return null;
    }

    /** The validated document it was compiled from (for listings and tools); may be null. */
    default io.vigil.rules.model.RulesetDocument document() {
        return null;
    }

    /**
     * Every enabled rule in evaluation order with its scope and condition outcome for {@code txn}: the
     * analyst's view of why a rule did or did not match. Evaluates every rule; not for the hot path.
     */
    default java.util.List<RuleTrace> trace(Transaction txn) {
        return java.util.List.of();
    }

    /** Evaluates scopes and conditions; collects the velocity checks of every velocity rule whose condition holds. */
    Pending prepare(Transaction txn, EvaluationType type);

    /** Evaluation between the two steps. Not thread-safe; used by one request. */
    interface Pending {

        /** The checks to send to the velocity store in one round trip, or null when no velocity rule applies. */
        VelocityRequest velocityRequest();

        /** Like {@link #velocityRequest()} but marked read-only (simulate, replay). */
        VelocityRequest readOnlyVelocityRequest();

        /**
         * Finishes the evaluation. {@code results} may be null when {@link #velocityRequest()} was null,
         * or {@link VelocityResults#unavailable} when the store failed or the deadline passed; then the
         * evaluation is DEGRADED / VELOCITY_UNAVAILABLE and {@code policy} (unless the ruleset overrides
         * it) decides what velocity rules do.
         */
        Evaluation decide(VelocityResults results, VelocityFailurePolicy policy);
    }
}
