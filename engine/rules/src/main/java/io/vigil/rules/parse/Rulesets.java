package io.vigil.rules.parse;

/**
 * Entry point of the library: parse, validate (strictly, reporting every error with its path) and
 * compile a ruleset document in the native format or the legacy compiled-artifact format.
 */
public final class Rulesets {
    private Rulesets() {
    }

    public static ParseResult load(byte[] content, RulesetFormat format) {
        throw new UnsupportedOperationException("not implemented yet");
    }
}
