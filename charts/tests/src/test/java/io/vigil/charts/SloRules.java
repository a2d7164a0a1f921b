package io.vigil.charts;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reading rule files and PromQL: alert names, expressions, metric names. */
final class SloRules {
    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    static final ObjectMapper JSON = new ObjectMapper();

    /**
     * Identifiers that are metric names in PromQL: snake_case names not followed by "(" (functions),
     * not label names (followed by =, !=, =~, !~) and not keywords. Recording-rule names contain ":"
     * and are not exported by anything, so they are matched separately and excluded.
     */
    private static final Pattern IDENT = Pattern.compile("(?<![\\w:$.\"])([a-zA-Z_][a-zA-Z0-9_:]*)(?![\\w:])(\\s*)(\\(|=~|!~|!=|=(?!=))?");
    private static final Set<String> KEYWORDS = Set.of("sum", "min", "max", "avg", "count", "by", "without", "on", "ignoring",
            "group_left", "group_right", "and", "or", "unless", "bool", "offset", "topk", "bottomk", "quantile", "stddev",
            "stdvar", "count_values", "group", "inf", "nan", "le", "Inf", "NaN", "atan2");

    private SloRules() {
    }

    static JsonNode parseYaml(String yaml) {
        try {
            return YAML.readTree(yaml);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String toYaml(JsonNode node) {
        try {
            return YAML.writeValueAsString(node);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<JsonNode> rules(JsonNode ruleFile) {
        List<JsonNode> out = new ArrayList<>();
        ruleFile.path("groups").forEach(g -> g.path("rules").forEach(out::add));
        return out;
    }

    /** The same rule file without annotations (promtool unit tests then compare labels only). */
    static String withoutAnnotations(String ruleYaml) {
        JsonNode root = parseYaml(ruleYaml);
        rules(root).forEach(r -> ((ObjectNode) r).remove("annotations"));
        return toYaml(root);
    }

    static Set<String> alertNames(JsonNode ruleFile) {
        Set<String> names = new LinkedHashSet<>();
        rules(ruleFile).stream().filter(r -> r.has("alert")).forEach(r -> names.add(r.get("alert").asText()));
        return names;
    }

    /** Metric names an expression reads (exported series; recording rules and `up` excluded by the caller). */
    static Set<String> metricNames(String expr) {
        String noStrings = expr.replaceAll("\"(?:[^\"\\\\]|\\\\.)*\"", "\"\"");
        // label lists after by/without/on/ignoring/group_left/group_right are label names, not metrics
        noStrings = noStrings.replaceAll("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", "$1()");
        // durations in range selectors and offsets: [5m], [1h:1m]
        noStrings = noStrings.replaceAll("\\[[^\\]]*\\]", "[]");
        Set<String> names = new LinkedHashSet<>();
        Matcher m = IDENT.matcher(noStrings);
        while (m.find()) {
            String name = m.group(1);
            String follower = m.group(3);
            if (follower != null || KEYWORDS.contains(name) || name.contains(":")) {
                continue;
            }
            names.add(name);
        }
        return names;
    }
}
