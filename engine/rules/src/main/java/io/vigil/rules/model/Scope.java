package io.vigil.rules.model;

import java.util.List;

/**
 * Where a rule applies. Values are OR-ed within a dimension, dimensions are AND-ed; an empty list
 * means "any". {@code bin} values are prefixes of the card BIN.
 */
public record Scope(List<String> network, List<String> bin, List<String> mcc, List<String> logo,
                    List<String> country) {
    public static final Scope GLOBAL = new Scope(List.of(), List.of(), List.of(), List.of(), List.of());

    public Scope {
        network = List.copyOf(network);
        bin = List.copyOf(bin);
        mcc = List.copyOf(mcc);
        logo = List.copyOf(logo);
        country = List.copyOf(country);
    }

    public boolean global() {
        return specificity() == 0;
    }

    /** How many dimensions the scope constrains (0..5): the first ordering key of candidate rules. */
    public int specificity() {
        return (network.isEmpty() ? 0 : 1) + (bin.isEmpty() ? 0 : 1) + (mcc.isEmpty() ? 0 : 1)
                + (logo.isEmpty() ? 0 : 1) + (country.isEmpty() ? 0 : 1);
    }
}
