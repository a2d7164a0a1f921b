package io.vigil.rules.eval;

import com.google.re2j.Pattern;
import io.vigil.rules.model.Condition;
import io.vigil.rules.model.Rule;
import io.vigil.rules.model.RulesetDocument;
import io.vigil.rules.model.Scope;
import io.vigil.rules.model.Velocity;
import io.vigil.rules.txn.Field;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Compiles a validated {@link RulesetDocument} into an immutable {@link CompiledRuleset}.
 *
 * <p>Evaluation order (documented in docs/ruleset-language.md): scope specificity first (the
 * number of scope dimensions a rule constrains, most specific first), then priority (higher
 * first), then document order. Disabled rules are left out.
 */
public final class RulesetCompiler {
    private static final String CUSTOM_PREFIX = "custom_fields.";

    private RulesetCompiler() {
    }

    /** @param checksum the canonical document's SHA-256 (see {@code Rulesets.read}) */
    public static CompiledRuleset compile(RulesetDocument doc, String checksum) {
        Map<String, Set<String>> lists = new HashMap<>();
        doc.lists().forEach((name, values) -> lists.put(name, Set.copyOf(new HashSet<>(values))));

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
            rules.add(rule(rules.size(), e.rule(), lists));
            scopes.add(e.rule().scope());
        }
        return new IndexedRuleset(doc, checksum, rules, new ScopeIndex(rules, scopes, doc.legacy()));
    }

    private static CompiledRule rule(int index, Rule r, Map<String, Set<String>> lists) {
        Node condition = r.condition() == null ? null : node(r.condition(), lists);
        Velocity v = r.velocity();
        Outcome decision = v != null && v.legacyAction() != null ? v.legacyAction() : r.action().decision();
        Field dimension = null;
        Field of = null;
        String ofCustom = null;
        double threshold = 0;
        if (v != null) {
            dimension = Field.byName(v.dimension());
            if (v.of() != null) {
                if (v.of().startsWith(CUSTOM_PREFIX)) {
                    ofCustom = v.of().substring(CUSTOM_PREFIX.length());
                } else {
                    of = Field.byName(v.of());
                }
            }
            threshold = v.threshold().doubleValue();
        }
        return new CompiledRule(index, r.ruleId(), r.ruleVersion(), r.priority(), r.scope().specificity(),
                r.mode() == io.vigil.rules.model.RuleMode.SHADOW, condition, decision, r.action().reasonCode(),
                dimension, v == null ? 0 : v.windowSeconds(), v == null ? null : v.aggregate(), of, ofCustom,
                threshold);
    }

    static Node node(Condition c, Map<String, Set<String>> lists) {
        return switch (c) {
            case Condition.All a -> Node.Junction.all(cheapestFirst(a.args(), lists));
            case Condition.Any a -> Node.Junction.any(cheapestFirst(a.args(), lists));
            case Condition.Not n -> new Node.Not(node(n.arg(), lists));
            case Condition.Leaf l -> leaf(l, lists);
        };
    }

    /**
     * Children of and/or sorted by estimated cost, so a cheap numeric test can short-circuit before
     * a regex runs. Safe because evaluation has no side effects and three-valued and/or are
     * commutative: the result is the same in any order, only the work differs.
     */
    private static Node[] cheapestFirst(List<Condition> args, Map<String, Set<String>> lists) {
        Node[] nodes = args.stream().map(x -> node(x, lists)).toArray(Node[]::new);
        java.util.Arrays.sort(nodes, Comparator.comparingInt(Node::cost)); // stable: document order on ties
        return nodes;
    }

    private static Node leaf(Condition.Leaf l, Map<String, Set<String>> lists) {
        if (l.field().startsWith(CUSTOM_PREFIX)) {
            return custom(l, lists);
        }
        Field f = Field.byName(l.field());
        return switch (l.op()) {
            case EXISTS -> new Node.Exists(f);
            case EQ, NE -> switch (f.type()) {
                case NUMBER -> new Node.NumCmp(f, l.op(), number(l.value()));
                case BOOLEAN -> new Node.BoolEq(f, (Boolean) l.value(), l.op() == io.vigil.rules.model.Operator.NE);
                case STRING -> new Node.TextEq(f, (String) l.value(), l.op() == io.vigil.rules.model.Operator.NE);
            };
            case GT, GTE, LT, LTE -> new Node.NumCmp(f, l.op(), number(l.value()));
            case BETWEEN -> new Node.NumBetween(f, number(l.values().get(0)), number(l.values().get(1)));
            case IN, NOT_IN -> f.type() == Field.Type.NUMBER
                    ? new Node.NumIn(f, l.values().stream().mapToDouble(RulesetCompiler::number).toArray(), l.op().negative())
                    : new Node.TextIn(f, textSet(l.values()), l.op().negative());
            case IN_LIST, NOT_IN_LIST -> new Node.TextIn(f, lists.get((String) l.value()), l.op().negative());
            case CONTAINS, STARTS_WITH, ENDS_WITH -> new Node.TextMatch(f, (String) l.value(), l.op());
            case REGEX -> new Node.TextRegex(f, Pattern.compile((String) l.value()));
        };
    }

    private static Node custom(Condition.Leaf l, Map<String, Set<String>> lists) {
        String name = l.field().substring(CUSTOM_PREFIX.length());
        Object v = l.value();
        String text = v instanceof String s ? s : null;
        double number = v instanceof BigDecimal d ? d.doubleValue() : Double.NaN;
        double high = Double.NaN;
        Boolean bool = v instanceof Boolean b ? b : null;
        Set<String> texts = null;
        double[] numbers = null;
        boolean hasTrue = false;
        boolean hasFalse = false;
        Pattern pattern = null;
        switch (l.op()) {
            case BETWEEN -> {
                number = number(l.values().get(0));
                high = number(l.values().get(1));
            }
            case IN, NOT_IN -> {
                Set<String> t = new HashSet<>();
                List<Double> n = new ArrayList<>();
                for (Object o : l.values()) {
                    if (o instanceof String s) {
                        t.add(s);
                    } else if (o instanceof BigDecimal d) {
                        n.add(d.doubleValue());
                    } else if (Boolean.TRUE.equals(o)) {
                        hasTrue = true;
                    } else if (Boolean.FALSE.equals(o)) {
                        hasFalse = true;
                    }
                }
                texts = t.isEmpty() ? null : Set.copyOf(t);
                numbers = n.isEmpty() ? null : n.stream().mapToDouble(Double::doubleValue).toArray();
            }
            case IN_LIST, NOT_IN_LIST -> {
                texts = lists.get((String) v);
                text = null;
            }
            case REGEX -> pattern = Pattern.compile(text);
            default -> {
            }
        }
        return new Node.Custom(name, l.op(), text, number, high, bool, texts, numbers, hasTrue, hasFalse, pattern);
    }

    private static double number(Object o) {
        // Parsed once from the document's decimal spelling: 100, 100.0 and 1e2 are the same double.
        return ((BigDecimal) o).doubleValue() + 0.0;
    }

    private static Set<String> textSet(List<Object> values) {
        Set<String> s = new HashSet<>();
        for (Object o : values) {
            s.add((String) o);
        }
        return Set.copyOf(s);
    }
}
