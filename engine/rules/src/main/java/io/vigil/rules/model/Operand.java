package io.vigil.rules.model;

import java.math.BigDecimal;
import java.util.List;
import java.util.Set;

/**
 * The typed right-hand side of a condition leaf, checked against its field and operator by the
 * ruleset front end (see docs/ruleset-language.md for which operator takes which).
 */
public sealed interface Operand {

    /** {@code exists}: no operand. */
    record None() implements Operand {
    }

    /** One number (eq, ne, gt, gte, lt, lte on a number or custom field). */
    record Number(BigDecimal value) implements Operand {
    }

    /** One text (eq, ne on a text or custom field; contains, starts_with, ends_with). */
    record Text(String value) implements Operand {
    }

    /** One boolean (eq, ne on a boolean or custom field). */
    record Bool(boolean value) implements Operand {
    }

    /** {@code between}: inclusive bounds, low <= high. */
    record Range(BigDecimal low, BigDecimal high) implements Operand {
    }

    /** {@code in} / {@code not_in}: the values by type (a custom field's list may mix them). */
    record Members(List<String> texts, List<BigDecimal> numbers, List<Boolean> booleans) implements Operand {
        public Members {
            texts = List.copyOf(texts);
            numbers = List.copyOf(numbers);
            booleans = List.copyOf(booleans);
        }
    }

    /** {@code in_list} / {@code not_in_list}: a list of the ruleset, bound to its values. */
    record NamedList(String name, Set<String> values) implements Operand {
    }

    /** {@code regex}: an RE2 pattern, checked for syntax and size. */
    record Pattern(String regex) implements Operand {
    }

    None NONE = new None();
}
