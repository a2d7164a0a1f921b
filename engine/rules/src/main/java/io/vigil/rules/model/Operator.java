package io.vigil.rules.model;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Condition operators (contract §4). Each has a canonical name and optional symbolic aliases.
 * The legacy format's other spellings are the legacy dialect's (parse.legacy.LegacyConditions).
 */
public enum Operator {
    EQ("eq", "=", "=="),
    NE("ne", "!="),
    GT("gt", ">"),
    GTE("gte", ">="),
    LT("lt", "<"),
    LTE("lte", "<="),
    IN("in"),
    NOT_IN("not_in"),
    BETWEEN("between"),
    CONTAINS("contains"),
    STARTS_WITH("starts_with"),
    ENDS_WITH("ends_with"),
    REGEX("regex"),
    EXISTS("exists"),
    IN_LIST("in_list"),
    NOT_IN_LIST("not_in_list");

    private static final Map<String, Operator> BY_NAME = new HashMap<>();
    /** Common misspellings and other engines' names, for "did you mean" hints. */
    private static final Map<String, String> HINTS = Map.ofEntries(
            Map.entry("neq", "ne"), Map.entry("not_eq", "ne"), Map.entry("<>", "ne"), Map.entry("equals", "eq"),
            Map.entry("ge", "gte"), Map.entry("le", "lte"), Map.entry("matches", "regex"), Map.entry("like", "regex"),
            Map.entry("startswith", "starts_with"), Map.entry("endswith", "ends_with"), Map.entry("nin", "not_in"),
            Map.entry("notin", "not_in"), Map.entry("range", "between"), Map.entry("present", "exists"),
            Map.entry("inlist", "in_list"), Map.entry("in_set", "in_list"));

    static {
        for (Operator o : values()) {
            BY_NAME.put(o.jsonName, o);
            for (String a : o.aliases) {
                BY_NAME.put(a, o);
            }
        }
    }

    private final String jsonName;
    private final String[] aliases;

    Operator(String jsonName, String... aliases) {
        this.jsonName = jsonName;
        this.aliases = aliases;
    }

    public String jsonName() {
        return jsonName;
    }

    /** The operator named {@code name} (canonical name or alias), or null. */
    public static Operator byName(String name) {
        return BY_NAME.get(name);
    }

    /** A suggestion for an unknown operator name, or null. */
    public static String suggest(String unknown) {
        String lower = unknown.toLowerCase(Locale.ROOT);
        if (BY_NAME.containsKey(lower)) {
            return lower;
        }
        String hint = HINTS.get(lower);
        if (hint != null) {
            return hint;
        }
        return Names.closest(lower, BY_NAME.keySet());
    }

    /** Operators that compare against a number or a string value with ordering. */
    public boolean ordering() {
        return this == GT || this == GTE || this == LT || this == LTE || this == BETWEEN;
    }

    /** Operators that only apply to text. */
    public boolean textual() {
        return this == CONTAINS || this == STARTS_WITH || this == ENDS_WITH || this == REGEX
                || this == IN_LIST || this == NOT_IN_LIST;
    }

    /** Operators whose missing-field answer would be "true" in two-valued logic; see ADR 0002. */
    public boolean negative() {
        return this == NE || this == NOT_IN || this == NOT_IN_LIST;
    }
}
