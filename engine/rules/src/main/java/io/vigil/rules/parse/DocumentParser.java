package io.vigil.rules.parse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.vigil.rules.eval.Outcome;
import io.vigil.rules.eval.VelocityFailurePolicy;
import io.vigil.rules.model.Action;
import io.vigil.rules.model.Condition;
import io.vigil.rules.model.ExecutionMode;
import io.vigil.rules.model.Names;
import io.vigil.rules.model.Operator;
import io.vigil.rules.model.Rule;
import io.vigil.rules.model.RuleMode;
import io.vigil.rules.model.RulesetDocument;
import io.vigil.rules.model.Scope;
import io.vigil.rules.model.Velocity;
import io.vigil.rules.txn.Field;
import io.vigil.rules.velocity.Aggregate;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Turns a parsed JSON/YAML tree into a {@link RulesetDocument}, checking everything on the way and
 * collecting every problem (never stopping at the first). The native format is strict about keys;
 * the legacy compiled-artifact format tolerates the extra top-level and rule-level keys the old
 * engine wrote, but its conditions are checked just as strictly (the old engine's silent fallbacks
 * are the defects this rewrite fixes).
 */
final class DocumentParser {
    static final Pattern KEY = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");
    static final Pattern RULE_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}");
    static final Pattern LIST_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");
    static final Pattern CUSTOM_NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}");
    static final Pattern REASON_CODE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}");
    static final Pattern COUNTRY = Pattern.compile("[A-Z]{2}");
    static final Pattern BIN_PREFIX = Pattern.compile("[0-9]{1,8}");
    static final Pattern MCC = Pattern.compile("[0-9]{4}");
    static final int MAX_REGEX_LENGTH = 1000;
    static final String CUSTOM_PREFIX = "custom_fields.";

    private static final Set<String> NATIVE_TOP = Set.of("ruleset_key", "ruleset_version", "execution_mode",
            "country", "default_action", "velocity_failure_policy", "lists", "rules", "description");
    private static final Set<String> NATIVE_RULE = Set.of("rule_id", "rule_version", "enabled", "priority", "mode",
            "scope", "condition", "velocity", "action", "description");
    private static final Set<String> SCOPE_KEYS = Set.of("network", "bin", "mcc", "logo", "country");
    private static final Set<String> LEAF_KEYS = Set.of("field", "op", "value", "values");
    private static final Set<String> NATIVE_VELOCITY = Set.of("dimension", "window_seconds", "aggregate", "of",
            "threshold");
    private static final Set<String> ACTION_KEYS = Set.of("decision", "reason_code");
    /** Keys only the old engine's artifacts have: any of them marks a document as legacy. */
    private static final Set<String> LEGACY_TOP = Set.of("schema_version", "rulesetKey", "rulesetVersion", "version",
            "ruleset_id", "rulesetId", "generated_at", "evaluation", "rule_type", "ruleType",
            "key", "evaluation_type", "created_at", "created_by", "field_registry_version");
    private static final Set<String> LEGACY_RULE = Set.of("ruleId", "ruleVersion", "rule_version_id", "ruleVersionId",
            "when", "id", "conditions");
    /** The typed scope of the old engine's YAML format: {type: NETWORK, value: VISA}, {type: COMBINED, dimensions}. */
    private static final Set<String> TYPED_SCOPE_KEYS = Set.of("type", "value", "values", "dimensions");
    private static final Map<String, String> TYPED_SCOPE_DIMENSION = Map.of("NETWORK", "network", "BIN", "bin",
            "MCC", "mcc", "LOGO", "logo");
    /** Keys that give a legacy node structure; elsewhere the legacy format ignores keys it does not know. */
    private static final Set<String> STRUCTURAL = Set.of("and", "or", "not", "args", "conditions", "field", "op",
            "operator", "type");
    private static final Pattern VERSION_TEXT = Pattern.compile("v?([0-9]{1,9})");
    private static final Pattern INTEGER_TEXT = Pattern.compile("-?[0-9]{1,9}");
    /** The old engine's velocity defaults when a key is absent (its VelocityConfig). */
    static final int LEGACY_WINDOW_SECONDS = 3600;
    static final int LEGACY_THRESHOLD = 10;
    /** Fields that make no sense as a velocity dimension: unique per transaction or not an identity. */
    private static final Set<Field> NOT_DIMENSIONS = Set.of(Field.TRANSACTION_ID, Field.TIMESTAMP, Field.DECISION,
            Field.AMOUNT, Field.CARD_PRESENT);

    private final List<ValidationError> errors = new ArrayList<>();
    private final String keyHint;
    private final Integer versionHint;
    private boolean legacy;
    /** Legacy, in the old engine's YAML development format (key, id, conditions, evaluation_type, typed scopes). */
    private boolean yamlDialect;
    private Set<String> listNames = Set.of();

    DocumentParser() {
        this(null, null);
    }

    /**
     * @param keyHint     legacy format only: the ruleset key when the document has none (the old engine
     *                    took it from the artifact's storage path); null for none
     * @param versionHint likewise for the version
     */
    DocumentParser(String keyHint, Integer versionHint) {
        this.keyHint = keyHint;
        this.versionHint = versionHint;
    }

    List<ValidationError> errors() {
        return errors;
    }

    /**
     * Whether the document uses the old engine's format: {@code schema_version} or another key only its
     * artifacts have, at the top or in a rule, or a condition node only it wrote (op-style or
     * type-style logical nodes, {@code operator}).
     */
    static boolean isLegacy(JsonNode root) {
        for (String k : LEGACY_TOP) {
            if (root.has(k)) {
                return true;
            }
        }
        JsonNode rules = root.get("rules");
        if (rules != null && rules.isArray()) {
            for (JsonNode r : rules) {
                if (!r.isObject()) {
                    continue;
                }
                for (String k : LEGACY_RULE) {
                    if (r.has(k)) {
                        return true;
                    }
                }
                if (hasOpStyle(r.get("condition"))) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The old engine's YAML format (read by its loader's YAML path into its domain classes). */
    private static boolean isYamlDialect(JsonNode root) {
        if (root.has("key") || root.has("evaluation_type")) {
            return true;
        }
        JsonNode rules = root.get("rules");
        if (rules != null && rules.isArray()) {
            for (JsonNode r : rules) {
                if (r.isObject() && (r.has("id") || r.has("conditions"))) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean hasOpStyle(JsonNode n) {
        if (n == null || !n.isContainerNode()) {
            return false;
        }
        if (n.isObject()) {
            if (n.has("args") || n.has("conditions") || n.has("operator") || n.has("type") || isLogicalOp(n.get("op"))) {
                return true;
            }
        }
        for (JsonNode c : n) {
            if (hasOpStyle(c)) {
                return true;
            }
        }
        return false;
    }

    private static boolean isLogicalOp(JsonNode op) {
        if (op == null || !op.isTextual()) {
            return false;
        }
        String s = op.textValue().trim().toLowerCase(Locale.ROOT);
        return s.equals("and") || s.equals("or") || s.equals("not");
    }

    /** The first of {@code names} that {@code n} has with a non-null value, or null. */
    private static String present(JsonNode n, String... names) {
        for (String name : names) {
            JsonNode v = n.get(name);
            if (v != null && !v.isNull()) {
                return name;
            }
        }
        return null;
    }

    RulesetDocument parse(JsonNode root) {
        if (root == null || !root.isObject()) {
            error("$", "expected an object (a ruleset document)");
            return null;
        }
        legacy = isLegacy(root);
        yamlDialect = legacy && isYamlDialect(root);
        finiteNumbers(root, "");
        if (!errors.isEmpty()) {
            return null;
        }
        if (!legacy) {
            unknownKeys(root, NATIVE_TOP, "");
        } else {
            JsonNode sv = root.get("schema_version");
            if (sv != null && !(sv.isIntegralNumber() && sv.asInt() == 1)) {
                error("schema_version", "unsupported schema_version " + sv + " (the legacy format is version 1)");
            }
        }
        String key;
        Integer version;
        ExecutionMode mode;
        if (legacy) {
            String keyName = present(root, "ruleset_key", "rulesetKey", "key");
            key = keyName == null ? keyHint : string(root, keyName, keyName, false);
            if (keyName == null && keyHint == null) {
                error("ruleset_key", "is required");
            }
            checkKey(key);
            version = legacyVersion(root);
            mode = legacyMode(root, key);
        } else {
            key = string(root, "ruleset_key", "ruleset_key", true);
            checkKey(key);
            version = positiveInt(root, "ruleset_version", "ruleset_version", true);
            mode = enumValue(root, "execution_mode", "execution_mode", ExecutionMode.class, true);
        }
        string(root, "description", "description", false);
        String country = null;
        String c = string(root, "country", "country", false);
        if (c != null && !c.equalsIgnoreCase("global")) {
            if (!COUNTRY.matcher(c).matches()) {
                error("country", "expected an ISO 3166 alpha-2 code (e.g. \"US\") or \"global\"");
            } else {
                country = c;
            }
        }
        Action defaultAction = Action.APPROVE;
        if (root.has("default_action")) {
            Action a = action(root.get("default_action"), "default_action");
            if (a != null) {
                defaultAction = a;
            }
        }
        VelocityFailurePolicy policy = enumValue(root, "velocity_failure_policy", "velocity_failure_policy",
                VelocityFailurePolicy.class, false);
        Map<String, List<String>> lists = lists(root.get("lists"));
        listNames = lists.keySet();

        List<Rule> rules = new ArrayList<>();
        JsonNode rulesNode = root.get("rules");
        if (rulesNode == null || rulesNode.isNull()) {
            error("rules", "is required");
        } else if (!rulesNode.isArray()) {
            error("rules", "expected an array");
        } else if (rulesNode.isEmpty() && !legacy) {
            // The old engine loaded an empty artifact: every transaction gets the default decision.
            error("rules", "a ruleset needs at least one rule");
        } else {
            Map<String, Integer> seen = new HashMap<>();
            for (int i = 0; i < rulesNode.size(); i++) {
                String path = "rules[" + i + "]";
                Rule r = rule(rulesNode.get(i), path);
                if (r != null) {
                    rules.add(r);
                }
                JsonNode id = rulesNode.get(i).get(ruleIdKey(rulesNode.get(i)));
                if (id != null && id.isTextual()) {
                    Integer first = seen.putIfAbsent(id.textValue(), i);
                    if (first != null) {
                        error(path + "." + ruleIdKey(rulesNode.get(i)), "duplicate rule_id \"" + id.textValue() + "\" (first used at rules["
                                + first + "])");
                    }
                }
            }
        }
        if (!errors.isEmpty()) {
            return null;
        }
        return new RulesetDocument(legacy, key, version, mode, country, defaultAction, policy, lists, rules);
    }

    /** Every number must be a finite double: 1e999 would compare as infinity. Checked once, up front. */
    private void finiteNumbers(JsonNode n, String path) {
        if (n.isNumber()) {
            if (!Double.isFinite(n.decimalValue().doubleValue())) {
                error(path.isEmpty() ? "$" : path, "number out of range");
            }
        } else if (n.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                finiteNumbers(e.getValue(), path.isEmpty() ? e.getKey() : path + "." + e.getKey());
            }
        } else if (n.isArray()) {
            for (int i = 0; i < n.size(); i++) {
                finiteNumbers(n.get(i), path + "[" + i + "]");
            }
        }
    }

    /** Where a rule keeps its id: rule_id, or in the legacy format ruleId or (YAML format) id. */
    private String ruleIdKey(JsonNode rule) {
        if (!legacy || present(rule, "rule_id") != null) {
            return "rule_id";
        }
        return present(rule, "ruleId") != null ? "ruleId" : present(rule, "id") != null ? "id" : "rule_id";
    }

    private void checkKey(String key) {
        if (key != null && !KEY.matcher(key).matches()) {
            error("ruleset_key", "must be 1 to 64 letters, digits, '_', '.' or '-'");
        }
    }

    /** {@code ruleset_version} | {@code rulesetVersion} | {@code version}, an integer or "v3"; else the hint. */
    private Integer legacyVersion(JsonNode root) {
        String name = present(root, "ruleset_version", "rulesetVersion", "version");
        if (name == null) {
            if (versionHint == null) {
                error("ruleset_version", "is required");
            }
            return versionHint;
        }
        JsonNode n = root.get(name);
        if (n.isTextual()) {
            java.util.regex.Matcher m = VERSION_TEXT.matcher(n.textValue().trim());
            if (m.matches() && Integer.parseInt(m.group(1)) > 0) {
                return Integer.parseInt(m.group(1));
            }
            error(name, "expected a positive integer (or \"v<integer>\")");
            return null;
        }
        return positiveInt(root, name, name, true);
    }

    /**
     * {@code execution_mode}, else {@code evaluation.mode}; without either, ALL_MATCHING when
     * {@code rule_type} or the ruleset key says MONITORING, else FIRST_MATCH (the old engine's rule).
     */
    private ExecutionMode legacyMode(JsonNode root, String key) {
        if (present(root, "execution_mode") != null) {
            return enumValue(root, "execution_mode", "execution_mode", ExecutionMode.class, true);
        }
        JsonNode evaluation = root.get("evaluation");
        if (evaluation != null && evaluation.isObject() && present(evaluation, "mode") != null) {
            return enumValue(evaluation, "mode", "evaluation.mode", ExecutionMode.class, true);
        }
        if (present(root, "evaluation_type") != null) {
            // The YAML format's AUTH / MONITORING.
            String t = string(root, "evaluation_type", "evaluation_type", true);
            if (t == null) {
                return null;
            }
            switch (t.trim().toUpperCase(Locale.ROOT)) {
                case "AUTH" -> {
                    return ExecutionMode.FIRST_MATCH;
                }
                case "MONITORING" -> {
                    return ExecutionMode.ALL_MATCHING;
                }
                default -> {
                    error("evaluation_type", "unknown value \"" + t + "\" (expected AUTH or MONITORING)");
                    return null;
                }
            }
        }
        String typeName = present(root, "rule_type", "ruleType");
        String ruleType = typeName == null ? null : string(root, typeName, typeName, false);
        boolean monitoring = ruleType != null && ruleType.toUpperCase(Locale.ROOT).contains("MONITORING")
                || key != null && key.toUpperCase(Locale.ROOT).contains("MONITORING");
        return monitoring ? ExecutionMode.ALL_MATCHING : ExecutionMode.FIRST_MATCH;
    }

    private Map<String, List<String>> lists(JsonNode n) {
        Map<String, List<String>> lists = new LinkedHashMap<>();
        if (n == null || n.isNull()) {
            return lists;
        }
        if (!n.isObject()) {
            error("lists", "expected an object of named lists");
            return lists;
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String path = "lists." + e.getKey();
            if (!LIST_NAME.matcher(e.getKey()).matches()) {
                error(path, "a list name is 1 to 64 letters, digits, '_', '.' or '-'");
            }
            JsonNode arr = e.getValue();
            if (!arr.isArray()) {
                error(path, "expected an array of strings");
                continue;
            }
            List<String> values = new ArrayList<>();
            for (int i = 0; i < arr.size(); i++) {
                JsonNode v = arr.get(i);
                if (v.isTextual()) {
                    values.add(v.textValue());
                } else if (v.isIntegralNumber()) {
                    values.add(v.asText());
                } else {
                    error(path + "[" + i + "]", "expected a string");
                }
            }
            lists.put(e.getKey(), values);
        }
        return lists;
    }

    private Rule rule(JsonNode n, String path) {
        if (!n.isObject()) {
            error(path, "expected an object (a rule)");
            return null;
        }
        if (!legacy) {
            unknownKeys(n, NATIVE_RULE, path + ".");
        }
        int before = errors.size();
        String idKey = ruleIdKey(n);
        String id = string(n, idKey, path + "." + idKey, true);
        if (id != null && !RULE_ID.matcher(id).matches()) {
            error(path + "." + idKey, "must be 1 to 128 letters, digits, '_', '.', ':' or '-'");
        }
        Integer version;
        Boolean enabled;
        if (legacy) {
            String versionKey = present(n, "rule_version") == null && present(n, "ruleVersion") != null
                    ? "ruleVersion" : "rule_version";
            version = integer(n, versionKey, path + "." + versionKey, false);
            if (version != null && version < 0) {
                error(path + "." + versionKey, "must not be negative");
            }
            enabled = legacyBool(n, "enabled", path + ".enabled");
        } else {
            version = positiveInt(n, "rule_version", path + ".rule_version", false);
            enabled = bool(n, "enabled", path + ".enabled");
        }
        Integer priority = integer(n, "priority", path + ".priority", false);
        RuleMode mode = enumValue(n, "mode", path + ".mode", RuleMode.class, false);
        Scope scope = n.has("scope") ? scope(n.get("scope"), path + ".scope") : Scope.GLOBAL;
        Condition condition = null;
        // null = no condition, as when absent; the legacy format also calls it "when".
        String conditionKey = legacy && present(n, "condition") == null ? "when" : "condition";
        if (n.has(conditionKey) && !n.get(conditionKey).isNull()) {
            condition = condition(n.get(conditionKey), path + "." + conditionKey);
            if (legacy && present(n, "conditions") != null) {
                error(path + ".conditions", "has both \"" + conditionKey + "\" and \"conditions\"; use one");
            }
        } else if (legacy && present(n, "conditions") != null) {
            condition = conditionList(n.get("conditions"), path + ".conditions");
        }
        Velocity velocity = n.has("velocity") && !n.get("velocity").isNull()
                ? velocity(n.get("velocity"), path + ".velocity") : null;
        Action action = null;
        if (legacy && present(n, "action") == null) {
            action = Action.APPROVE; // the old engine's default for a rule without an action
        } else if (!n.has("action")) {
            error(path + ".action", "is required");
        } else {
            action = action(n.get("action"), path + ".action");
        }
        String description = string(n, "description", path + ".description", false);
        if (errors.size() != before) {
            return null;
        }
        return new Rule(id, version == null ? 1 : version, enabled == null || enabled,
                priority == null ? 0 : priority, mode == null ? RuleMode.ACTIVE : mode, scope, condition, velocity,
                action, description);
    }

    /** The YAML format's {@code conditions}: a list that must all hold; empty means always. */
    private Condition conditionList(JsonNode n, String path) {
        if (!n.isArray()) {
            error(path, "expected an array of conditions (all must hold)");
            return null;
        }
        if (n.isEmpty()) {
            return null;
        }
        List<Condition> all = args(n, path, "conditions");
        return all == null ? null : all.size() == 1 ? all.get(0) : new Condition.All(all);
    }

    /** The YAML format's typed scope: {type: NETWORK|BIN|MCC|LOGO, value | values}, {type: COMBINED, dimensions}, {type: GLOBAL}. */
    private Scope typedScope(JsonNode n, String path) {
        unknownKeys(n, TYPED_SCOPE_KEYS, path + ".");
        JsonNode type = n.get("type");
        String t = type.isTextual() ? type.textValue().trim().toUpperCase(Locale.ROOT) : "";
        if (t.equals("GLOBAL")) {
            return Scope.GLOBAL;
        }
        if (t.equals("COMBINED")) {
            JsonNode dims = n.get("dimensions");
            if (dims == null || !dims.isObject()) {
                error(path + ".dimensions", "a COMBINED scope needs \"dimensions\": {network, bin, mcc, logo}");
                return Scope.GLOBAL;
            }
            return scope(dims, path + ".dimensions");
        }
        String dimension = TYPED_SCOPE_DIMENSION.get(t);
        if (dimension == null) {
            error(path + ".type", "unknown scope type " + type + " (expected GLOBAL, NETWORK, BIN, MCC, LOGO or COMBINED)");
            return Scope.GLOBAL;
        }
        String valueKey = present(n, "values") != null ? "values" : "value";
        if (present(n, valueKey) == null) {
            error(path + ".value", "a " + t + " scope needs \"value\" or \"values\"");
            return Scope.GLOBAL;
        }
        List<String> values = dimensionValues(n.get(valueKey), dimension, path + "." + valueKey, dimensionPattern(dimension),
                dimensionMessage(dimension));
        return switch (dimension) {
            case "network" -> new Scope(values, List.of(), List.of(), List.of(), List.of());
            case "bin" -> new Scope(List.of(), values, List.of(), List.of(), List.of());
            case "mcc" -> new Scope(List.of(), List.of(), values, List.of(), List.of());
            default -> new Scope(List.of(), List.of(), List.of(), values, List.of());
        };
    }

    private static Pattern dimensionPattern(String dimension) {
        return switch (dimension) {
            case "bin" -> BIN_PREFIX;
            case "mcc" -> MCC;
            case "country" -> COUNTRY;
            default -> null;
        };
    }

    private static String dimensionMessage(String dimension) {
        return switch (dimension) {
            case "bin" -> "a BIN prefix is 1 to 8 digits";
            case "mcc" -> "an MCC is 4 digits";
            case "country" -> "expected an ISO 3166 alpha-2 code (e.g. \"US\")";
            default -> null;
        };
    }

    private Scope scope(JsonNode n, String path) {
        if (n.isNull()) {
            return Scope.GLOBAL;
        }
        if (yamlDialect && n.isObject() && n.has("type")) {
            return typedScope(n, path);
        }
        if (legacy && (n.isTextual() && n.textValue().trim().equalsIgnoreCase("GLOBAL") || n.isArray() && n.isEmpty())) {
            return Scope.GLOBAL;
        }
        if (!n.isObject()) {
            error(path, "expected an object with any of network, bin, mcc, logo, country");
            return Scope.GLOBAL;
        }
        unknownKeys(n, SCOPE_KEYS, path + ".");
        return new Scope(
                scopeValues(n, "network", path, null, null),
                scopeValues(n, "bin", path, BIN_PREFIX, dimensionMessage("bin")),
                scopeValues(n, "mcc", path, MCC, dimensionMessage("mcc")),
                scopeValues(n, "logo", path, null, null),
                scopeValues(n, "country", path, COUNTRY, dimensionMessage("country")));
    }

    private List<String> scopeValues(JsonNode scope, String key, String path, Pattern pattern, String patternMessage) {
        return dimensionValues(scope.get(key), key, path + "." + key, pattern, patternMessage);
    }

    /** The values of one scope dimension {@code key}, a string or a list, at path {@code p}. */
    private List<String> dimensionValues(JsonNode n, String key, String p, Pattern pattern, String patternMessage) {
        if (n == null || n.isNull()) {
            return List.of();
        }
        List<JsonNode> items = new ArrayList<>();
        boolean array = n.isArray();
        if (array) {
            n.forEach(items::add);
            if (items.isEmpty() && !legacy) { // the old engine read an empty list as "any"
                error(p, "needs at least one value (leave " + key + " out to match any)");
            }
        } else {
            items.add(n);
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            JsonNode v = items.get(i);
            String ip = array ? p + "[" + i + "]" : p;
            String s = v.isTextual() ? v.textValue() : v.isIntegralNumber() && pattern != null && pattern != COUNTRY
                    ? v.asText() : null;
            if (s == null) {
                error(ip, "expected a string");
            } else if (s.isEmpty()) {
                error(ip, "must not be empty");
            } else if (pattern != null && !pattern.matcher(s).matches()) {
                error(ip, patternMessage + ", got \"" + s + "\"");
            } else {
                out.add(s);
            }
        }
        return out;
    }

    // ---- conditions -------------------------------------------------------------------------------

    private Condition condition(JsonNode n, String path) {
        if (n == null || !n.isObject()) {
            error(path, "expected an object (a condition: a leaf {field, op, value} or and/or/not)");
            return null;
        }
        if (legacy) {
            JsonNode type = n.get("type");
            if (type != null && type.isTextual()) {
                // Type-style: {"type": "and"|"or"|"not", "conditions": [...]} or {"type": "condition", field, operator, value}
                String t = type.textValue().trim().toLowerCase(Locale.ROOT);
                switch (t) {
                    case "and", "or", "not" -> {
                        return legacyGroup(n, path, "type", t, "conditions");
                    }
                    case "condition" -> {
                        return leaf(n, path);
                    }
                    default -> {
                        error(path + ".type", "unknown node type \"" + type.textValue()
                                + "\" (expected and, or, not or condition)");
                        return null;
                    }
                }
            }
            String opKey = n.has("op") ? "op" : "operator";
            if (isLogicalOp(n.get(opKey))) {
                String op = n.get(opKey).textValue().trim().toLowerCase(Locale.ROOT);
                return legacyGroup(n, path, opKey, op, n.has("args") || !n.has("conditions") ? "args" : "conditions");
            }
        }
        boolean group = n.has("and") || n.has("or") || n.has("not");
        if (group) {
            if (n.size() != 1) {
                error(path, "a condition node is either one of and/or/not or a leaf {field, op, value}, not both"
                        + " (keys: " + keys(n) + ")");
                return null;
            }
            String k = n.fieldNames().next();
            JsonNode v = n.get(k);
            if (k.equals("not")) {
                if (v.isArray() && legacy) {
                    if (v.size() != 1) {
                        error(path + ".not", "not takes exactly one condition");
                        return null;
                    }
                    Condition c = condition(v.get(0), path + ".not[0]");
                    return c == null ? null : new Condition.Not(c);
                }
                Condition c = condition(v, path + ".not");
                return c == null ? null : new Condition.Not(c);
            }
            List<Condition> args = args(v, path + "." + k, k);
            if (args == null) {
                return null;
            }
            return k.equals("and") ? new Condition.All(args) : new Condition.Any(args);
        }
        if (n.has("op") || n.has("field") || legacy && n.has("operator")) {
            return leaf(n, path);
        }
        error(path, "expected a condition: a leaf {field, op, value} or one of and/or/not"
                + (n.isEmpty() ? " (the node is empty)" : " (keys: " + keys(n) + ")"));
        return null;
    }

    /**
     * A legacy logical node: {@code {headKey: op, argsKey: [...]}}, op-style ({@code op}/{@code operator}
     * with {@code args}/{@code conditions}) or type-style ({@code type} with {@code conditions}).
     */
    private Condition legacyGroup(JsonNode n, String path, String headKey, String op, String argsKey) {
        for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!k.equals(headKey) && !k.equals(argsKey)) {
                error(path + "." + k, "unknown key \"" + k + "\" (a logical node has \"" + headKey + "\" and \""
                        + argsKey + "\")");
            }
        }
        JsonNode args = n.get(argsKey);
        if (args == null) {
            error(path + "." + argsKey, op + " needs \"" + argsKey + "\"");
            return null;
        }
        String argsPath = path + "." + argsKey;
        if (op.equals("not")) {
            if (args.isObject()) {
                Condition c = condition(args, argsPath);
                return c == null ? null : new Condition.Not(c);
            }
            if (!args.isArray() || args.size() != 1) {
                // The old engine negated the first and dropped the rest without a word.
                error(argsPath, "not takes exactly one condition");
                return null;
            }
            Condition c = condition(args.get(0), argsPath + "[0]");
            return c == null ? null : new Condition.Not(c);
        }
        List<Condition> list = args(args, argsPath, op);
        if (list == null) {
            return null;
        }
        return op.equals("and") ? new Condition.All(list) : new Condition.Any(list);
    }

    private List<Condition> args(JsonNode v, String path, String op) {
        if (!v.isArray()) {
            error(path, op + " needs an array of conditions");
            return null;
        }
        if (v.isEmpty()) {
            error(path, op + " needs at least one condition");
            return null;
        }
        List<Condition> out = new ArrayList<>();
        boolean ok = true;
        for (int i = 0; i < v.size(); i++) {
            Condition c = condition(v.get(i), path + "[" + i + "]");
            if (c == null) {
                ok = false;
            } else {
                out.add(c);
            }
        }
        return ok ? out : null;
    }

    private Condition leaf(JsonNode n, String path) {
        int before = errors.size();
        for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            // Legacy leaves may carry the old compiler's extra keys, but not another node's structure.
            boolean known = legacy ? !STRUCTURAL.contains(k) || k.equals("field") || k.equals("op")
                    || k.equals("operator") || k.equals("type") : LEAF_KEYS.contains(k);
            if (!known) {
                error(path + "." + k, "unknown key \"" + k + "\" (a leaf has field, op and value or values)");
            }
        }
        Operator op = null;
        String opKey = legacy && !n.has("op") && n.has("operator") ? "operator" : "op";
        JsonNode opNode = n.get(opKey);
        if (legacy && n.has("op") && n.has("operator")) {
            error(path, "has both \"op\" and \"operator\"; use one");
        } else if (opNode == null) {
            error(path + ".op", "is required");
        } else if (!opNode.isTextual()) {
            error(path + "." + opKey, "expected a string");
        } else {
            String name = opNode.textValue();
            op = legacy ? Operator.byLegacyName(name) : Operator.byName(name);
            if (op == null) {
                String hint = Operator.suggest(name.trim());
                error(path + "." + opKey, "unknown operator \"" + name + "\"" + (hint == null ? "" : " (did you mean \"" + hint + "\"?)"));
            }
        }
        String field = null;
        FieldType type = null;
        JsonNode fieldNode = n.get("field");
        if (fieldNode == null) {
            error(path + ".field", "is required");
        } else if (!fieldNode.isTextual()) {
            error(path + ".field", "expected a string");
        } else {
            field = legacy ? legacyField(fieldNode.textValue(), path + ".field") : fieldNode.textValue();
            type = field == null ? null : fieldType(field, path + ".field");
        }
        boolean hasValue = n.has("value");
        boolean hasValues = n.has("values");
        if (hasValue && hasValues) {
            error(path, "has both \"value\" and \"values\"; use one");
            return null;
        }
        if (op == null || type == null) {
            return null;
        }
        if (legacy && (op == Operator.EQ || op == Operator.NE) && hasValue && n.get("value").isNull()
                && type != FieldType.CUSTOM) {
            // The old engine's "eq null": the field is missing; "ne null": it is present.
            Condition exists = new Condition.Leaf(field, Operator.EXISTS, null, null);
            return errors.size() != before ? null : op == Operator.EQ ? new Condition.Not(exists) : exists;
        }
        Object value = null;
        List<Object> values = List.of();
        String fieldDesc = field + " is " + type.description;
        switch (op) {
            case EXISTS -> {
                // The old compiler may write "value": true or null next to exists; it never meant anything.
                boolean ignorable = legacy && hasValue && (n.get("value").isNull()
                        || n.get("value").isBoolean() && n.get("value").booleanValue());
                if ((hasValue && !ignorable) || hasValues) {
                    error(path + (hasValue ? ".value" : ".values"), "exists takes no value");
                }
            }
            case IN, NOT_IN -> {
                JsonNode arr = hasValues ? n.get("values") : n.get("value");
                String vp = path + (hasValues ? ".values" : ".value");
                if (legacy && !hasValues && arr != null && !arr.isContainerNode() && !arr.isNull()) {
                    arr = JsonNodeFactory.instance.arrayNode().add(arr); // the old engine read a single value as a list of one
                }
                if (arr == null) {
                    error(path + ".values", op.jsonName() + " needs \"values\": a non-empty array");
                } else if (!arr.isArray()) {
                    error(vp, "expected an array");
                } else if (arr.isEmpty()) {
                    error(vp, "needs at least one value");
                } else {
                    if (type == FieldType.BOOLEAN) {
                        error(path + ".op", op.jsonName() + " does not apply to booleans; " + fieldDesc + " (use eq)");
                    } else {
                        List<Object> list = new ArrayList<>();
                        for (int i = 0; i < arr.size(); i++) {
                            Object v = scalar(arr.get(i), vp + "[" + i + "]", type, fieldDesc);
                            if (v != null) {
                                list.add(v);
                            }
                        }
                        values = list;
                    }
                }
            }
            case BETWEEN -> {
                JsonNode arr = hasValues ? n.get("values") : n.get("value");
                String vp = path + (hasValues ? ".values" : ".value");
                if (type == FieldType.STRING || type == FieldType.BOOLEAN) {
                    error(path + ".op", "between compares numbers; " + fieldDesc);
                } else if (arr == null || !arr.isArray() || arr.size() != 2 || !arr.get(0).isNumber()
                        || !arr.get(1).isNumber()) {
                    error(arr == null ? path + ".values" : vp, "between needs exactly 2 numbers: [low, high]");
                } else {
                    BigDecimal lo = arr.get(0).decimalValue();
                    BigDecimal hi = arr.get(1).decimalValue();
                    if (legacy && lo.compareTo(hi) > 0) { // the old engine took [high, low] as the same range
                        BigDecimal t = lo;
                        lo = hi;
                        hi = t;
                    }
                    if (lo.compareTo(hi) > 0) {
                        error(vp, "between needs low <= high, got [" + lo + ", " + hi + "]");
                    }
                    values = List.of(lo, hi);
                }
            }
            case IN_LIST, NOT_IN_LIST -> {
                if (hasValues) {
                    error(path + ".values", op.jsonName() + " takes \"value\": the name of a list");
                } else if (!hasValue || !n.get("value").isTextual()) {
                    error(path + ".value", op.jsonName() + " needs \"value\": the name of a list");
                } else if (type != FieldType.STRING && type != FieldType.CUSTOM) {
                    error(path + ".op", op.jsonName() + " compares text; " + fieldDesc);
                } else {
                    String list = n.get("value").textValue();
                    if (!listNames.contains(list)) {
                        error(path + ".value", "unknown list \"" + list + "\"" + (listNames.isEmpty()
                                ? " (the ruleset defines no lists)" : " (lists: " + String.join(", ", new TreeSet<>(listNames)) + ")"));
                    }
                    value = list;
                }
            }
            default -> {
                // eq ne gt gte lt lte contains starts_with ends_with regex: one scalar
                if (hasValues) {
                    error(path + ".values", op.jsonName() + " takes \"value\", not \"values\"");
                    break;
                }
                if (!hasValue) {
                    error(path + ".value", op.jsonName() + " needs \"value\"");
                    break;
                }
                JsonNode v = n.get("value");
                String vp = path + ".value";
                if (op.ordering()) {
                    if (type == FieldType.STRING || type == FieldType.BOOLEAN) {
                        error(path + ".op", op.jsonName() + " compares numbers; " + fieldDesc);
                    } else if (!v.isNumber()) {
                        error(vp, "expected a number");
                    } else {
                        value = v.decimalValue();
                    }
                } else if (op.textual()) {
                    // The old engine compared a number operand by its decimal text (starts_with 4111).
                    String text = v.isTextual() ? v.textValue() : legacy && v.isIntegralNumber() ? v.asText() : null;
                    if (type == FieldType.NUMBER || type == FieldType.BOOLEAN) {
                        error(path + ".op", op.jsonName() + " applies to text; " + fieldDesc);
                    } else if (text == null) {
                        error(vp, "expected a string");
                    } else {
                        value = text;
                        if (op == Operator.REGEX && regex(text, vp) && legacy) {
                            value = fullMatch(text);
                        }
                    }
                } else {
                    value = scalar(v, vp, type, fieldDesc);
                }
            }
        }
        if (errors.size() != before) {
            return null;
        }
        return new Condition.Leaf(field, op, value, values);
    }

    /**
     * Checks a pattern against RE2 syntax, which the evaluator uses: RE2/J matches in time linear in
     * the input, so no pattern (such as {@code (a+)+$}) can stall evaluation on a hostile value. RE2
     * has no backreferences or lookaround, the features that need backtracking.
     */
    private boolean regex(String s, String path) {
        if (s.length() > MAX_REGEX_LENGTH) {
            error(path, "regex longer than " + MAX_REGEX_LENGTH + " characters");
            return false;
        }
        long atoms = RegexSize.atoms(s);
        if (atoms > RegexSize.MAX_ATOMS) {
            error(path, "regex too large: its counted repetitions expand to " + (atoms >= 1_000_000_000L ? "over 10^9" : atoms)
                    + " atoms (at most " + RegexSize.MAX_ATOMS + "); x{n} compiles to n copies of x, so nested counts multiply");
            return false;
        }
        try {
            com.google.re2j.Pattern.compile(s);
            return true;
        } catch (com.google.re2j.PatternSyntaxException e) {
            // The message names the offending part: "missing closing ]: `[a-z`".
            String why = e.getMessage().replaceFirst("^error parsing regexp: ", "");
            error(path, "invalid regex: " + why + " (RE2 syntax: no backreferences or lookaround)");
            return false;
        }
    }

    /** The old engine's regex had to match the whole value (Matcher.matches); the evaluator finds, so anchor it. */
    static String fullMatch(String pattern) {
        return "\\A(?:" + pattern + ")\\z";
    }

    /**
     * A legacy field name: canonical names in any case, every alias of the old field registry; any
     * other name the old engine read from {@code custom_fields}, so it means {@code custom_fields.<name>}
     * here too, unless it is a near miss of a known field (a typo is refused with a hint).
     */
    private String legacyField(String name, String path) {
        String t = name.trim();
        if (t.startsWith(CUSTOM_PREFIX)) {
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
        if (hint != null || !CUSTOM_NAME.matcher(t).matches()) {
            error(path, "unknown field \"" + name + "\"" + (hint == null
                    ? " (known: the transaction fields, their aliases, or a custom field name)"
                    : " (did you mean \"" + hint + "\"?)"));
            return null;
        }
        return CUSTOM_PREFIX + t;
    }

    /** A scalar operand of eq/ne/in/not_in, type-checked against the field. */
    private Object scalar(JsonNode v, String path, FieldType type, String fieldDesc) {
        if (v.isContainerNode() || v.isNull()) {
            error(path, "expected a single " + (type == FieldType.CUSTOM ? "value" : type.valueName));
            return null;
        }
        switch (type) {
            case NUMBER -> {
                if (!v.isNumber()) {
                    error(path, "expected a number (" + fieldDesc + ")");
                    return null;
                }
                return v.decimalValue();
            }
            case STRING -> {
                if (!v.isTextual()) {
                    error(path, "expected a string (" + fieldDesc + ")");
                    return null;
                }
                return v.textValue();
            }
            case BOOLEAN -> {
                if (!v.isBoolean()) {
                    error(path, "expected a boolean (" + fieldDesc + ")");
                    return null;
                }
                return v.booleanValue();
            }
            default -> {
                if (v.isNumber()) {
                    return v.decimalValue();
                }
                if (v.isBoolean()) {
                    return v.booleanValue();
                }
                if (v.isTextual()) {
                    return v.textValue();
                }
                error(path, "expected a string, number or boolean");
                return null;
            }
        }
    }

    enum FieldType {
        STRING("a text field", "string"), NUMBER("a number field", "number"), BOOLEAN("a boolean field", "boolean"),
        CUSTOM("a custom field", "value");

        final String description;
        final String valueName;

        FieldType(String description, String valueName) {
            this.description = description;
            this.valueName = valueName;
        }
    }

    /** The type of a field reference, or null (with an error) when the field is unknown. */
    private FieldType fieldType(String name, String path) {
        if (name.startsWith(CUSTOM_PREFIX)) {
            String custom = name.substring(CUSTOM_PREFIX.length());
            if (!CUSTOM_NAME.matcher(custom).matches()) {
                error(path, "a custom field is custom_fields.<name> with a name of letters, digits, '_', '.' or '-'");
                return null;
            }
            return FieldType.CUSTOM;
        }
        Field f = Field.byName(name);
        if (f == null) {
            String hint = Names.closest(name, Field.names());
            error(path, "unknown field \"" + name + "\"" + (hint == null
                    ? " (known: the transaction fields of the contract, their aliases, or custom_fields.<name>)"
                    : " (did you mean \"" + hint + "\"?)"));
            return null;
        }
        return switch (f.type()) {
            case STRING -> FieldType.STRING;
            case NUMBER -> FieldType.NUMBER;
            case BOOLEAN -> FieldType.BOOLEAN;
        };
    }

    // ---- velocity, action --------------------------------------------------------------------------

    private Velocity velocity(JsonNode n, String path) {
        if (!n.isObject()) {
            error(path, "expected an object {dimension, window_seconds, aggregate, of, threshold}");
            return null;
        }
        if (!legacy) {
            unknownKeys(n, NATIVE_VELOCITY, path + ".");
        }
        int before = errors.size();
        String dimension = null;
        String dim = string(n, "dimension", path + ".dimension", true);
        if (dim != null) {
            Field f = Field.byName(dim);
            if (f == null || f.type() != Field.Type.STRING || NOT_DIMENSIONS.contains(f)) {
                error(path + ".dimension", "unknown dimension \"" + dim + "\" (use a transaction field that identifies"
                        + " something, e.g. card_hash, device_id, ip_address, email, merchant_id)");
            } else {
                dimension = f.jsonName();
            }
        }
        Integer window = legacy ? legacyInt(n, "window_seconds", path + ".window_seconds", LEGACY_WINDOW_SECONDS)
                : integer(n, "window_seconds", path + ".window_seconds", true);
        if (window != null && (window <= 0 || window > Velocity.MAX_WINDOW_SECONDS)) {
            error(path + ".window_seconds", "must be between 1 and " + Velocity.MAX_WINDOW_SECONDS
                    + " seconds (7 days), got " + window);
        }
        Aggregate aggregate = enumValue(n, "aggregate", path + ".aggregate", Aggregate.class, false);
        if (aggregate == null) {
            aggregate = Aggregate.COUNT;
        }
        String of = null;
        String ofName = string(n, "of", path + ".of", false);
        switch (aggregate) {
            case COUNT -> {
                if (ofName != null) {
                    error(path + ".of", "only sum and distinct take \"of\"");
                }
            }
            case SUM -> {
                if (ofName == null) {
                    error(path + ".of", "sum needs \"of\": a numeric field (amount or custom_fields.<name>)");
                } else if (ofName.startsWith(CUSTOM_PREFIX)) {
                    of = fieldType(ofName, path + ".of") == null ? null : ofName;
                } else {
                    Field f = Field.byName(ofName);
                    if (f == null || f.type() != Field.Type.NUMBER) {
                        error(path + ".of", "sum needs a numeric field (amount or custom_fields.<name>), got \"" + ofName + "\"");
                    } else {
                        of = f.jsonName();
                    }
                }
            }
            case DISTINCT -> {
                if (ofName == null) {
                    error(path + ".of", "distinct needs \"of\": the field whose distinct values are counted");
                } else if (fieldType(ofName, path + ".of") != null) {
                    Field f = Field.byName(ofName);
                    of = f == null ? ofName : f.jsonName();
                }
            }
        }
        BigDecimal threshold = null;
        JsonNode t = n.get("threshold");
        if (legacy) {
            // The old engine counted whole transactions against an integer threshold (default 10).
            Integer legacyThreshold = legacyInt(n, "threshold", path + ".threshold", LEGACY_THRESHOLD);
            if (legacyThreshold != null && legacyThreshold <= 0) {
                error(path + ".threshold", "must be greater than 0");
            } else if (legacyThreshold != null) {
                threshold = BigDecimal.valueOf(legacyThreshold);
            }
        } else if (t == null) {
            error(path + ".threshold", "is required");
        } else if (!t.isNumber()) {
            error(path + ".threshold", "expected a number");
        } else if (t.decimalValue().signum() <= 0) {
            error(path + ".threshold", "must be greater than 0");
        } else {
            threshold = t.decimalValue();
        }
        Outcome legacyAction = null;
        if (legacy) {
            JsonNode a = n.get("action");
            if (a != null) {
                Action act = action(a, path + ".action");
                legacyAction = act == null ? null : act.decision();
            }
            JsonNode cmp = n.get("comparison");
            if (cmp != null && !(cmp.isTextual() && cmp.textValue().equals(">="))) {
                error(path + ".comparison", "only \">=\" is supported (the rule matches when the count reaches the threshold)");
            }
        }
        if (errors.size() != before) {
            return null;
        }
        return new Velocity(dimension, window, aggregate, of, threshold, legacyAction);
    }

    private Action action(JsonNode n, String path) {
        if (n.isTextual()) {
            Outcome o = outcome(n.textValue(), path);
            return o == null ? null : new Action(o, null);
        }
        if (!n.isObject()) {
            error(path, "expected a decision string or an object {decision, reason_code}");
            return null;
        }
        if (!legacy) {
            unknownKeys(n, ACTION_KEYS, path + ".");
        }
        // Legacy: {"decision": X}, else {"action": X}, else no decision at all (a MONITORING action such
        // as {"severity": "HIGH"}), which the old engine read as APPROVE.
        String decisionKey = legacy && present(n, "decision") == null && present(n, "action") != null ? "action" : "decision";
        JsonNode d = n.get(decisionKey);
        Outcome o = null;
        if (legacy && present(n, decisionKey) == null) {
            o = Outcome.APPROVE;
        } else if (d == null) {
            error(path + ".decision", "is required");
        } else if (!d.isTextual()) {
            error(path + "." + decisionKey, "expected a string");
        } else {
            o = outcome(d.textValue(), path + "." + decisionKey);
        }
        String reason = string(n, "reason_code", path + ".reason_code", false);
        if (reason != null && !REASON_CODE.matcher(reason).matches()) {
            error(path + ".reason_code", "must be 1 to 64 letters, digits, '_', '.', ':' or '-'");
            reason = null;
        }
        return o == null ? null : new Action(o, reason);
    }

    private Outcome outcome(String s, String path) {
        if (legacy) {
            // The old engine's synonyms, any case, blanks trimmed.
            switch (s.trim().toUpperCase(Locale.ROOT)) {
                case "APPROVE", "APPROVED", "ALLOW" -> {
                    return Outcome.APPROVE;
                }
                case "DECLINE", "DECLINED", "BLOCK" -> {
                    return Outcome.DECLINE;
                }
                case "REVIEW", "FLAG" -> {
                    return Outcome.REVIEW;
                }
                default -> {
                    // the old engine silently approved: refuse
                }
            }
        }
        try {
            return Outcome.valueOf(s.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            error(path, "unknown decision \"" + s + "\" (expected APPROVE, DECLINE or REVIEW)");
            return null;
        }
    }

    // ---- scalar helpers ------------------------------------------------------------------------------

    private String string(JsonNode obj, String key, String path, boolean required) {
        JsonNode n = obj.get(key);
        if (n == null || n.isNull()) {
            if (required) {
                error(path, "is required");
            }
            return null;
        }
        if (!n.isTextual()) {
            error(path, "expected a string");
            return null;
        }
        if (n.textValue().isEmpty()) {
            error(path, "must not be empty");
            return null;
        }
        return n.textValue();
    }

    private Integer integer(JsonNode obj, String key, String path, boolean required) {
        JsonNode n = obj.get(key);
        if (n == null || n.isNull()) {
            if (required) {
                error(path, "is required");
            }
            return null;
        }
        if (!n.isNumber() || !n.canConvertToExactIntegral() || !n.canConvertToInt()) {
            error(path, "expected an integer");
            return null;
        }
        return n.intValue();
    }

    /** Legacy integers: absent means {@code absent}; digit strings count, as the old engine's Jackson binding coerced them. */
    private Integer legacyInt(JsonNode obj, String key, String path, int absent) {
        JsonNode n = obj.get(key);
        if (n == null || n.isNull()) {
            return absent;
        }
        if (n.isTextual() && INTEGER_TEXT.matcher(n.textValue().trim()).matches()) {
            return Integer.valueOf(n.textValue().trim());
        }
        return integer(obj, key, path, true);
    }

    /** Legacy booleans: also "true"/"false" and integers (0 is false), as the old engine's asBoolean read them. */
    private Boolean legacyBool(JsonNode obj, String key, String path) {
        JsonNode n = obj.get(key);
        if (n == null || n.isNull() || n.isBoolean()) {
            return bool(obj, key, path);
        }
        if (n.isTextual() && (n.textValue().trim().equals("true") || n.textValue().trim().equals("false"))) {
            return n.textValue().trim().equals("true");
        }
        if (n.isIntegralNumber()) {
            return n.bigIntegerValue().signum() != 0;
        }
        error(path, "expected a boolean (the legacy format also takes \"true\", \"false\" and integers)");
        return null;
    }

    private Integer positiveInt(JsonNode obj, String key, String path, boolean required) {
        Integer v = integer(obj, key, path, required);
        if (v != null && v <= 0) {
            error(path, "must be a positive integer");
            return null;
        }
        return v;
    }

    private Boolean bool(JsonNode obj, String key, String path) {
        JsonNode n = obj.get(key);
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isBoolean()) {
            error(path, "expected a boolean");
            return null;
        }
        return n.booleanValue();
    }

    private <E extends Enum<E>> E enumValue(JsonNode obj, String key, String path, Class<E> type, boolean required) {
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
            error(path, "unknown value \"" + s + "\" (expected one of " + String.join(", ", names) + ")");
            return null;
        }
    }

    private void unknownKeys(JsonNode n, Set<String> known, String prefix) {
        for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!known.contains(k)) {
                String hint = Names.closest(k, known);
                error(prefix + k, "unknown key \"" + k + "\"" + (hint == null ? "" : " (did you mean \"" + hint + "\"?)"));
            }
        }
    }

    private static String keys(JsonNode n) {
        List<String> k = new ArrayList<>();
        n.fieldNames().forEachRemaining(k::add);
        return String.join(", ", k);
    }

    private void error(String path, String message) {
        errors.add(new ValidationError(path, message));
    }
}
