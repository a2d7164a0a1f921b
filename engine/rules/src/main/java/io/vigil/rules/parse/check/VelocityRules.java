package io.vigil.rules.parse.check;

import io.vigil.rules.model.FieldRef;
import io.vigil.rules.model.Velocity;
import io.vigil.rules.parse.Problems;
import io.vigil.rules.parse.syntax.Syntax;
import io.vigil.rules.txn.Field;
import io.vigil.rules.velocity.Aggregate;
import io.vigil.rules.velocity.DistinctCap;
import java.util.Set;

/**
 * Velocity rules: the dimension identifies something, the window is at most 7 days, the threshold is
 * positive (and, for distinct, reachable: at most the engine's distinct cap), and "of" is what the
 * aggregate needs (none for count, a number for sum, any field for distinct).
 */
public final class VelocityRules {
    /** Fields that make no sense as a velocity dimension: unique per transaction or not an identity. */
    private static final Set<Field> NOT_DIMENSIONS = Set.of(Field.TRANSACTION_ID, Field.TIMESTAMP, Field.DECISION,
            Field.AMOUNT, Field.CARD_PRESENT);

    private final Problems problems;
    private final FieldReferences fields;
    private final int distinctCap;

    /** @param distinctCap members the engine keeps per distinct check ({@link DistinctCap}) */
    public VelocityRules(Problems problems, FieldReferences fields, int distinctCap) {
        this.problems = problems;
        this.fields = fields;
        this.distinctCap = distinctCap;
    }

    /** The bound clause, or null (with problems). */
    public Velocity bind(Syntax.Velocity v) {
        int before = problems.size();
        Field dimension = null;
        if (v.dimension() != null) {
            Field f = Field.byName(v.dimension());
            if (f == null || f.type() != Field.Type.STRING || NOT_DIMENSIONS.contains(f)) {
                problems.add(v.path().key("dimension"), "unknown dimension \"" + v.dimension() + "\" (use a transaction"
                        + " field that identifies something, e.g. card_hash, device_id, ip_address, email, merchant_id)");
            } else {
                dimension = f;
            }
        }
        Integer window = v.windowSeconds();
        if (window != null && (window <= 0 || window > Velocity.MAX_WINDOW_SECONDS)) {
            problems.add(v.path().key("window_seconds"), "must be between 1 and " + Velocity.MAX_WINDOW_SECONDS
                    + " seconds (7 days), got " + window);
        }
        FieldRef of = of(v);
        if (v.threshold() != null && v.threshold().signum() <= 0) {
            problems.add(v.path().key("threshold"), "must be greater than 0");
        } else if (v.aggregate() == Aggregate.DISTINCT && v.threshold() != null && DistinctCap.unreachable(v.threshold(), distinctCap)) {
            problems.add(v.path().key("threshold"), "a distinct count stops at the engine's distinct cap ("
                    + distinctCap + ", vigil.velocity.distinct-cap), so a threshold of " + v.threshold().toPlainString()
                    + " can never be reached; use at most " + distinctCap);
        }
        if (problems.size() != before || dimension == null || window == null || v.threshold() == null) {
            return null;
        }
        return new Velocity(dimension, window, v.aggregate(), of, v.threshold());
    }

    private FieldRef of(Syntax.Velocity v) {
        var path = v.path().key("of");
        String name = v.of();
        switch (v.aggregate()) {
            case COUNT -> {
                if (name != null) {
                    problems.add(path, "only sum and distinct take \"of\"");
                }
                return null;
            }
            case SUM -> {
                if (name == null) {
                    problems.add(path, "sum needs \"of\": a numeric field (amount or custom_fields.<name>)");
                    return null;
                }
                if (FieldReferences.isCustom(name)) {
                    return fields.resolve(name, path);
                }
                Field f = Field.byName(name);
                if (f == null || f.type() != Field.Type.NUMBER) {
                    problems.add(path, "sum needs a numeric field (amount or custom_fields.<name>), got \"" + name + "\"");
                    return null;
                }
                return new FieldRef.Known(f);
            }
            default -> {
                if (name == null) {
                    problems.add(path, "distinct needs \"of\": the field whose distinct values are counted");
                    return null;
                }
                return fields.resolve(name, path);
            }
        }
    }
}
