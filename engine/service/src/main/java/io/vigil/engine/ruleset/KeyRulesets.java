package io.vigil.engine.ruleset;

import java.util.List;
import java.util.Map;

/**
 * Every partition of one ruleset version of one key: a version activates or fails as a whole.
 *
 * @param global    the partition for transactions without a country partition of their own (may be null)
 * @param byCountry country code → partition
 */
public record KeyRulesets(String key, int version, LoadedRuleset global, Map<String, LoadedRuleset> byCountry) {

    public KeyRulesets {
        byCountry = Map.copyOf(byCountry);
    }

    /** The transaction's country partition, else global; null when neither exists. */
    public LoadedRuleset pick(String countryCode) {
        if (countryCode != null && !byCountry.isEmpty()) {
            LoadedRuleset r = byCountry.get(countryCode);
            if (r != null) {
                return r;
            }
        }
        return global;
    }

    /** Global first, then countries in alphabetical order. */
    public List<LoadedRuleset> partitions() {
        java.util.ArrayList<LoadedRuleset> all = new java.util.ArrayList<>(byCountry.size() + 1);
        if (global != null) {
            all.add(global);
        }
        byCountry.keySet().stream().sorted().forEach(c -> all.add(byCountry.get(c)));
        return all;
    }

    /** Same version with the same content: activating it again changes nothing. */
    public boolean sameContentAs(KeyRulesets other) {
        if (other == null || other.version != version) {
            return false;
        }
        List<LoadedRuleset> a = partitions();
        List<LoadedRuleset> b = other.partitions();
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (!a.get(i).partition().equals(b.get(i).partition()) || !a.get(i).checksum().equals(b.get(i).checksum())) {
                return false;
            }
        }
        return true;
    }
}
