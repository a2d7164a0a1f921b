package io.vigil.rules.model;

import java.util.List;

/**
 * A rule's condition tree, bound: {@code and} / {@code or} / {@code not} over leaves whose field is
 * resolved and whose operand is typed, so compiling it needs no look-up and no cast.
 */
public sealed interface Condition {

    /** All of {@code args} hold. */
    record All(List<Condition> args) implements Condition {
        public All {
            args = List.copyOf(args);
        }
    }

    /** At least one of {@code args} holds. */
    record Any(List<Condition> args) implements Condition {
        public Any {
            args = List.copyOf(args);
        }
    }

    /** {@code arg} does not hold (an unknown stays unknown, see ADR 0002). */
    record Not(Condition arg) implements Condition {
    }

    /** A comparison of one transaction field with a typed operand. */
    record Leaf(FieldRef field, Operator op, Operand operand) implements Condition {
    }
}
