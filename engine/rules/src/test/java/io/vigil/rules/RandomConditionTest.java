package io.vigil.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.vigil.rules.eval.CompiledRuleset;
import io.vigil.rules.eval.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Random condition trees against a straightforward reference interpreter of the documented
 * three-valued semantics (ADR 0002). The compiled evaluator reorders and/or operands by cost and skips
 * rules whose required fields are missing; neither may change any result.
 */
class RandomConditionTest {
    private static final int TRUE = 1;
    private static final int FALSE = 0;
    private static final int UNKNOWN = 2;

    /** A tiny model: a leaf is (field, op, operand); values per field are drawn from small domains. */
    record Leaf(String field, String op, String operandJson, java.util.function.Function<Object, Integer> test) {
    }

    @Test
    void compiledEvaluationAgreesWithTheReference() {
        SplittableRandom r = new SplittableRandom(20261121);
        for (int round = 0; round < 300; round++) {
            StringBuilder json = new StringBuilder();
            Node node = randomNode(r, 0);
            node.json(json);
            CompiledRuleset rs = TestRulesets.json("{\"ruleset_key\":\"R\",\"ruleset_version\":1,\"execution_mode\":\"FIRST_MATCH\","
                    + "\"rules\":[{\"rule_id\":\"r\",\"condition\":" + json + ",\"action\":\"DECLINE\"}]}");
            for (int t = 0; t < 30; t++) {
                Object[] values = randomTxn(r);
                boolean expected = node.eval(values) == TRUE;
                boolean actual = TestRulesets.eval(rs, txnJson(values)).decision() == Outcome.DECLINE;
                assertThat(actual).as("%s on %s", json, txnJson(values)).isEqualTo(expected);
            }
        }
    }

    // fields: 0 amount (number), 1 country_code (text), 2 card_present (boolean), 3 custom_fields.score (number or text)
    private static Object[] randomTxn(SplittableRandom r) {
        Object[] v = new Object[4];
        v[0] = r.nextInt(4) == 0 ? null : (double) (r.nextInt(5) * 50);
        v[1] = r.nextInt(4) == 0 ? null : new String[] {"US", "DE", "FR"}[r.nextInt(3)];
        v[2] = r.nextInt(4) == 0 ? null : r.nextBoolean();
        int s = r.nextInt(5);
        v[3] = s == 0 ? null : s == 1 ? "high" : (double) (r.nextInt(4) * 30);
        return v;
    }

    private static String txnJson(Object[] v) {
        StringBuilder sb = new StringBuilder("{\"transaction_id\":\"t\"");
        if (v[0] != null) {
            sb.append(",\"amount\":").append(v[0]);
        }
        if (v[1] != null) {
            sb.append(",\"country_code\":\"").append(v[1]).append('"');
        }
        if (v[2] != null) {
            sb.append(",\"card_present\":").append(v[2]);
        }
        if (v[3] != null) {
            sb.append(",\"custom_fields\":{\"score\":").append(v[3] instanceof String s ? "\"" + s + "\"" : v[3]).append('}');
        }
        return sb.append('}').toString();
    }

    interface Node {
        int eval(Object[] values);

        void json(StringBuilder sb);
    }

    private static Node randomNode(SplittableRandom r, int depth) {
        int kind = depth >= 3 ? 3 : r.nextInt(4);
        if (kind == 3) {
            return randomLeaf(r);
        }
        if (kind == 2) {
            Node child = randomNode(r, depth + 1);
            return new Node() {
                public int eval(Object[] v) {
                    int c = child.eval(v);
                    return c == UNKNOWN ? UNKNOWN : 1 - c;
                }

                public void json(StringBuilder sb) {
                    sb.append("{\"not\":");
                    child.json(sb);
                    sb.append('}');
                }
            };
        }
        boolean and = kind == 0;
        List<Node> children = new ArrayList<>();
        for (int i = 0, n = 1 + r.nextInt(3); i < n; i++) {
            children.add(randomNode(r, depth + 1));
        }
        return new Node() {
            public int eval(Object[] v) {
                int result = and ? TRUE : FALSE;
                for (Node c : children) {
                    int x = c.eval(v);
                    if (and && x == FALSE || !and && x == TRUE) {
                        return x;
                    }
                    if (x == UNKNOWN) {
                        result = UNKNOWN;
                    }
                }
                return result;
            }

            public void json(StringBuilder sb) {
                sb.append("{\"").append(and ? "and" : "or").append("\":[");
                for (int i = 0; i < children.size(); i++) {
                    if (i > 0) {
                        sb.append(',');
                    }
                    children.get(i).json(sb);
                }
                sb.append("]}");
            }
        };
    }

    private static Node randomLeaf(SplittableRandom r) {
        int field = r.nextInt(4);
        String name = new String[] {"amount", "country_code", "card_present", "custom_fields.score"}[field];
        String op;
        String operand;
        java.util.function.Function<Object, Integer> test;
        int choice = r.nextInt(field == 2 ? 3 : 4);
        if (choice == 0) {
            op = "exists";
            operand = null;
            test = x -> x == null ? FALSE : TRUE;
        } else if (field == 1) {
            String value = new String[] {"US", "DE", "FR"}[r.nextInt(3)];
            op = choice == 1 ? "eq" : choice == 2 ? "ne" : "not_in";
            operand = choice == 3 ? "\"values\":[\"" + value + "\"]" : "\"value\":\"" + value + "\"";
            boolean negate = choice != 1;
            test = x -> x == null ? UNKNOWN : (x.equals(value) != negate) ? TRUE : FALSE;
        } else if (field == 2) {
            boolean value = r.nextBoolean();
            op = choice == 1 ? "eq" : "ne";
            operand = "\"value\":" + value;
            boolean negate = choice == 2;
            test = x -> x == null ? UNKNOWN : (x.equals(value) != negate) ? TRUE : FALSE;
        } else {
            double value = r.nextInt(5) * 30;
            op = choice == 1 ? "gt" : choice == 2 ? "ne" : "lte";
            operand = "\"value\":" + value;
            String o = op;
            test = x -> {
                if (!(x instanceof Double d)) {
                    return UNKNOWN;
                }
                boolean b = o.equals("gt") ? d > value : o.equals("ne") ? d != value : d <= value;
                return b ? TRUE : FALSE;
            };
        }
        String json = "{\"field\":\"" + name + "\",\"op\":\"" + op + "\"" + (operand == null ? "" : "," + operand) + "}";
        return new Node() {
            public int eval(Object[] v) {
                return test.apply(v[field]);
            }

            public void json(StringBuilder sb) {
                sb.append(json);
            }
        };
    }
}
