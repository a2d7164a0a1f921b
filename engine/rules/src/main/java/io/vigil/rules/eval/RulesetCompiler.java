package io.vigil.rules.eval;

import com.google.re2j.Pattern;
import io.vigil.rules.model.Condition;
import io.vigil.rules.model.FieldRef;
import io.vigil.rules.model.Operand;
import io.vigil.rules.model.Operator;
import io.vigil.rules.model.Rule;
import io.vigil.rules.model.RuleMode;
import io.vigil.rules.model.RulesetDocument;
import io.vigil.rules.model.Scope;
import io.vigil.rules.model.Velocity;
import io.vigil.rules.txn.Field;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * Compiles a validated {@link RulesetDocument} into an immutable {@link CompiledRuleset}.
 *
 * <p>Evaluation order (documented in docs/ruleset-language.md): scope specificity first (the
 * number of scope dimensions a rule constrains, most specific first), then priority (higher
 * first), then document order. Disabled rules are left out.
 */
public final class RulesetCompiler {
    private RulesetCompiler() {
    }

    /** @param checksum the canonical document's SHA-256 (see {@code Rulesets.read}) */
    public static CompiledRuleset compile(RulesetDocument doc, String checksum) {
        record Entry(int docIndex, Rule rule) {
        }
        List<Entry> enabled = new ArrayList<>();
        for (int i = 0; i < doc.rules().size(); i++) {
            Rule r = doc.rules().get(i);
            if (r.enabled()) {
                enabled.add(new Entry(i, r));
            }
        }
        enabled.sort(Comparator.<Entry>comparingInt(e -> -e.rule().scope().specificity())
                .thenComparingInt(e -> -e.rule().priority())
                .thenComparingInt(Entry::docIndex));

        List<CompiledRule> rules = new ArrayList<>();
        List<Scope> scopes = new ArrayList<>();
        for (Entry e : enabled) {
            rules.add(rule(rules.size(), e.rule()));
            scopes.add(e.rule().scope());
        }
        return new IndexedRuleset(doc, checksum, rules, new ScopeIndex(rules, scopes, doc.legacy()));
    }

    private static CompiledRule rule(int index, Rule r) {
        Node condition = r.condition() == null ? null : node(r.condition());
        Velocity v = r.velocity();
        Field of = null;
        String ofCustom = null;
        if (v != null) {
            switch (v.of()) {
                case FieldRef.Known k -> of = k.field();
                case FieldRef.Custom c -> ofCustom = c.name();
                case null -> {
                }
            }
        }
        return new CompiledRule(index, r.ruleId(), r.ruleVersion(), r.priority(), r.scope().specificity(),
                r.mode() == RuleMode.SHADOW, condition, r.action().decision(), r.action().reasonCode(),
                v == null ? null : v.dimension(), v == null ? 0 : v.windowSeconds(), v == null ? null : v.aggregate(),
                of, ofCustom, v == null ? 0 : v.threshold().doubleValue());
    }

    static Node node(Condition c) {
        return switch (c) {
            case Condition.All a -> Node.Junction.all(cheapestFirst(a.args()));
            case Condition.Any a -> Node.Junction.any(cheapestFirst(a.args()));
            case Condition.Not n -> new Node.Not(node(n.arg()));
            case Condition.Leaf l -> switch (l.field()) {
                case FieldRef.Known k -> known(k.field(), l.op(), l.operand());
                case FieldRef.Custom f -> custom(f.name(), l.op(), l.operand());
            };
        };
    }

    /**
     * Children of and/or sorted by estimated cost, so a cheap numeric test can short-circuit before
     * a regex runs. Safe because evaluation has no side effects and three-valued and/or are
     * commutative: the result is the same in any order, only the work differs.
     */
    private static Node[] cheapestFirst(List<Condition> args) {
        Node[] nodes = args.stream().map(RulesetCompiler::node).toArray(Node[]::new);
        Arrays.sort(nodes, Comparator.comparingInt(Node::cost)); // stable: document order on ties
        return nodes;
    }

    /** A contract field: the operand's type (checked against the field's by the front end) picks the node. */
    private static Node known(Field f, Operator op, Operand operand) {
        return switch (operand) {
            case Operand.None n -> new Node.Exists(f);
            case Operand.Number n -> new Node.NumCmp(f, op, number(n.value()));
            case Operand.Bool b -> new Node.BoolEq(f, b.value(), op == Operator.NE);
            case Operand.Text t -> op == Operator.EQ || op == Operator.NE
                    ? new Node.TextEq(f, t.value(), op == Operator.NE) : new Node.TextMatch(f, t.value(), op);
            case Operand.Range r -> new Node.NumBetween(f, number(r.low()), number(r.high()));
            case Operand.Members m -> f.type() == Field.Type.NUMBER
                    ? new Node.NumIn(f, m.numbers().stream().mapToDouble(RulesetCompiler::number).toArray(), op.negative())
                    : new Node.TextIn(f, Set.copyOf(m.texts()), op.negative());
            case Operand.NamedList l -> new Node.TextIn(f, l.values(), op.negative());
            case Operand.Pattern p -> new Node.TextRegex(f, Pattern.compile(p.regex()));
        };
    }

    /** A custom field: its type is known per transaction, so the node keeps the operand in every form it has. */
    private static Node custom(String name, Operator op, Operand operand) {
        String text = null;
        double number = Double.NaN;
        double high = Double.NaN;
        Boolean bool = null;
        Set<String> texts = null;
        double[] numbers = null;
        boolean hasTrue = false;
        boolean hasFalse = false;
        Pattern pattern = null;
        switch (operand) {
            case Operand.None n -> {
            }
            case Operand.Number n -> number = n.value().doubleValue();
            case Operand.Text t -> text = t.value();
            case Operand.Bool b -> bool = b.value();
            case Operand.Range r -> {
                number = number(r.low());
                high = number(r.high());
            }
            case Operand.Members m -> {
                texts = m.texts().isEmpty() ? null : Set.copyOf(m.texts());
                numbers = m.numbers().isEmpty() ? null : m.numbers().stream().mapToDouble(BigDecimal::doubleValue).toArray();
                hasTrue = m.booleans().contains(Boolean.TRUE);
                hasFalse = m.booleans().contains(Boolean.FALSE);
            }
            case Operand.NamedList l -> texts = l.values();
            case Operand.Pattern p -> {
                text = p.regex();
                pattern = Pattern.compile(p.regex());
            }
        }
        return new Node.Custom(name, op, text, number, high, bool, texts, numbers, hasTrue, hasFalse, pattern);
    }

    private static double number(BigDecimal d) {
        // Parsed once from the document's decimal spelling: 100, 100.0 and 1e2 are the same double.
        return d.doubleValue() + 0.0;
    }
}
