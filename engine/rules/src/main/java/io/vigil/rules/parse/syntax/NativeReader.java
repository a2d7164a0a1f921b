package io.vigil.rules.parse.syntax;

import com.fasterxml.jackson.databind.JsonNode;
import io.vigil.rules.eval.Outcome;
import io.vigil.rules.eval.VelocityFailurePolicy;
import io.vigil.rules.model.Action;
import io.vigil.rules.model.ExecutionMode;
import io.vigil.rules.model.RuleMode;
import io.vigil.rules.model.Scope;
import io.vigil.rules.parse.Path;
import io.vigil.rules.parse.Problems;
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
import java.util.regex.Pattern;

/**
 * The strict reader of the native format: every key known, every scalar of its type and form, every
 * required part present, giving the {@link Syntax} model. It resolves no name (fields, lists) and
 * checks no rule between parts: the checkers do that on its output.
 */
public final class NativeReader {
    public static final Set<String> DOCUMENT_KEYS = Set.of("ruleset_key", "ruleset_version", "execution_mode",
            "country", "default_action", "velocity_failure_policy", "lists", "rules", "description");
    public static final Set<String> RULE_KEYS = Set.of("rule_id", "rule_version", "enabled", "priority", "mode",
            "scope", "condition", "velocity", "action", "description");
    public static final Set<String> SCOPE_KEYS = Set.of("network", "bin", "mcc", "logo", "country");
    public static final Set<String> VELOCITY_KEYS = Set.of("dimension", "window_seconds", "aggregate", "of",
            "threshold");
    static final Set<String> ACTION_KEYS = Set.of("decision", "reason_code");
    static final Pattern KEY = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");
    static final Pattern RULE_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}");
    static final Pattern LIST_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");
    static final Pattern REASON_CODE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}");
    static final Pattern COUNTRY = Pattern.compile("[A-Z]{2}");
    private static final Pattern BIN_PREFIX = Pattern.compile("[0-9]{1,8}");
    private static final Pattern MCC = Pattern.compile("[0-9]{4}");

    /**
     * What a dialect may ask the reader to accept beyond the native format (the legacy artifacts have
     * both: an empty rule list, and rule_version 0).
     */
    public record Allowances(boolean emptyRuleList, boolean ruleVersionZero) {
        public static final Allowances NONE = new Allowances(false, false);
    }

    private final Problems problems;
    private final Scalars scalars;
    private final Allowances allowances;
    private final ConditionReader conditions;

    public NativeReader(Problems problems, Allowances allowances) {
        this.problems = problems;
        this.scalars = new Scalars(problems);
        this.allowances = allowances;
        this.conditions = new ConditionReader(problems);
    }

    /** The decision named {@code text} (any case), or null. */
    public static Outcome decision(String text) {
        try {
            return Outcome.valueOf(text.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** @param root an object */
    public Syntax.Document read(JsonNode root) {
        Path top = Path.ROOT;
        unknownKeys(root, DOCUMENT_KEYS, top);
        String key = scalars.string(root, "ruleset_key", top.key("ruleset_key"), true);
        if (key != null && !KEY.matcher(key).matches()) {
            problems.add(top.key("ruleset_key"), "must be 1 to 64 letters, digits, '_', '.' or '-'");
        }
        Integer version = scalars.positiveInt(root, "ruleset_version", top.key("ruleset_version"), true);
        ExecutionMode mode = scalars.enumValue(root, "execution_mode", top.key("execution_mode"), ExecutionMode.class, true);
        scalars.string(root, "description", top.key("description"), false);
        String country = scalars.string(root, "country", top.key("country"), false);
        if (country != null && country.equalsIgnoreCase("global")) {
            country = null;
        } else if (country != null && !COUNTRY.matcher(country).matches()) {
            problems.add(top.key("country"), "expected an ISO 3166 alpha-2 code (e.g. \"US\") or \"global\"");
            country = null;
        }
        Action defaultAction = Action.APPROVE;
        if (root.has("default_action")) {
            Action a = action(root.get("default_action"), top.key("default_action"));
            defaultAction = a == null ? defaultAction : a;
        }
        VelocityFailurePolicy policy = scalars.enumValue(root, "velocity_failure_policy", top.key("velocity_failure_policy"),
                VelocityFailurePolicy.class, false);
        Map<String, List<String>> lists = lists(root.get("lists"));
        return new Syntax.Document(key, version, mode, country, defaultAction, policy, lists, rules(root.get("rules")));
    }

    private List<Syntax.Rule> rules(JsonNode n) {
        Path path = Path.ROOT.key("rules");
        List<Syntax.Rule> rules = new ArrayList<>();
        if (n == null || n.isNull()) {
            problems.add(path, "is required");
        } else if (!n.isArray()) {
            problems.add(path, "expected an array");
        } else if (n.isEmpty() && !allowances.emptyRuleList()) {
            problems.add(path, "a ruleset needs at least one rule");
        } else {
            Map<String, Integer> seen = new HashMap<>();
            for (int i = 0; i < n.size(); i++) {
                Path rulePath = path.index(i);
                Syntax.Rule r = rule(n.get(i), rulePath);
                if (r != null) {
                    rules.add(r);
                }
                JsonNode id = n.get(i).get("rule_id");
                if (id != null && id.isTextual()) {
                    Integer first = seen.putIfAbsent(id.textValue(), i);
                    if (first != null) {
                        problems.addAfter(rulePath, rulePath.key("rule_id"), "duplicate rule_id \"" + id.textValue()
                                + "\" (first used at rules[" + first + "])");
                    }
                }
            }
        }
        return rules;
    }

    private Syntax.Rule rule(JsonNode n, Path path) {
        if (!n.isObject()) {
            problems.add(path, "expected an object (a rule)");
            return null;
        }
        unknownKeys(n, RULE_KEYS, path);
        String id = scalars.string(n, "rule_id", path.key("rule_id"), true);
        if (id != null && !RULE_ID.matcher(id).matches()) {
            problems.add(path.key("rule_id"), "must be 1 to 128 letters, digits, '_', '.', ':' or '-'");
        }
        Path versionPath = path.key("rule_version");
        Integer version;
        if (allowances.ruleVersionZero()) {
            version = scalars.integer(n, "rule_version", versionPath, false);
            if (version != null && version < 0) {
                problems.add(versionPath, "must not be negative");
            }
        } else {
            version = scalars.positiveInt(n, "rule_version", versionPath, false);
        }
        Boolean enabled = scalars.bool(n, "enabled", path.key("enabled"));
        Integer priority = scalars.integer(n, "priority", path.key("priority"), false);
        RuleMode mode = scalars.enumValue(n, "mode", path.key("mode"), RuleMode.class, false);
        Scope scope = n.has("scope") ? scope(n.get("scope"), path.key("scope")) : Scope.GLOBAL;
        JsonNode c = n.get("condition");
        Syntax.Condition condition = c == null || c.isNull() ? null : conditions.read(c, path.key("condition"));
        JsonNode v = n.get("velocity");
        Syntax.Velocity velocity = v == null || v.isNull() ? null : velocity(v, path.key("velocity"));
        Action action = null;
        if (!n.has("action")) {
            problems.add(path.key("action"), "is required");
        } else {
            action = action(n.get("action"), path.key("action"));
        }
        String description = scalars.string(n, "description", path.key("description"), false);
        return new Syntax.Rule(path, id, version == null ? 1 : version, enabled == null || enabled,
                priority == null ? 0 : priority, mode == null ? RuleMode.ACTIVE : mode, scope, condition, velocity,
                action, description);
    }

    private Map<String, List<String>> lists(JsonNode n) {
        Map<String, List<String>> lists = new LinkedHashMap<>();
        Path path = Path.ROOT.key("lists");
        if (n == null || n.isNull()) {
            return lists;
        }
        if (!n.isObject()) {
            problems.add(path, "expected an object of named lists");
            return lists;
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            Path listPath = path.key(e.getKey());
            if (!LIST_NAME.matcher(e.getKey()).matches()) {
                problems.add(listPath, "a list name is 1 to 64 letters, digits, '_', '.' or '-'");
            }
            JsonNode arr = e.getValue();
            if (!arr.isArray()) {
                problems.add(listPath, "expected an array of strings");
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
                    problems.add(listPath.index(i), "expected a string");
                }
            }
            lists.put(e.getKey(), values);
        }
        return lists;
    }

    private Scope scope(JsonNode n, Path path) {
        if (n.isNull()) {
            return Scope.GLOBAL;
        }
        if (!n.isObject()) {
            problems.add(path, "expected an object with any of network, bin, mcc, logo, country");
            return Scope.GLOBAL;
        }
        unknownKeys(n, SCOPE_KEYS, path);
        return new Scope(
                dimension(n, "network", path, null, null),
                dimension(n, "bin", path, BIN_PREFIX, "a BIN prefix is 1 to 8 digits"),
                dimension(n, "mcc", path, MCC, "an MCC is 4 digits"),
                dimension(n, "logo", path, null, null),
                dimension(n, "country", path, COUNTRY, "expected an ISO 3166 alpha-2 code (e.g. \"US\")"));
    }

    /** The values of one scope dimension, a string or a list; BIN prefixes and MCCs may be written as integers. */
    private List<String> dimension(JsonNode scope, String key, Path scopePath, Pattern pattern, String patternMessage) {
        JsonNode n = scope.get(key);
        Path p = scopePath.key(key);
        if (n == null || n.isNull()) {
            return List.of();
        }
        boolean array = n.isArray();
        if (array && n.isEmpty()) {
            problems.add(p, "needs at least one value (leave " + key + " out to match any)");
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < (array ? n.size() : 1); i++) {
            JsonNode v = array ? n.get(i) : n;
            Path ip = array ? p.index(i) : p;
            String s = v.isTextual() ? v.textValue()
                    : v.isIntegralNumber() && pattern != null && pattern != COUNTRY ? v.asText() : null;
            if (s == null) {
                problems.add(ip, "expected a string");
            } else if (s.isEmpty()) {
                problems.add(ip, "must not be empty");
            } else if (pattern != null && !pattern.matcher(s).matches()) {
                problems.add(ip, patternMessage + ", got \"" + s + "\"");
            } else {
                out.add(s);
            }
        }
        return out;
    }

    private Syntax.Velocity velocity(JsonNode n, Path path) {
        if (!n.isObject()) {
            problems.add(path, "expected an object {dimension, window_seconds, aggregate, of, threshold}");
            return null;
        }
        unknownKeys(n, VELOCITY_KEYS, path);
        String dimension = scalars.string(n, "dimension", path.key("dimension"), true);
        Integer window = scalars.integer(n, "window_seconds", path.key("window_seconds"), true);
        Aggregate aggregate = scalars.enumValue(n, "aggregate", path.key("aggregate"), Aggregate.class, false);
        String of = scalars.string(n, "of", path.key("of"), false);
        BigDecimal threshold = null;
        JsonNode t = n.get("threshold");
        if (t == null) {
            problems.add(path.key("threshold"), "is required");
        } else if (!t.isNumber()) {
            problems.add(path.key("threshold"), "expected a number");
        } else {
            threshold = t.decimalValue();
        }
        return new Syntax.Velocity(path, dimension, window, aggregate == null ? Aggregate.COUNT : aggregate, of, threshold);
    }

    /** An action: a decision, or an object {decision, reason_code}; null when it is not one (with problems). */
    public Action action(JsonNode n, Path path) {
        if (n.isTextual()) {
            Outcome o = outcome(n.textValue(), path);
            return o == null ? null : new Action(o, null);
        }
        if (!n.isObject()) {
            problems.add(path, "expected a decision string or an object {decision, reason_code}");
            return null;
        }
        unknownKeys(n, ACTION_KEYS, path);
        JsonNode d = n.get("decision");
        Outcome o = null;
        if (d == null) {
            problems.add(path.key("decision"), "is required");
        } else if (!d.isTextual()) {
            problems.add(path.key("decision"), "expected a string");
        } else {
            o = outcome(d.textValue(), path.key("decision"));
        }
        String reason = scalars.string(n, "reason_code", path.key("reason_code"), false);
        if (reason != null && !REASON_CODE.matcher(reason).matches()) {
            problems.add(path.key("reason_code"), "must be 1 to 64 letters, digits, '_', '.', ':' or '-'");
        }
        return o == null ? null : new Action(o, reason);
    }

    private Outcome outcome(String s, Path path) {
        Outcome o = decision(s);
        if (o == null) {
            problems.add(path, "unknown decision \"" + s + "\" (expected APPROVE, DECLINE or REVIEW)");
        }
        return o;
    }

    private void unknownKeys(JsonNode n, Set<String> known, Path path) {
        for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!known.contains(k)) {
                problems.unknownKey(path, k, known);
            }
        }
    }
}
