package io.vigil.rules.model;

import java.math.BigDecimal;
import java.util.List;

/**
 * A rule's condition tree: {@code and} / {@code or} / {@code not} over leaves {@code {field, op, value|values}}.
 * Leaf values are {@link String}, {@link BigDecimal} or {@link Boolean}.
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

    /**
     * A comparison of one transaction field.
     *
     * @param field  field name as written (canonical name, alias or {@code custom_fields.<name>})
     * @param value  the single operand (eq, gt, contains, regex, in_list...); null when {@code values} is used
     * @param values the operand list (in, not_in, between); empty when {@code value} is used
     */
    record Leaf(String field, Operator op, Object value, List<Object> values) implements Condition {
        public Leaf {
            values = values == null ? List.of() : List.copyOf(values);
        }
    }
}
