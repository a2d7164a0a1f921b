package io.vigil.engine.ruleset;

import io.vigil.rules.eval.CompiledRuleset;
import java.time.Instant;

/**
 * One partition of an active ruleset version, as it serves.
 *
 * @param country ISO 3166 alpha-2 partition, or null for the global partition
 * @param source  the file it was loaded from (or "inline"/"api")
 */
public record LoadedRuleset(String key, String country, CompiledRuleset compiled, Instant loadedAt, String source) {

    public int version() {
        return compiled.version();
    }

    public String checksum() {
        return compiled.checksum();
    }

    public int ruleCount() {
        return compiled.ruleCount();
    }

    /** "global" or the country code, as reported by the management API and metrics. */
    public String partition() {
        return country == null ? "global" : country;
    }
}
