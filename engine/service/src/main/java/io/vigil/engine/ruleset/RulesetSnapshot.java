package io.vigil.engine.ruleset;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * The active rulesets at one instant: immutable, replaced as a whole, so a request that picked a
 * ruleset finishes on it whatever is activated meanwhile.
 */
public final class RulesetSnapshot {
    public static final RulesetSnapshot EMPTY = new RulesetSnapshot(Map.of());

    private final Map<String, KeyRulesets> byKey;
    private final int partitionCount;

    private RulesetSnapshot(Map<String, KeyRulesets> byKey) {
        this.byKey = byKey;
        int n = 0;
        for (KeyRulesets k : byKey.values()) {
            n += k.partitions().size();
        }
        this.partitionCount = n;
    }

    /** The partition for a transaction's country (then global) of the active version of {@code key}; null when none. */
    public LoadedRuleset pick(String key, String countryCode) {
        KeyRulesets k = byKey.get(key);
        return k == null ? null : k.pick(countryCode);
    }

    public KeyRulesets key(String key) {
        return byKey.get(key);
    }

    public boolean has(String key) {
        return byKey.containsKey(key);
    }

    public Collection<KeyRulesets> keys() {
        return byKey.values();
    }

    /** Loaded partitions over all keys (the compatibility health endpoint's {@code rulesets_loaded}). */
    public int partitionCount() {
        return partitionCount;
    }

    /** A new snapshot with {@code key}'s active version replaced. */
    public RulesetSnapshot with(KeyRulesets rulesets) {
        Map<String, KeyRulesets> next = new HashMap<>(byKey);
        next.put(rulesets.key(), rulesets);
        return new RulesetSnapshot(Map.copyOf(next));
    }
}
