package io.vigil.rules.parse.syntax;

import com.fasterxml.jackson.databind.JsonNode;
import io.vigil.rules.model.Operator;
import io.vigil.rules.parse.Path;
import io.vigil.rules.parse.Problems;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * The native reader's part for conditions: and/or/not nodes and leaves {field, op, value | values},
 * their keys and the operator's name. The field and the operand are checked later, against each other.
 */
final class ConditionReader {
    private static final Set<String> LEAF_KEYS = Set.of("field", "op", "value", "values");

    private final Problems problems;

    ConditionReader(Problems problems) {
        this.problems = problems;
    }

    Syntax.Condition read(JsonNode n, Path path) {
        if (!n.isObject()) {
            problems.add(path, "expected an object (a condition: a leaf {field, op, value} or and/or/not)");
            return null;
        }
        if (n.has("and") || n.has("or") || n.has("not")) {
            if (n.size() != 1) {
                problems.add(path, "a condition node is either one of and/or/not or a leaf {field, op, value}, not both"
                        + " (keys: " + keys(n) + ")");
                return null;
            }
            String k = n.fieldNames().next();
            if (k.equals("not")) {
                Syntax.Condition c = read(n.get(k), path.key(k));
                return c == null ? null : new Syntax.Not(path, c);
            }
            List<Syntax.Condition> args = args(n.get(k), path.key(k), k);
            if (args == null) {
                return null;
            }
            return k.equals("and") ? new Syntax.All(path, args) : new Syntax.Any(path, args);
        }
        if (n.has("op") || n.has("field")) {
            return leaf(n, path);
        }
        problems.add(path, "expected a condition: a leaf {field, op, value} or one of and/or/not"
                + (n.isEmpty() ? " (the node is empty)" : " (keys: " + keys(n) + ")"));
        return null;
    }

    /**
     * The readable arguments: every one is read (so every error is reported), and the unreadable ones
     * are left out, so that the checkers still see their siblings.
     */
    private List<Syntax.Condition> args(JsonNode v, Path path, String op) {
        if (!v.isArray()) {
            problems.add(path, op + " needs an array of conditions");
            return null;
        }
        if (v.isEmpty()) {
            problems.add(path, op + " needs at least one condition");
            return null;
        }
        List<Syntax.Condition> out = new ArrayList<>();
        for (int i = 0; i < v.size(); i++) {
            Syntax.Condition c = read(v.get(i), path.index(i));
            if (c != null) {
                out.add(c);
            }
        }
        return out;
    }

    private Syntax.Leaf leaf(JsonNode n, Path path) {
        for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!LEAF_KEYS.contains(k)) {
                problems.unknownKey(path, k, "unknown key \"" + k + "\" (a leaf has field, op and value or values)");
            }
        }
        Operator op = null;
        JsonNode opNode = n.get("op");
        if (opNode == null) {
            problems.add(path.key("op"), "is required");
        } else if (!opNode.isTextual()) {
            problems.add(path.key("op"), "expected a string");
        } else {
            op = Operator.byName(opNode.textValue());
            if (op == null) {
                String hint = Operator.suggest(opNode.textValue().trim());
                problems.add(path.key("op"), "unknown operator \"" + opNode.textValue() + "\""
                        + (hint == null ? "" : " (did you mean \"" + hint + "\"?)"));
            }
        }
        String field = null;
        JsonNode fieldNode = n.get("field");
        if (fieldNode == null) {
            problems.add(path.key("field"), "is required");
        } else if (!fieldNode.isTextual()) {
            problems.add(path.key("field"), "expected a string");
        } else {
            field = fieldNode.textValue();
        }
        boolean both = n.has("value") && n.has("values");
        if (both) {
            problems.add(path, "has both \"value\" and \"values\"; use one");
        }
        return new Syntax.Leaf(path, field, op, n.get("value"), n.get("values"), !both);
    }

    private static String keys(JsonNode n) {
        List<String> k = new ArrayList<>();
        n.fieldNames().forEachRemaining(k::add);
        return String.join(", ", k);
    }
}
