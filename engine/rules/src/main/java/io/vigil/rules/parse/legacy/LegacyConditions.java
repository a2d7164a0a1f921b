package io.vigil.rules.parse.legacy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vigil.rules.model.Names;
import io.vigil.rules.model.Operator;
import io.vigil.rules.parse.Path;
import io.vigil.rules.parse.Problems;
import io.vigil.rules.parse.SourceMap;
import io.vigil.rules.parse.check.FieldReferences;
import io.vigil.rules.parse.check.RegexSafety;
import io.vigil.rules.txn.Field;
import java.util.Iterator;
import java.util.Locale;
import java.util.Set;

/**
 * The legacy dialect's conditions, rewritten to native ones: op-style ({@code {op: and, args}}) and
 * type-style ({@code {type: or, conditions}}) logical nodes, {@code not} over a list of one, the old
 * operator spellings, the old field registry's names and bare custom field names, and the operand
 * forms the old engine read its own way (eq null, a single value for in, reversed between bounds,
 * numbers for text operators, whole-value regexes). Malformed nodes the old engine read as "true"
 * are refused here with their path.
 */
final class LegacyConditions {
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    /** Keys that give a node structure; a leaf keeps these (so they are refused) and drops other extra keys. */
    private static final Set<String> LEAF_KEPT = Set.of("field", "op", "value", "values", "args", "conditions");

    private final Problems problems;
    private final SourceMap sources;

    LegacyConditions(Problems problems, SourceMap sources) {
        this.problems = problems;
        this.sources = sources;
    }

    static boolean isLogicalOp(JsonNode op) {
        if (op == null || !op.isTextual()) {
            return false;
        }
        String s = op.textValue().trim().toLowerCase(Locale.ROOT);
        return s.equals("and") || s.equals("or") || s.equals("not");
    }

    /** Whether a condition tree has a node only the old engine wrote (op-style, type-style, operator). */
    static boolean hasLegacyNode(JsonNode n) {
        if (n == null || !n.isContainerNode()) {
            return false;
        }
        if (n.isObject() && (n.has("args") || n.has("conditions") || n.has("operator") || n.has("type")
                || isLogicalOp(n.get("op")))) {
            return true;
        }
        for (JsonNode c : n) {
            if (hasLegacyNode(c)) {
                return true;
            }
        }
        return false;
    }

    /** The condition at {@code from} rewritten to the native node at {@code to}. */
    JsonNode condition(JsonNode n, Path to, Path from) {
        sources.record(to, from);
        if (!n.isObject()) {
            return n;
        }
        JsonNode type = n.get("type");
        if (type != null && type.isTextual()) {
            String t = type.textValue().trim().toLowerCase(Locale.ROOT);
            switch (t) {
                case "and", "or", "not" -> {
                    return group(n, to, from, "type", t, "conditions");
                }
                case "condition" -> {
                    return leaf(n, to, from);
                }
                default -> {
                    problems.add(from.key("type"), "unknown node type \"" + type.textValue()
                            + "\" (expected and, or, not or condition)");
                    sources.refuse(to);
                    return n;
                }
            }
        }
        String opKey = n.has("op") ? "op" : "operator";
        if (isLogicalOp(n.get(opKey))) {
            String op = n.get(opKey).textValue().trim().toLowerCase(Locale.ROOT);
            return group(n, to, from, opKey, op, n.has("args") || !n.has("conditions") ? "args" : "conditions");
        }
        if (n.has("and") || n.has("or") || n.has("not")) {
            if (n.size() != 1) {
                return n; // the native reader refuses a node that is both
            }
            String k = n.fieldNames().next();
            JsonNode v = n.get(k);
            if (k.equals("not") && v.isArray()) { // not over a list of one
                if (v.size() != 1) {
                    problems.add(from.key("not"), "not takes exactly one condition");
                    sources.refuse(to);
                    return n;
                }
                return JSON.objectNode().set("not", condition(v.get(0), to.key("not"), from.key("not").index(0)));
            }
            if (k.equals("not")) {
                return JSON.objectNode().set("not", condition(v, to.key("not"), from.key("not")));
            }
            return JSON.objectNode().set(k, conditions(v, to.key(k), from.key(k)));
        }
        if (n.has("op") || n.has("field") || n.has("operator")) {
            return leaf(n, to, from);
        }
        return n;
    }

    /** An array of conditions rewritten one by one; anything else as it is (the reader refuses it). */
    JsonNode conditions(JsonNode v, Path to, Path from) {
        sources.record(to, from);
        if (!v.isArray()) {
            return v;
        }
        ArrayNode out = JSON.arrayNode();
        for (int i = 0; i < v.size(); i++) {
            out.add(condition(v.get(i), to.index(i), from.index(i)));
        }
        return out;
    }

    /** A logical node {headKey: op, argsKey: [...]}, op-style or type-style. */
    private JsonNode group(JsonNode n, Path to, Path from, String headKey, String op, String argsKey) {
        for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!k.equals(headKey) && !k.equals(argsKey)) {
                problems.unknownKey(from, k, "unknown key \"" + k + "\" (a logical node has \"" + headKey + "\" and \""
                        + argsKey + "\")");
            }
        }
        JsonNode args = n.get(argsKey);
        if (args == null) {
            problems.add(from.key(argsKey), op + " needs \"" + argsKey + "\"");
            sources.refuse(to);
            return n;
        }
        if (op.equals("not")) {
            if (args.isObject()) {
                return JSON.objectNode().set("not", condition(args, to.key("not"), from.key(argsKey)));
            }
            if (!args.isArray() || args.size() != 1) {
                // The old engine negated the first and dropped the rest without a word.
                problems.add(from.key(argsKey), "not takes exactly one condition");
                sources.refuse(to);
                return n;
            }
            return JSON.objectNode().set("not", condition(args.get(0), to.key("not"), from.key(argsKey).index(0)));
        }
        return JSON.objectNode().set(op, conditions(args, to.key(op), from.key(argsKey)));
    }

    private JsonNode leaf(JsonNode n, Path to, Path from) {
        ObjectNode out = JSON.objectNode();
        for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (LEAF_KEPT.contains(k)) {
                out.set(k, n.get(k));
            } else if (k.equals("and") || k.equals("or") || k.equals("not")) { // a type-style leaf with a logical key
                problems.unknownKey(from, k, "unknown key \"" + k + "\" (a leaf has field, op and value or values)");
            }
        }
        if (n.has("operator")) {
            if (n.has("op")) {
                // Refused as a whole: nothing about the operator or its operand is reported besides this.
                problems.add(from, "has both \"op\" and \"operator\"; use one");
                sources.refuse(to.key("op"));
                sources.refuse(to.key("value"));
                sources.refuse(to.key("values"));
            } else {
                out.set("op", n.get("operator"));
                sources.record(to.key("op"), from.key("operator"));
            }
        }
        Operator op = null;
        if (out.path("op").isTextual() && !sources.isRefused(to.key("op"))) {
            op = operator(out.get("op").textValue());
            if (op != null) {
                out.put("op", op.jsonName());
            }
        }
        boolean knownField = false;
        if (out.path("field").isTextual()) {
            String field = field(out.get("field").textValue(), from.key("field"));
            if (field == null) {
                sources.refuse(to.key("field"));
            } else {
                out.put("field", field);
                knownField = !FieldReferences.isCustom(field);
            }
        }
        if (!out.has("op") && !out.has("field")) { // a type-style leaf with neither
            problems.add(from.key("op"), "is required");
            problems.add(from.key("field"), "is required");
            sources.refuse(to);
        }
        return op == null ? out : operand(out, op, knownField, to);
    }

    /** The operand forms the old engine read its own way, in their native spelling. */
    private JsonNode operand(ObjectNode leaf, Operator op, boolean knownField, Path to) {
        JsonNode value = leaf.get("value");
        boolean single = value != null && !leaf.has("values");
        if ((op == Operator.EQ || op == Operator.NE) && single && value.isNull() && knownField) {
            // "eq null": the field is missing; "ne null": it is present.
            ObjectNode exists = leaf.deepCopy().put("op", "exists"); // other keys stay, to be refused
            exists.remove("value");
            if (op == Operator.NE) {
                return exists;
            }
            sources.record(to.key("not"), sources.original(to));
            return JSON.objectNode().set("not", exists);
        }
        switch (op) {
            case EXISTS -> {
                // The old compiler may write "value": true or null next to exists; it never meant anything.
                if (single && (value.isNull() || value.isBoolean() && value.booleanValue())) {
                    leaf.remove("value");
                }
            }
            case IN, NOT_IN -> {
                if (single && !value.isContainerNode() && !value.isNull()) {
                    leaf.set("value", JSON.arrayNode().add(value)); // a single value is a list of one
                }
            }
            case BETWEEN -> {
                String key = leaf.has("values") ? "values" : "value";
                JsonNode arr = leaf.get(key);
                if (arr != null && arr.isArray() && arr.size() == 2 && arr.get(0).isNumber() && arr.get(1).isNumber()
                        && arr.get(0).decimalValue().compareTo(arr.get(1).decimalValue()) > 0) {
                    leaf.set(key, JSON.arrayNode().add(arr.get(1)).add(arr.get(0))); // [high, low] meant the same range
                }
            }
            case CONTAINS, STARTS_WITH, ENDS_WITH, REGEX -> {
                if (single && value.isIntegralNumber()) {
                    leaf.put("value", value.asText()); // compared by its decimal text (starts_with 4111)
                }
                JsonNode text = leaf.get("value");
                if (op == Operator.REGEX && single && text.isTextual() && RegexSafety.problem(text.textValue()) == null) {
                    // The old engine's regex had to match the whole value; the evaluator finds, so anchor it.
                    leaf.put("value", "\\A(?:" + text.textValue() + ")\\z");
                }
            }
            default -> {
            }
        }
        return leaf;
    }

    /**
     * The old spellings of operators: any case, surrounding blanks ignored, and {@code equals},
     * {@code not_equals}, {@code matches}, plus {@code neq} (written by the old rule compiler, which the
     * old engine misread as {@code eq}; it means "not equal"). Null for a name it does not know.
     */
    static Operator operator(String name) {
        String n = name.trim().toLowerCase(Locale.ROOT);
        return switch (n) {
            case "neq", "not_equals" -> Operator.NE;
            case "equals" -> Operator.EQ;
            case "matches" -> Operator.REGEX;
            default -> Operator.byName(n);
        };
    }

    /**
     * A legacy field name: canonical names in any case, every alias of the old field registry; any
     * other name the old engine read from {@code custom_fields}, so it means {@code custom_fields.<name>}
     * here too, unless it is a near miss of a known field (a typo is refused with a hint).
     */
    private String field(String name, Path from) {
        String t = name.trim();
        if (FieldReferences.isCustom(t)) {
            return t;
        }
        Field f = Field.byName(t);
        if (f == null) {
            f = Field.byName(t.toLowerCase(Locale.ROOT));
        }
        if (f != null) {
            return f.jsonName();
        }
        String hint = Names.closest(t.toLowerCase(Locale.ROOT), Field.names());
        if (hint != null || !FieldReferences.CUSTOM_NAME.matcher(t).matches()) {
            problems.add(from, "unknown field \"" + name + "\"" + (hint == null
                    ? " (known: the transaction fields, their aliases, or a custom field name)"
                    : " (did you mean \"" + hint + "\"?)"));
            return null;
        }
        return FieldReferences.CUSTOM_PREFIX + t;
    }
}
