package io.vigil.rules.parse.legacy;

import static io.vigil.rules.parse.legacy.LegacyDialect.present;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vigil.rules.parse.Path;
import io.vigil.rules.parse.Problems;
import io.vigil.rules.parse.SourceMap;
import io.vigil.rules.parse.syntax.NativeReader;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.Set;



/**
 * The legacy dialect's scopes: "GLOBAL" and [] for global, an empty dimension list for "any", and the
 * YAML format's typed scopes ({type: NETWORK, value}, {type: COMBINED, dimensions}).
 */
final class LegacyScopes {
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    private static final Set<String> TYPED_SCOPE_KEYS = Set.of("type", "value", "values", "dimensions");
    private static final Map<String, String> TYPED_SCOPE_DIMENSION = Map.of("NETWORK", "network", "BIN", "bin",
            "MCC", "mcc", "LOGO", "logo");

    private final Problems problems;
    private final SourceMap sources;
    /** The YAML development format, where a scope may be typed. */
    private boolean typed;

    LegacyScopes(Problems problems, SourceMap sources) {
        this.problems = problems;
        this.sources = sources;
    }

    void typed(boolean yaml) {
        this.typed = yaml;
    }

    /** The scope, or null for global: "GLOBAL", [], empty dimension lists ("any"), the YAML format's typed scopes. */
    JsonNode scope(JsonNode n, Path to, Path from) {
        if (n.isNull()) {
            return null;
        }
        if (typed && n.isObject() && n.has("type")) {
            return typedScope(n, to, from);
        }
        if (n.isTextual() && n.textValue().trim().equalsIgnoreCase("GLOBAL") || n.isArray() && n.isEmpty()) {
            return null;
        }
        if (!n.isObject()) {
            return n;
        }
        ObjectNode out = JSON.objectNode();
        for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            boolean anyValue = NativeReader.SCOPE_KEYS.contains(e.getKey()) && e.getValue().isArray() && e.getValue().isEmpty();
            if (!anyValue) {
                out.set(e.getKey(), e.getValue());
            }
        }
        return out;
    }

    /** {type: NETWORK|BIN|MCC|LOGO, value | values}, {type: COMBINED, dimensions}, {type: GLOBAL}. */
    private JsonNode typedScope(JsonNode n, Path to, Path path) {
        for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!TYPED_SCOPE_KEYS.contains(k)) {
                problems.unknownKey(path, k, TYPED_SCOPE_KEYS);
            }
        }
        JsonNode type = n.get("type");
        String t = type.isTextual() ? type.textValue().trim().toUpperCase(Locale.ROOT) : "";
        if (t.equals("GLOBAL")) {
            return null;
        }
        if (t.equals("COMBINED")) {
            JsonNode dims = n.get("dimensions");
            if (dims == null || !dims.isObject()) {
                problems.add(path.key("dimensions"), "a COMBINED scope needs \"dimensions\": {network, bin, mcc, logo}");
                return null;
            }
            sources.record(to, path.key("dimensions"));
            return scope(dims, to, path.key("dimensions"));
        }
        String dimension = TYPED_SCOPE_DIMENSION.get(t);
        if (dimension == null) {
            problems.add(path.key("type"), "unknown scope type " + type + " (expected GLOBAL, NETWORK, BIN, MCC, LOGO or COMBINED)");
            return null;
        }
        String valueKey = present(n, "values") != null ? "values" : "value";
        if (present(n, valueKey) == null) {
            problems.add(path.key("value"), "a " + t + " scope needs \"value\" or \"values\"");
            return null;
        }
        JsonNode values = n.get(valueKey);
        if (values.isArray() && values.isEmpty()) {
            return null; // the old engine read an empty list as "any"
        }
        sources.record(to.key(dimension), path.key(valueKey));
        return JSON.objectNode().set(dimension, values);
    }
}
