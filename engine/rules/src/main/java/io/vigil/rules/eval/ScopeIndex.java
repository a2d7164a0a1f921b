package io.vigil.rules.eval;

import io.vigil.rules.model.Scope;
import io.vigil.rules.txn.Field;
import io.vigil.rules.txn.Transaction;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * Finds the candidate rules of a transaction without looking at each rule: one bitset per scope
 * value (network, MCC, logo, country: a hash lookup; BIN: a walk down a digit trie of prefixes),
 * AND-ed across dimensions, so a rule scoped on several dimensions is a candidate only when all
 * of them match. Bit i is the rule at position i of the evaluation order.
 */
final class ScopeIndex {
    private final int words;
    private final long[] all;
    private final Exact[] exact;
    private final Bin bin;

    ScopeIndex(List<CompiledRule> rules, List<Scope> scopes) {
        this(rules, scopes, false);
    }

    /**
     * @param foldNetworkAndLogo compare network and logo ignoring case: the legacy format's meaning
     *                           (the old engine matched them with equalsIgnoreCase)
     */
    ScopeIndex(List<CompiledRule> rules, List<Scope> scopes, boolean foldNetworkAndLogo) {
        int n = rules.size();
        this.words = Math.max(1, (n + 63) >>> 6);
        this.all = new long[words];
        for (int i = 0; i < n; i++) {
            set(all, i);
        }
        List<Exact> dims = new ArrayList<>();
        addExact(dims, Field.CARD_NETWORK, scopes, Scope::network, foldNetworkAndLogo);
        addExact(dims, Field.MERCHANT_CATEGORY_CODE, scopes, Scope::mcc, false);
        addExact(dims, Field.CARD_LOGO, scopes, Scope::logo, foldNetworkAndLogo);
        addExact(dims, Field.COUNTRY_CODE, scopes, Scope::country, false);
        this.exact = dims.toArray(new Exact[0]);
        boolean anyBin = scopes.stream().anyMatch(s -> !s.bin().isEmpty());
        this.bin = anyBin ? new Bin(scopes, words) : null;
    }

    int words() {
        return words;
    }

    /** Writes the candidate bitset of {@code t} into {@code out}. */
    void candidates(Transaction t, long[] out) {
        System.arraycopy(all, 0, out, 0, words);
        for (Exact d : exact) {
            long[] m = d.mask(t);
            for (int w = 0; w < words; w++) {
                out[w] &= m[w];
            }
        }
        if (bin != null) {
            long[] m = bin.mask(t);
            for (int w = 0; w < words; w++) {
                out[w] &= m[w];
            }
        }
    }

    static void set(long[] bits, int i) {
        bits[i >>> 6] |= 1L << i;
    }

    private void addExact(List<Exact> dims, Field field, List<Scope> scopes, Function<Scope, List<String>> values,
                          boolean fold) {
        long[] any = new long[words];
        Map<String, long[]> byValue = new HashMap<>();
        boolean used = false;
        for (int i = 0; i < scopes.size(); i++) {
            List<String> vs = values.apply(scopes.get(i));
            if (vs.isEmpty()) {
                set(any, i);
            } else {
                used = true;
                for (String v : vs) {
                    set(byValue.computeIfAbsent(fold ? v.toUpperCase(Locale.ROOT) : v, k -> new long[words]), i);
                }
            }
        }
        if (!used) {
            return;
        }
        // Each value's mask already includes the rules that do not constrain this dimension.
        for (long[] m : byValue.values()) {
            for (int w = 0; w < words; w++) {
                m[w] |= any[w];
            }
        }
        dims.add(new Exact(field, any, byValue, fold));
    }

    private record Exact(Field field, long[] any, Map<String, long[]> byValue, boolean fold) {
        long[] mask(Transaction t) {
            String v = t.text(field);
            if (v == null) {
                return any;
            }
            // toUpperCase returns the same string, without allocating, when it is already upper case.
            long[] m = byValue.get(fold ? v.toUpperCase(Locale.ROOT) : v);
            return m == null ? any : m;
        }
    }

    /** BIN prefixes in a trie of digits; each node's mask covers every prefix on the path to it. */
    private static final class Bin {
        private final TrieNode root;

        Bin(List<Scope> scopes, int words) {
            root = new TrieNode(words);
            for (int i = 0; i < scopes.size(); i++) {
                List<String> prefixes = scopes.get(i).bin();
                if (prefixes.isEmpty()) {
                    set(root.own, i);
                }
                for (String p : prefixes) {
                    TrieNode node = root;
                    for (int c = 0; c < p.length(); c++) {
                        int d = p.charAt(c) - '0';
                        if (node.next[d] == null) {
                            node.next[d] = new TrieNode(words);
                        }
                        node = node.next[d];
                    }
                    set(node.own, i);
                }
            }
            accumulate(root, new long[words]);
        }

        private static void accumulate(TrieNode node, long[] parent) {
            for (int w = 0; w < parent.length; w++) {
                node.mask[w] = parent[w] | node.own[w];
            }
            for (TrieNode child : node.next) {
                if (child != null) {
                    accumulate(child, node.mask);
                }
            }
        }

        long[] mask(Transaction t) {
            String v = t.text(Field.CARD_BIN);
            TrieNode node = root;
            if (v != null) {
                for (int c = 0; c < v.length(); c++) {
                    int d = v.charAt(c) - '0';
                    if (d < 0 || d > 9 || node.next[d] == null) {
                        break;
                    }
                    node = node.next[d];
                }
            }
            return node.mask;
        }
    }

    private static final class TrieNode {
        final TrieNode[] next = new TrieNode[10];
        final long[] own;
        final long[] mask;

        TrieNode(int words) {
            own = new long[words];
            mask = new long[words];
        }
    }
}
