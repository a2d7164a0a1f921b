package io.vigil.rules.parse.legacy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vigil.rules.parse.Path;
import io.vigil.rules.parse.Problems;
import io.vigil.rules.parse.SourceMap;
import io.vigil.rules.parse.syntax.NativeReader;
import io.vigil.rules.parse.syntax.Scalars;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The old engine's formats (its compiled JSON artifacts and its YAML development format), rewritten
 * tree to tree into the native format before the native reader sees them. Everything Vigil knows
 * about those formats is here and in {@link LegacyConditions}: their other key names, the keys they
 * may carry and that meant nothing, their defaults and synonyms. The {@link SourceMap} keeps where each
 * rewritten node came from, so every error names what the user wrote. docs/ruleset-language.md,
 * "Legacy compiled format", lists each rule (L1..L26).
 */
public final class LegacyDialect {
    /** What the native reader must accept for these formats: an empty rule list, and rule_version 0. */
    public static final NativeReader.Allowances ALLOWANCES = new NativeReader.Allowances(true, true);
    /** The old engine's velocity defaults when a key is absent (its VelocityConfig). */
    static final int WINDOW_SECONDS = 3600;
    static final int THRESHOLD = 10;

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    /** Keys only the old engine's artifacts have: any of them marks a document as legacy. */
    private static final Set<String> LEGACY_TOP = Set.of("schema_version", "rulesetKey", "rulesetVersion", "version",
            "ruleset_id", "rulesetId", "generated_at", "evaluation", "rule_type", "ruleType",
            "key", "evaluation_type", "created_at", "created_by", "field_registry_version");
    private static final Set<String> LEGACY_RULE = Set.of("ruleId", "ruleVersion", "rule_version_id", "ruleVersionId",
            "when", "id", "conditions");
    /** Top-level keys kept as they are; the other keys of a legacy document meant nothing and are dropped. */
    private static final List<String> TOP_KEPT = List.of("description", "country", "default_action",
            "velocity_failure_policy", "lists");
    private static final List<String> RULE_KEPT = List.of("priority", "mode", "description");
    private static final Pattern VERSION_TEXT = Pattern.compile("v?([0-9]{1,9})");
    private static final Pattern INTEGER_TEXT = Pattern.compile("-?[0-9]{1,9}");

    private final Problems problems;
    private final Scalars scalars;
    private final SourceMap sources = new SourceMap();
    private final LegacyConditions conditions;
    private final LegacyActions actions;
    private final LegacyScopes scopes;
    private final String keyHint;
    private final Integer versionHint;

    /**
     * @param problems    problems found here, with paths of the original document
     * @param keyHint     the ruleset key when the document has none (the old engine took it from the
     *                    artifact's storage path); null for none
     * @param versionHint likewise for the version
     */
    public LegacyDialect(Problems problems, String keyHint, Integer versionHint) {
        this.problems = problems;
        this.scalars = new Scalars(problems);
        this.conditions = new LegacyConditions(problems, sources);
        this.actions = new LegacyActions(problems, sources);
        this.scopes = new LegacyScopes(problems, sources);
        this.keyHint = keyHint;
        this.versionHint = versionHint;
    }

    /** Where each node of the rewritten document came from. */
    public SourceMap sources() {
        return sources;
    }

    /**
     * Whether the document is in the old engine's format: {@code schema_version} or another key only its
     * artifacts have, at the top or in a rule, or a condition node only it wrote.
     */
    public static boolean isLegacy(JsonNode root) {
        for (String k : LEGACY_TOP) {
            if (root.has(k)) {
                return true;
            }
        }
        for (JsonNode r : root.path("rules")) {
            if (r.isObject() && (LEGACY_RULE.stream().anyMatch(r::has) || LegacyConditions.hasLegacyNode(r.get("condition")))) {
                return true;
            }
        }
        return false;
    }

    private static boolean isYaml(JsonNode root) {
        if (root.has("key") || root.has("evaluation_type")) {
            return true;
        }
        for (JsonNode r : root.path("rules")) {
            if (r.isObject() && (r.has("id") || r.has("conditions"))) {
                return true;
            }
        }
        return false;
    }

    /** The first of {@code names} that {@code n} has with a non-null value, or null. */
    static String present(JsonNode n, String... names) {
        for (String name : names) {
            if (Scalars.present(n, name)) {
                return name;
            }
        }
        return null;
    }

    /** The native document of the legacy document {@code root} (an object). */
    public ObjectNode rewrite(JsonNode root) {
        scopes.typed(isYaml(root));
        Path top = Path.ROOT;
        ObjectNode out = JSON.objectNode();
        JsonNode sv = root.get("schema_version");
        if (sv != null && !(sv.isIntegralNumber() && sv.asInt() == 1)) {
            problems.add(top.key("schema_version"), "unsupported schema_version " + sv + " (the legacy format is version 1)");
        }
        String keyName = present(root, "ruleset_key", "rulesetKey", "key");
        if (keyName != null) {
            move(root, keyName, out, "ruleset_key", top);
        } else if (keyHint != null) {
            out.put("ruleset_key", keyHint);
        }
        version(root, out);
        mode(root, out);
        for (String k : TOP_KEPT) {
            if (root.has(k)) {
                out.set(k, k.equals("default_action") ? actions.action(root.get(k), top.key(k), top.key(k)) : root.get(k));
            }
        }
        JsonNode rules = root.get("rules");
        if (rules != null && rules.isArray()) {
            ArrayNode list = out.putArray("rules");
            for (int i = 0; i < rules.size(); i++) {
                list.add(rule(rules.get(i), top.key("rules").index(i)));
            }
        } else if (rules != null) {
            out.set("rules", rules);
        }
        return out;
    }

    /** Copies {@code from[fromKey]} to {@code to[toKey]}, both children of the object at {@code path}. */
    private void move(JsonNode from, String fromKey, ObjectNode to, String toKey, Path path) {
        to.set(toKey, from.get(fromKey));
        sources.record(path.key(toKey), path.key(fromKey));
    }

    /** {@code ruleset_version} | {@code rulesetVersion} | {@code version}, an integer or "v3"; else the hint. */
    private void version(JsonNode root, ObjectNode out) {
        String name = present(root, "ruleset_version", "rulesetVersion", "version");
        if (name == null) {
            if (versionHint != null) {
                out.put("ruleset_version", versionHint);
            }
            return;
        }
        move(root, name, out, "ruleset_version", Path.ROOT);
        JsonNode n = root.get(name);
        if (n.isTextual()) {
            Matcher m = VERSION_TEXT.matcher(n.textValue().trim());
            if (m.matches() && Integer.parseInt(m.group(1)) > 0) {
                out.put("ruleset_version", Integer.parseInt(m.group(1)));
            } else {
                problems.add(Path.ROOT.key(name), "expected a positive integer (or \"v<integer>\")");
                sources.refuse(Path.ROOT.key("ruleset_version"));
            }
        }
    }

    /**
     * {@code execution_mode}, else {@code evaluation.mode}, else the YAML format's {@code evaluation_type};
     * without any, ALL_MATCHING when {@code rule_type} or the ruleset key says MONITORING, else FIRST_MATCH
     * (the old engine's rule).
     */
    private void mode(JsonNode root, ObjectNode out) {
        Path top = Path.ROOT;
        JsonNode evaluation = root.get("evaluation");
        if (Scalars.present(root, "execution_mode")) {
            out.set("execution_mode", root.get("execution_mode"));
        } else if (evaluation != null && evaluation.isObject() && Scalars.present(evaluation, "mode")) {
            out.set("execution_mode", evaluation.get("mode"));
            sources.record(top.key("execution_mode"), top.key("evaluation").key("mode"));
        } else if (Scalars.present(root, "evaluation_type")) {
            String t = scalars.string(root, "evaluation_type", top.key("evaluation_type"), true);
            switch (t == null ? "" : t.trim().toUpperCase(Locale.ROOT)) {
                case "AUTH" -> out.put("execution_mode", "FIRST_MATCH");
                case "MONITORING" -> out.put("execution_mode", "ALL_MATCHING");
                default -> {
                    if (t != null) {
                        problems.add(top.key("evaluation_type"), "unknown value \"" + t + "\" (expected AUTH or MONITORING)");
                    }
                    out.set("execution_mode", root.get("evaluation_type"));
                    sources.refuse(top.key("execution_mode"));
                }
            }
        } else {
            String typeName = present(root, "rule_type", "ruleType");
            String ruleType = typeName == null ? null : scalars.string(root, typeName, top.key(typeName), false);
            String key = out.path("ruleset_key").isTextual() ? out.get("ruleset_key").textValue() : null;
            boolean monitoring = ruleType != null && ruleType.toUpperCase(Locale.ROOT).contains("MONITORING")
                    || key != null && key.toUpperCase(Locale.ROOT).contains("MONITORING");
            out.put("execution_mode", monitoring ? "ALL_MATCHING" : "FIRST_MATCH");
        }
    }

    private JsonNode rule(JsonNode n, Path path) {
        if (!n.isObject()) {
            return n;
        }
        ObjectNode out = JSON.objectNode();
        String idKey = present(n, "rule_id") != null ? "rule_id" : present(n, "ruleId") != null ? "ruleId"
                : present(n, "id") != null ? "id" : "rule_id";
        if (n.has(idKey)) {
            move(n, idKey, out, "rule_id", path);
        }
        String versionKey = present(n, "rule_version") == null && present(n, "ruleVersion") != null ? "ruleVersion" : "rule_version";
        if (n.has(versionKey)) {
            move(n, versionKey, out, "rule_version", path);
        }
        enabled(n, out, path);
        for (String k : RULE_KEPT) {
            if (n.has(k)) {
                out.set(k, n.get(k));
            }
        }
        if (n.has("scope")) {
            JsonNode scope = scopes.scope(n.get("scope"), path.key("scope"), path.key("scope"));
            if (scope != null) {
                out.set("scope", scope);
            }
        }
        condition(n, out, path);
        JsonNode velocityAction = null;
        JsonNode velocity = n.get("velocity");
        if (velocity != null && !velocity.isNull()) {
            out.set("velocity", velocity(velocity, path.key("velocity")));
            velocityAction = velocity.isObject() ? velocity.get("action") : null;
        }
        Path actionPath = path.key("action");
        JsonNode action = present(n, "action") == null ? JSON.textNode("APPROVE") : actions.action(n.get("action"), actionPath, actionPath);
        if (velocityAction != null) {
            action = actions.withVelocityDecision(action, velocityAction, actionPath, path.key("velocity").key("action"));
        }
        out.set("action", action);
        return out;
    }

    /** Legacy booleans: also "true"/"false" and integers (0 is false), as the old engine's asBoolean read them. */
    private void enabled(JsonNode rule, ObjectNode out, Path path) {
        JsonNode n = rule.get("enabled");
        if (n == null) {
            return;
        }
        String text = n.isTextual() ? n.textValue().trim() : null;
        if (n.isNull() || n.isBoolean()) {
            out.set("enabled", n);
        } else if ("true".equals(text) || "false".equals(text)) {
            out.put("enabled", text.equals("true"));
        } else if (n.isIntegralNumber()) {
            out.put("enabled", n.bigIntegerValue().signum() != 0);
        } else {
            problems.add(path.key("enabled"), "expected a boolean (the legacy format also takes \"true\", \"false\" and integers)");
            out.set("enabled", n);
            sources.refuse(path.key("enabled"));
        }
    }

    /** The condition, also called "when", or the YAML format's "conditions" list (all must hold; empty means always). */
    private void condition(JsonNode rule, ObjectNode out, Path path) {
        String key = present(rule, "condition") == null ? "when" : "condition";
        Path to = path.key("condition");
        if (Scalars.present(rule, key)) {
            out.set("condition", conditions.condition(rule.get(key), to, path.key(key)));
            if (present(rule, "conditions") != null) {
                problems.add(path.key("conditions"), "has both \"" + key + "\" and \"conditions\"; use one");
            }
            return;
        }
        JsonNode list = rule.get("conditions");
        if (list == null || list.isNull()) {
            return;
        }
        Path from = path.key("conditions");
        if (!list.isArray()) {
            problems.add(from, "expected an array of conditions (all must hold)");
        } else if (list.size() == 1 && !list.get(0).isNull()) {
            out.set("condition", conditions.condition(list.get(0), to, from.index(0)));
        } else if (!list.isEmpty()) {
            sources.record(to, from);
            out.set("condition", JSON.objectNode().set("and", conditions.conditions(list, to.key("and"), from)));
        }
    }

    /**
     * The velocity clause: absent window and threshold take the old defaults, digit strings count, the
     * threshold is an integer, "comparison" may only be ">=", "action" is taken out (see {@link #rule}).
     */
    private JsonNode velocity(JsonNode n, Path path) {
        if (!n.isObject()) {
            return n;
        }
        ObjectNode out = JSON.objectNode();
        for (String k : NativeReader.VELOCITY_KEYS) {
            if (n.has(k)) {
                out.set(k, n.get(k));
            }
        }
        out.set("window_seconds", integer(n.get("window_seconds"), WINDOW_SECONDS));
        JsonNode threshold = integer(n.get("threshold"), THRESHOLD);
        out.set("threshold", threshold);
        if (!threshold.isNumber() || !threshold.canConvertToExactIntegral() || !threshold.canConvertToInt()) {
            // The old engine counted whole transactions against an integer threshold (2.5 was truncated).
            problems.add(path.key("threshold"), "expected an integer");
            sources.refuse(path.key("threshold"));
        }
        JsonNode cmp = n.get("comparison");
        if (cmp != null && !(cmp.isTextual() && cmp.textValue().equals(">="))) {
            problems.add(path.key("comparison"), "only \">=\" is supported (the rule matches when the count reaches the threshold)");
        }
        return out;
    }

    /** Absent means {@code absent}; digit strings count, as the old engine's Jackson binding coerced them. */
    private static JsonNode integer(JsonNode n, int absent) {
        if (n == null || n.isNull()) {
            return JSON.numberNode(absent);
        }
        if (n.isTextual() && INTEGER_TEXT.matcher(n.textValue().trim()).matches()) {
            return JSON.numberNode(Integer.parseInt(n.textValue().trim()));
        }
        return n;
    }
}
