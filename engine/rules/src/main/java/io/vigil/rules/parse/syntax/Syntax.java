package io.vigil.rules.parse.syntax;

import com.fasterxml.jackson.databind.JsonNode;
import io.vigil.rules.eval.VelocityFailurePolicy;
import io.vigil.rules.model.Action;
import io.vigil.rules.model.ExecutionMode;
import io.vigil.rules.model.Operator;
import io.vigil.rules.model.RuleMode;
import io.vigil.rules.model.Scope;
import io.vigil.rules.parse.Path;
import io.vigil.rules.velocity.Aggregate;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;

/**
 * What the native reader makes of a document: every key known, every scalar of its type, names not
 * yet resolved (a leaf's field is still the text written, its operand still JSON, since which
 * operand is right depends on the field). A part the reader refused is null; the reader has said why.
 */
public interface Syntax {

    record Document(String key, Integer version, ExecutionMode mode, String country, Action defaultAction,
                    VelocityFailurePolicy velocityFailurePolicy, Map<String, List<String>> lists, List<Rule> rules) {
    }

    record Rule(Path path, String id, int version, boolean enabled, int priority, RuleMode mode, Scope scope,
                Condition condition, Velocity velocity, Action action, String description) {
    }

    /** @param aggregate COUNT when absent (and when unreadable, so that "of" is still checked) */
    record Velocity(Path path, String dimension, Integer windowSeconds, Aggregate aggregate, String of,
                    BigDecimal threshold) {
    }

    sealed interface Condition {
    }

    record All(Path path, List<Condition> args) implements Condition {
    }

    record Any(Path path, List<Condition> args) implements Condition {
    }

    record Not(Path path, Condition arg) implements Condition {
    }

    /**
     * @param field    as written; null when missing or not text
     * @param op       null when missing or unknown
     * @param value    the {@code value} node (NullNode for an explicit null), null when absent
     * @param values   likewise for {@code values}
     * @param operands false when the leaf has both value and values (nothing to check the operand against)
     */
    record Leaf(Path path, String field, Operator op, JsonNode value, JsonNode values, boolean operands)
            implements Condition {
    }
}
