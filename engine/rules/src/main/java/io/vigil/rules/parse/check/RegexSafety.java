package io.vigil.rules.parse.check;

import io.vigil.rules.parse.Path;
import io.vigil.rules.parse.Problems;

/**
 * Regex safety: a pattern must be RE2 syntax, which the evaluator uses. RE2/J matches in time linear in
 * the input, so no pattern (such as {@code (a+)+$}) can stall evaluation on a hostile value; RE2 has no
 * backreferences or lookaround, the features that need backtracking. Its size is bounded too
 * ({@link RegexSize}): counted repetitions are compiled as copies.
 */
public final class RegexSafety {
    static final int MAX_LENGTH = 1000;

    private final Problems problems;

    public RegexSafety(Problems problems) {
        this.problems = problems;
    }

    /** Whether {@code pattern} is safe; if not, a problem at {@code path}. */
    public boolean check(String pattern, Path path) {
        String problem = problem(pattern);
        if (problem != null) {
            problems.add(path, problem);
        }
        return problem == null;
    }

    /** What is wrong with {@code pattern}, or null. */
    public static String problem(String pattern) {
        if (pattern.length() > MAX_LENGTH) {
            return "regex longer than " + MAX_LENGTH + " characters";
        }
        long atoms = RegexSize.atoms(pattern);
        if (atoms > RegexSize.MAX_ATOMS) {
            return "regex too large: its counted repetitions expand to " + (atoms >= 1_000_000_000L ? "over 10^9" : atoms)
                    + " atoms (at most " + RegexSize.MAX_ATOMS + "); x{n} compiles to n copies of x, so nested counts multiply";
        }
        try {
            com.google.re2j.Pattern.compile(pattern);
            return null;
        } catch (com.google.re2j.PatternSyntaxException e) {
            // The message names the offending part: "missing closing ]: `[a-z`".
            String why = e.getMessage().replaceFirst("^error parsing regexp: ", "");
            return "invalid regex: " + why + " (RE2 syntax: no backreferences or lookaround)";
        }
    }
}
