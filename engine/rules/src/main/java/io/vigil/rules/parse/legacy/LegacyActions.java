package io.vigil.rules.parse.legacy;

import static io.vigil.rules.parse.legacy.LegacyDialect.present;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vigil.rules.parse.Path;
import io.vigil.rules.parse.Problems;
import io.vigil.rules.parse.SourceMap;
import io.vigil.rules.parse.syntax.NativeReader;
import java.util.Locale;



/**
 * The legacy dialect's actions: decision synonyms in any case, {"action": X} for {"decision": X}, an
 * object without a decision (a MONITORING action) approving, and a velocity's own action deciding
 * when its threshold is reached.
 */
final class LegacyActions {
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private final Problems problems;
    private final SourceMap sources;

    LegacyActions(Problems problems, SourceMap sources) {
        this.problems = problems;
        this.sources = sources;
    }

    /**
     * An action at {@code from}, rewritten to the native one at {@code to}: decision synonyms in any case;
     * {"action": X} for {"decision": X}; an object without a decision (a MONITORING action such as
     * {"severity": "HIGH"}) approves, as the old engine read it; other keys meant nothing.
     */
    JsonNode action(JsonNode n, Path to, Path from) {
        sources.record(to, from);
        if (n.isTextual()) {
            return decision(n);
        }
        if (!n.isObject()) {
            return n;
        }
        ObjectNode out = JSON.objectNode();
        String decisionKey = present(n, "decision") == null && present(n, "action") != null ? "action" : "decision";
        if (present(n, decisionKey) == null) {
            out.put("decision", "APPROVE");
        } else {
            out.set("decision", decision(n.get(decisionKey)));
            sources.record(to.key("decision"), from.key(decisionKey));
        }
        if (n.has("reason_code")) {
            out.set("reason_code", n.get("reason_code"));
            sources.record(to.key("reason_code"), from.key("reason_code"));
        }
        return out;
    }

    /** The old engine's synonyms, any case, blanks trimmed; a word it did not know stays, for the reader to refuse. */
    private static JsonNode decision(JsonNode n) {
        if (!n.isTextual()) {
            return n;
        }
        return switch (n.textValue().trim().toUpperCase(Locale.ROOT)) {
            case "APPROVE", "APPROVED", "ALLOW" -> JSON.textNode("APPROVE");
            case "DECLINE", "DECLINED", "BLOCK" -> JSON.textNode("DECLINE");
            case "REVIEW", "FLAG" -> JSON.textNode("REVIEW");
            default -> n;
        };
    }

    /** The rule's own action, replaced by the velocity's decision below, is still checked as the old engine did. */
    private void checkOwnAction(JsonNode action, Path path) {
        Problems own = new Problems();
        new NativeReader(own, LegacyDialect.ALLOWANCES).action(action, path);
        own.list().forEach(p -> problems.add(p, sources));
    }

    /**
     * The velocity's own action (at {@code from}) is the decision when the threshold is reached: it
     * replaces the rule's decision, and the rule's reason code stays.
     */
    JsonNode withVelocityDecision(JsonNode ruleAction, JsonNode velocityAction, Path to, Path from) {
        checkOwnAction(ruleAction, to);
        JsonNode decision;
        Path decisionFrom;
        if (velocityAction.isObject()) {
            String key = present(velocityAction, "decision") == null && present(velocityAction, "action") != null
                    ? "action" : "decision";
            decision = present(velocityAction, key) == null ? JSON.textNode("APPROVE") : decision(velocityAction.get(key));
            decisionFrom = from.key(key);
        } else if (velocityAction.isTextual()) {
            decision = decision(velocityAction);
            decisionFrom = from;
        } else {
            sources.record(to, from); // the reader refuses it, with the velocity's path
            return velocityAction;
        }
        ObjectNode out = JSON.objectNode().set("decision", decision);
        sources.record(to.key("decision"), decisionFrom);
        if (ruleAction.isObject() && ruleAction.has("reason_code")) {
            out.set("reason_code", ruleAction.get("reason_code"));
            sources.refuse(to.key("reason_code")); // checked with the rule's own action
        }
        return out;
    }
}
