package io.vigil.rules.parse;

/**
 * One problem in a ruleset document.
 *
 * @param path    JSON path of the offending node, e.g. {@code rules[3].condition.args[1].op}
 * @param message plain words, e.g. {@code unknown operator "neq"}
 */
public record ValidationError(String path, String message) {
    @Override
    public String toString() {
        return path + ": " + message;
    }
}
