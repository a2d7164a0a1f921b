package io.vigil.rules.parse;

/** Serialisations a ruleset may come in. Both the native format and the legacy compiled artifact load from either. */
public enum RulesetFormat {
    JSON, YAML;

    /** By file name: .yaml/.yml are YAML, everything else JSON. */
    public static RulesetFormat ofFileName(String name) {
        String n = name.toLowerCase(java.util.Locale.ROOT);
        return n.endsWith(".yaml") || n.endsWith(".yml") ? YAML : JSON;
    }
}
