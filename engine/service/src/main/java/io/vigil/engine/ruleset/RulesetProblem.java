package io.vigil.engine.ruleset;

/**
 * Why a ruleset version could not be loaded.
 *
 * @param file    the file (relative to the rulesets directory), or null for a problem of the version as a whole
 * @param path    JSON path inside the document, or null
 * @param message plain words
 */
public record RulesetProblem(String file, String path, String message) {

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        if (file != null) {
            sb.append(file).append(": ");
        }
        if (path != null && !path.isEmpty()) {
            sb.append(path).append(": ");
        }
        return sb.append(message).toString();
    }
}
