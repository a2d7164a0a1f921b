package io.vigil.rules.parse.check;

import io.vigil.rules.model.Condition;
import io.vigil.rules.model.FieldRef;
import io.vigil.rules.model.Operand;
import io.vigil.rules.model.Rule;
import io.vigil.rules.model.RulesetDocument;
import io.vigil.rules.model.Velocity;
import io.vigil.rules.parse.Problems;
import io.vigil.rules.parse.syntax.Syntax;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs the checkers over the syntax model, every node (so every problem is found), and assembles
 * their answers into the bound model: fields resolved, operands typed, lists bound. A document with
 * any problem, from any phase, is not assembled.
 */
public final class Binder {
    private final Problems problems;
    private final int distinctCap;

    /** @param distinctCap the distinct cap of the engine the document is for ({@link VelocityRules}) */
    public Binder(Problems problems, int distinctCap) {
        this.problems = problems;
        this.distinctCap = distinctCap;
    }

    /** The bound document, or null when there is any problem. */
    public RulesetDocument bind(Syntax.Document d, boolean legacy) {
        FieldReferences fields = new FieldReferences(problems);
        OperandTypes operands = new OperandTypes(problems, new ListReferences(problems, d.lists()), new RegexSafety(problems));
        VelocityRules velocities = new VelocityRules(problems, fields, distinctCap);
        Rules rules = new Rules(fields, operands, velocities);
        List<Rule> bound = new ArrayList<>();
        for (Syntax.Rule r : d.rules()) {
            bound.add(rules.rule(r));
        }
        if (!problems.isEmpty() || bound.contains(null)) {
            return null;
        }
        return new RulesetDocument(legacy, d.key(), d.version(), d.mode(), d.country(), d.defaultAction(),
                d.velocityFailurePolicy(), d.lists(), bound);
    }

    private record Rules(FieldReferences fields, OperandTypes operands, VelocityRules velocities) {

        Rule rule(Syntax.Rule r) {
            Condition condition = r.condition() == null ? null : condition(r.condition());
            Velocity velocity = r.velocity() == null ? null : velocities.bind(r.velocity());
            boolean complete = (r.condition() == null || condition != null) && (r.velocity() == null || velocity != null)
                    && r.id() != null && r.action() != null;
            return complete ? new Rule(r.id(), r.version(), r.enabled(), r.priority(), r.mode(), r.scope(), condition,
                    velocity, r.action(), r.description()) : null;
        }

        private Condition condition(Syntax.Condition c) {
            return switch (c) {
                case Syntax.All a -> {
                    List<Condition> args = conditions(a.args());
                    yield args == null ? null : new Condition.All(args);
                }
                case Syntax.Any a -> {
                    List<Condition> args = conditions(a.args());
                    yield args == null ? null : new Condition.Any(args);
                }
                case Syntax.Not n -> {
                    Condition arg = condition(n.arg());
                    yield arg == null ? null : new Condition.Not(arg);
                }
                case Syntax.Leaf l -> leaf(l);
            };
        }

        /** Every argument is bound (every problem found); null when any is not. */
        private List<Condition> conditions(List<Syntax.Condition> args) {
            List<Condition> out = new ArrayList<>();
            for (Syntax.Condition a : args) {
                out.add(condition(a));
            }
            return out.contains(null) ? null : out;
        }

        private Condition leaf(Syntax.Leaf l) {
            FieldRef field = l.field() == null ? null : fields.resolve(l.field(), l.path().key("field"));
            if (field == null || l.op() == null || !l.operands()) {
                return null;
            }
            Operand operand = operands.operand(l, field);
            return operand == null ? null : new Condition.Leaf(field, l.op(), operand);
        }
    }
}
