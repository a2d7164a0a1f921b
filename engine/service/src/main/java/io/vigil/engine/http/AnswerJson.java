package io.vigil.engine.http;

import io.vigil.engine.decision.DecisionRecord;
import io.vigil.rules.eval.EvaluationType;
import io.vigil.rules.eval.MatchedRule;
import io.vigil.rules.eval.VelocityResult;
import java.util.List;
import java.util.Locale;

/**
 * The JSON of an evaluate answer (engine contract §3). AUTH: the slim object with exactly the keys
 * transaction_id, decision, engine_mode, engine_error_code, ruleset_key, ruleset_version, rule_id,
 * reason_code, decision_id. MONITORING: the caller's decision with every matched rule, and
 * {@code evaluation_type} as the existing engine's answer had it. With explain: evaluation_type,
 * matched rules, velocity results and the timing breakdown are added.
 */
public final class AnswerJson {
    private AnswerJson() {
    }

    public static JsonWriter write(JsonWriter w, DecisionRecord r, boolean explain) {
        w.raw('{');
        w.key("transaction_id").string(r.transactionId());
        if (explain || r.type() == EvaluationType.MONITORING) {
            w.key("evaluation_type").name(r.type());
        }
        w.key("decision").name(r.decision());
        w.key("engine_mode").name(r.mode());
        w.key("engine_error_code").name(r.errorCode());
        w.key("ruleset_key").string(r.rulesetKey());
        w.key("ruleset_version");
        if (r.rulesetVersion() > 0) {
            w.number(r.rulesetVersion());
        } else {
            w.nul();
        }
        if (r.type() == EvaluationType.AUTH) {
            w.key("rule_id").string(r.ruleId());
            w.key("reason_code").string(r.reasonCode());
        }
        if (r.decisionId() != null) {
            w.key("decision_id").string(r.decisionId());
        }
        if (explain || r.type() == EvaluationType.MONITORING) {
            w.key("matched_rules");
            matchedRules(w, r.matchedRules());
        }
        if (explain) {
            w.key("velocity_results");
            velocityResults(w, r.velocityResults());
            w.key("timing").raw('{');
            w.key("parse_us").number(r.parseNanos() / 1000);
            w.key("evaluate_us").number(r.evaluationNanos() / 1000);
            w.key("velocity_us").number(r.velocityNanos() / 1000);
            w.key("total_us").number(r.processingNanos() / 1000);
            w.raw('}');
        }
        return w.raw('}');
    }

    static void matchedRules(JsonWriter w, List<MatchedRule> rules) {
        w.raw('[');
        for (int i = 0; i < rules.size(); i++) {
            MatchedRule m = rules.get(i);
            if (i > 0) {
                w.comma();
            }
            w.raw('{');
            w.key("rule_id").string(m.ruleId());
            w.key("rule_version").number(m.ruleVersion());
            w.key("priority").number(m.priority());
            w.key("decision").name(m.decision());
            w.key("reason_code").string(m.reasonCode());
            w.key("mode").string(m.shadow() ? "SHADOW" : "ACTIVE");
            w.raw('}');
        }
        w.raw(']');
    }

    static void velocityResults(JsonWriter w, List<VelocityResult> results) {
        w.raw('[');
        for (int i = 0; i < results.size(); i++) {
            VelocityResult v = results.get(i);
            if (i > 0) {
                w.comma();
            }
            w.raw('{');
            w.key("rule_id").string(v.ruleId());
            w.key("dimension").string(v.dimension());
            w.key("value").string(v.dimensionValue());
            w.key("window_seconds").number(v.windowSeconds());
            w.key("aggregate").string(v.aggregate() == null ? null : v.aggregate().name().toLowerCase(Locale.ROOT));
            w.key("aggregate_value").number(v.value());
            w.key("threshold").number(v.threshold());
            w.key("exceeded").bool(v.exceeded());
            w.key("available").bool(v.available());
            w.raw('}');
        }
        w.raw(']');
    }
}
