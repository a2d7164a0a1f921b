package io.vigil.rules.parse.syntax;

import com.fasterxml.jackson.databind.JsonNode;
import io.vigil.rules.parse.Path;
import io.vigil.rules.parse.Problems;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Reading one scalar of an object by key, with the messages every phase uses for a wrong type or absence. */
public final class Scalars {
    private final Problems problems;

    public Scalars(Problems problems) {
        this.problems = problems;
    }

    /** Whether {@code n} has {@code key} with a non-null value. */
    public static boolean present(JsonNode n, String key) {
        JsonNode v = n.get(key);
        return v != null && !v.isNull();
    }

    /** A non-empty string, or null (with a problem unless absent and optional). */
    public String string(JsonNode obj, String key, Path path, boolean required) {
        JsonNode n = obj.get(key);
        if (n == null || n.isNull()) {
            if (required) {
                problems.add(path, "is required");
            }
            return null;
        }
        if (!n.isTextual()) {
            problems.add(path, "expected a string");
            return null;
        }
        if (n.textValue().isEmpty()) {
            problems.add(path, "must not be empty");
            return null;
        }
        return n.textValue();
    }

    public Integer integer(JsonNode obj, String key, Path path, boolean required) {
        JsonNode n = obj.get(key);
        if (n == null || n.isNull()) {
            if (required) {
                problems.add(path, "is required");
            }
            return null;
        }
        if (!n.isNumber() || !n.canConvertToExactIntegral() || !n.canConvertToInt()) {
            problems.add(path, "expected an integer");
            return null;
        }
        return n.intValue();
    }

    public Integer positiveInt(JsonNode obj, String key, Path path, boolean required) {
        Integer v = integer(obj, key, path, required);
        if (v != null && v <= 0) {
            problems.add(path, "must be a positive integer");
            return null;
        }
        return v;
    }

    public Boolean bool(JsonNode obj, String key, Path path) {
        JsonNode n = obj.get(key);
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isBoolean()) {
            problems.add(path, "expected a boolean");
            return null;
        }
        return n.booleanValue();
    }

    /** An enum constant by name in any case. */
    public <E extends Enum<E>> E enumValue(JsonNode obj, String key, Path path, Class<E> type, boolean required) {
        String s = string(obj, key, path, required);
        if (s == null) {
            return null;
        }
        try {
            return Enum.valueOf(type, s.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            List<String> names = new ArrayList<>();
            for (E c : type.getEnumConstants()) {
                names.add(c.name());
            }
            problems.add(path, "unknown value \"" + s + "\" (expected one of " + String.join(", ", names) + ")");
            return null;
        }
    }
}
