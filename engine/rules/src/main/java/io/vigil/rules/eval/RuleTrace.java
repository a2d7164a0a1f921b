package io.vigil.rules.eval;

import java.util.List;

/**
 * How one enabled rule fared for one transaction, for analysts (simulate, explanations): not
 * produced on the decision path, see {@link CompiledRuleset#trace}.
 *
 * @param position      place in the evaluation order (0 = first)
 * @param specificity   number of scope dimensions the rule constrains
 * @param inScope       its scope applies to the transaction
 * @param condition     TRUE, FALSE or UNKNOWN (three-valued, ADR 0002); TRUE for a rule without condition
 * @param missingFields fields the rule needs that the transaction lacks ("custom_fields" for any custom field)
 * @param velocity      the rule also needs its velocity threshold (reported in the evaluation's velocity results)
 */
public record RuleTrace(String ruleId, int position, int specificity, int priority, boolean shadow, boolean inScope,
                        String condition, List<String> missingFields, boolean velocity) {

    /** Scope and condition hold (for a velocity rule: it asks the store; it matches only at its threshold). */
    public boolean holds() {
        return inScope && "TRUE".equals(condition);
    }
}
