package io.vigil.rules.parse.check;

import com.fasterxml.jackson.databind.JsonNode;
import io.vigil.rules.model.FieldRef;
import io.vigil.rules.model.Operand;
import io.vigil.rules.model.Operator;
import io.vigil.rules.parse.Path;
import io.vigil.rules.parse.Problems;
import io.vigil.rules.parse.syntax.Syntax;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Operator x field type: which operand each operator takes and which field types it applies to, as
 * one table ({@link #TABLE}); the operand is read and typed by its shape. A list name is bound by
 * {@link ListReferences}, a pattern checked by {@link RegexSafety}.
 */
public final class OperandTypes {

    /** A field's type as rules see it; a custom field's is known only per transaction. */
    enum FieldType {
        TEXT("a text field", "string"), NUMBER("a number field", "number"), BOOLEAN("a boolean field", "boolean"),
        CUSTOM("a custom field", "value");

        final String description;
        final String valueName;

        FieldType(String description, String valueName) {
            this.description = description;
            this.valueName = valueName;
        }
    }

    /** What an operator's operand looks like. */
    enum Shape { NONE, SCALAR, NUMBER, TEXT, MEMBERS, RANGE, LIST_NAME, PATTERN }

    /** @param refusal what the operator does, for the message when it does not apply to a field type */
    record Row(Shape shape, Set<FieldType> appliesTo, String refusal) {
        boolean applies(FieldType t) {
            return appliesTo.contains(t);
        }
    }

    private static final Set<FieldType> ALL = Set.of(FieldType.values());
    private static final Set<FieldType> NUMERIC = Set.of(FieldType.NUMBER, FieldType.CUSTOM);
    private static final Set<FieldType> TEXTUAL = Set.of(FieldType.TEXT, FieldType.CUSTOM);
    private static final Set<FieldType> NOT_BOOLEAN = Set.of(FieldType.TEXT, FieldType.NUMBER, FieldType.CUSTOM);

    static final Map<Operator, Row> TABLE = new EnumMap<>(Map.ofEntries(
            Map.entry(Operator.EXISTS, new Row(Shape.NONE, ALL, null)),
            Map.entry(Operator.EQ, new Row(Shape.SCALAR, ALL, null)),
            Map.entry(Operator.NE, new Row(Shape.SCALAR, ALL, null)),
            Map.entry(Operator.GT, new Row(Shape.NUMBER, NUMERIC, "compares numbers")),
            Map.entry(Operator.GTE, new Row(Shape.NUMBER, NUMERIC, "compares numbers")),
            Map.entry(Operator.LT, new Row(Shape.NUMBER, NUMERIC, "compares numbers")),
            Map.entry(Operator.LTE, new Row(Shape.NUMBER, NUMERIC, "compares numbers")),
            Map.entry(Operator.BETWEEN, new Row(Shape.RANGE, NUMERIC, "compares numbers")),
            Map.entry(Operator.IN, new Row(Shape.MEMBERS, NOT_BOOLEAN, "does not apply to booleans")),
            Map.entry(Operator.NOT_IN, new Row(Shape.MEMBERS, NOT_BOOLEAN, "does not apply to booleans")),
            Map.entry(Operator.CONTAINS, new Row(Shape.TEXT, TEXTUAL, "applies to text")),
            Map.entry(Operator.STARTS_WITH, new Row(Shape.TEXT, TEXTUAL, "applies to text")),
            Map.entry(Operator.ENDS_WITH, new Row(Shape.TEXT, TEXTUAL, "applies to text")),
            Map.entry(Operator.REGEX, new Row(Shape.PATTERN, TEXTUAL, "applies to text")),
            Map.entry(Operator.IN_LIST, new Row(Shape.LIST_NAME, TEXTUAL, "compares text")),
            Map.entry(Operator.NOT_IN_LIST, new Row(Shape.LIST_NAME, TEXTUAL, "compares text"))));

    private final Problems problems;
    private final ListReferences lists;
    private final RegexSafety regexes;

    public OperandTypes(Problems problems, ListReferences lists, RegexSafety regexes) {
        this.problems = problems;
        this.lists = lists;
        this.regexes = regexes;
    }

    static FieldType typeOf(FieldRef field) {
        return switch (field) {
            case FieldRef.Custom c -> FieldType.CUSTOM;
            case FieldRef.Known k -> switch (k.field().type()) {
                case STRING -> FieldType.TEXT;
                case NUMBER -> FieldType.NUMBER;
                case BOOLEAN -> FieldType.BOOLEAN;
            };
        };
    }

    /** The leaf's operand typed for its operator and field, or null (with a problem). */
    public Operand operand(Syntax.Leaf leaf, FieldRef field) {
        Operator op = leaf.op();
        Row row = TABLE.get(op);
        FieldType type = typeOf(field);
        Leaf l = new Leaf(leaf, op, row, type, leaf.field() + " is " + type.description);
        return switch (row.shape()) {
            case NONE -> l.none();
            case MEMBERS -> l.members();
            case RANGE -> l.range();
            case LIST_NAME -> l.listName();
            default -> l.single();
        };
    }

    /** One leaf being typed: its paths and the message parts. */
    private final class Leaf {
        private final Syntax.Leaf leaf;
        private final Operator op;
        private final Row row;
        private final FieldType type;
        private final String fieldDescription;
        private final Path path;

        Leaf(Syntax.Leaf leaf, Operator op, Row row, FieldType type, String fieldDescription) {
            this.leaf = leaf;
            this.op = op;
            this.row = row;
            this.type = type;
            this.fieldDescription = fieldDescription;
            this.path = leaf.path();
        }

        /** Whether the operator applies to the field's type; if not, a problem at op. */
        private boolean applies() {
            if (row.applies(type)) {
                return true;
            }
            String hint = type == FieldType.BOOLEAN && row.shape() == Shape.MEMBERS ? " (use eq)" : "";
            problems.add(path.key("op"), op.jsonName() + " " + row.refusal() + "; " + fieldDescription + hint);
            return false;
        }

        private Path operandPath() {
            return path.key(leaf.values() != null ? "values" : "value");
        }

        private JsonNode operandNode() {
            return leaf.values() != null ? leaf.values() : leaf.value();
        }

        Operand none() {
            if (leaf.value() != null || leaf.values() != null) {
                problems.add(operandPath(), "exists takes no value");
                return null;
            }
            return Operand.NONE;
        }

        Operand members() {
            JsonNode arr = operandNode();
            if (arr == null) {
                problems.add(path.key("values"), op.jsonName() + " needs \"values\": a non-empty array");
            } else if (!arr.isArray()) {
                problems.add(operandPath(), "expected an array");
            } else if (arr.isEmpty()) {
                problems.add(operandPath(), "needs at least one value");
            } else if (applies()) {
                List<String> texts = new ArrayList<>();
                List<BigDecimal> numbers = new ArrayList<>();
                List<Boolean> booleans = new ArrayList<>();
                boolean ok = true;
                for (int i = 0; i < arr.size(); i++) {
                    Operand v = scalar(arr.get(i), operandPath().index(i));
                    switch (v) {
                        case Operand.Text t -> texts.add(t.value());
                        case Operand.Number n -> numbers.add(n.value());
                        case Operand.Bool b -> booleans.add(b.value());
                        case null, default -> ok = false;
                    }
                }
                return ok ? new Operand.Members(texts, numbers, booleans) : null;
            }
            return null;
        }

        Operand range() {
            if (!applies()) {
                return null;
            }
            JsonNode arr = operandNode();
            if (arr == null || !arr.isArray() || arr.size() != 2 || !arr.get(0).isNumber() || !arr.get(1).isNumber()) {
                problems.add(arr == null ? path.key("values") : operandPath(), "between needs exactly 2 numbers: [low, high]");
                return null;
            }
            BigDecimal lo = arr.get(0).decimalValue();
            BigDecimal hi = arr.get(1).decimalValue();
            if (lo.compareTo(hi) > 0) {
                problems.add(operandPath(), "between needs low <= high, got [" + lo + ", " + hi + "]");
                return null;
            }
            return new Operand.Range(lo, hi);
        }

        Operand listName() {
            if (leaf.values() != null) {
                problems.add(path.key("values"), op.jsonName() + " takes \"value\": the name of a list");
            } else if (leaf.value() == null || !leaf.value().isTextual()) {
                problems.add(path.key("value"), op.jsonName() + " needs \"value\": the name of a list");
            } else if (applies()) {
                return lists.resolve(leaf.value().textValue(), path.key("value"));
            }
            return null;
        }

        /** eq ne gt gte lt lte contains starts_with ends_with regex: one value. */
        Operand single() {
            if (leaf.values() != null) {
                problems.add(path.key("values"), op.jsonName() + " takes \"value\", not \"values\"");
                return null;
            }
            JsonNode v = leaf.value();
            if (v == null) {
                problems.add(path.key("value"), op.jsonName() + " needs \"value\"");
                return null;
            }
            Path vp = path.key("value");
            switch (row.shape()) {
                case NUMBER -> {
                    if (!applies()) {
                        return null;
                    }
                    if (!v.isNumber()) {
                        problems.add(vp, "expected a number");
                        return null;
                    }
                    return new Operand.Number(v.decimalValue());
                }
                case TEXT, PATTERN -> {
                    if (!applies()) {
                        return null;
                    }
                    if (!v.isTextual()) {
                        problems.add(vp, "expected a string");
                        return null;
                    }
                    if (row.shape() == Shape.TEXT) {
                        return new Operand.Text(v.textValue());
                    }
                    return regexes.check(v.textValue(), vp) ? new Operand.Pattern(v.textValue()) : null;
                }
                default -> {
                    return scalar(v, vp);
                }
            }
        }

        /** One value of the field's type (any scalar for a custom field). */
        private Operand scalar(JsonNode v, Path p) {
            if (v.isContainerNode() || v.isNull()) {
                problems.add(p, "expected a single " + type.valueName);
                return null;
            }
            boolean fits = switch (type) {
                case NUMBER -> v.isNumber();
                case TEXT -> v.isTextual();
                case BOOLEAN -> v.isBoolean();
                case CUSTOM -> v.isNumber() || v.isBoolean() || v.isTextual();
            };
            if (!fits) {
                problems.add(p, type == FieldType.CUSTOM ? "expected a string, number or boolean"
                        : "expected a " + type.valueName + " (" + fieldDescription + ")");
                return null;
            }
            if (v.isNumber()) {
                return new Operand.Number(v.decimalValue());
            }
            return v.isBoolean() ? new Operand.Bool(v.booleanValue()) : new Operand.Text(v.textValue());
        }
    }
}
