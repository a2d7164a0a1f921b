package io.vigil.engine.outbox;

import io.vigil.engine.http.JsonWriter;
import io.vigil.rules.eval.MatchedRule;
import io.vigil.rules.eval.VelocityResult;
import io.vigil.rules.velocity.Aggregate;
import java.util.Arrays;
import java.util.IdentityHashMap;

/**
 * The parts of a decision event that depend only on a rule, encoded once and copied into every event
 * that reports the rule: a matched rule's object, and a velocity result's text around the card's
 * value (rule id, dimension, window, aggregate, threshold, the exceeded/available flags). A CARD_AUTH
 * v2 decision reports up to ten velocity results: written field by field they were most of the
 * event's cost (docs/benchmarks.md, "The decision event and the answer").
 *
 * <p>Found by the identity of the rule's own objects: a compiled rule reports the same
 * {@link MatchedRule} and the same rule id String in every decision, so a hit can only give the bytes
 * of the same content (a velocity check's other constants are compared too). A reloaded ruleset
 * brings new objects, encoded at their first decision; the old entries are dropped once there are
 * more than {@link #MAX_ENTRIES}. One per {@link DecisionEvents}, used by one writer thread.
 */
final class EventParts {

    static final int MAX_ENTRIES = 4096;

    private final IdentityHashMap<MatchedRule, byte[]> matchedRules = new IdentityHashMap<>();
    private final IdentityHashMap<String, Check> checks = new IdentityHashMap<>();
    private final JsonWriter scratch = new JsonWriter(256);

    /** The matched rule's whole object. */
    byte[] matchedRule(MatchedRule m) {
        byte[] encoded = matchedRules.get(m);
        if (encoded == null) {
            if (matchedRules.size() >= MAX_ENTRIES) {
                matchedRules.clear();
            }
            DecisionEvents.writeMatchedRule(scratch.reset(), m);
            encoded = scratch.toBytes();
            matchedRules.put(m, encoded);
        }
        return encoded;
    }

    /** The parts of a velocity result that come from its check. */
    Check check(VelocityResult v) {
        Check c = checks.get(v.ruleId());
        if (c == null || !c.encodes(v)) {
            if (checks.size() >= MAX_ENTRIES) {
                checks.clear();
            }
            c = new Check(v, scratch);
            checks.put(v.ruleId(), c);
        }
        return c;
    }

    int size() {
        return matchedRules.size() + checks.size();
    }

    /** A velocity check's text: before the dimension value, before the value, and after it (four flag pairs). */
    static final class Check {
        private final String dimension;
        private final int windowSeconds;
        private final Aggregate aggregate;
        private final long thresholdBits;
        private final byte[] head;
        private final byte[] middle;
        /** By {@code (exceeded ? 2 : 0) + (available ? 1 : 0)}. */
        private final byte[][] tails = new byte[4][];

        Check(VelocityResult v, JsonWriter scratch) {
            dimension = v.dimension();
            windowSeconds = v.windowSeconds();
            aggregate = v.aggregate();
            thresholdBits = Double.doubleToRawLongBits(v.threshold());
            DecisionEvents.writeCheckHead(scratch.reset(), v);
            head = scratch.toBytes();
            DecisionEvents.writeCheckMiddle(afterValue(scratch), v);
            middle = written(scratch);
            for (int flags = 0; flags < 4; flags++) {
                DecisionEvents.writeCheckTail(afterValue(scratch), v.threshold(), (flags & 2) != 0, (flags & 1) != 0);
                tails[flags] = written(scratch);
            }
        }

        /**
         * The scratch writer as after a value (the dimension value, the value), so that the first key
         * gets its comma as in the event; {@link #written} leaves that stand-in out.
         */
        private static JsonWriter afterValue(JsonWriter scratch) {
            return scratch.reset().raw('0');
        }

        private static byte[] written(JsonWriter scratch) {
            return Arrays.copyOfRange(scratch.array(), 1, scratch.length());
        }

        /** Whether these bytes are those of {@code v}'s check (its rule id is the map's key). */
        boolean encodes(VelocityResult v) {
            return dimension == v.dimension() && windowSeconds == v.windowSeconds() && aggregate == v.aggregate()
                    && thresholdBits == Double.doubleToRawLongBits(v.threshold());
        }

        byte[] head() {
            return head;
        }

        byte[] middle() {
            return middle;
        }

        byte[] tail(boolean exceeded, boolean available) {
            return tails[(exceeded ? 2 : 0) + (available ? 1 : 0)];
        }
    }
}
