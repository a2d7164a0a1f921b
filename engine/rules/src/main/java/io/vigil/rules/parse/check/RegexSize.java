package io.vigil.rules.parse.check;

/**
 * How many atoms a pattern has once its counted repetitions are expanded. RE2 compiles {@code x{n}} into
 * n copies of x, so nested counts multiply: {@code ((a{1000}){1000}){1000}} is 10^9 copies and exhausts
 * the heap at load (measured: {@code (a{1000}){1000}} alone took 160 MiB), although matching would be
 * linear. RE2/J has no memory budget (RE2's max_mem), so the parser refuses patterns beyond a size.
 *
 * <p>A conservative scan of the pattern text, run before RE2/J parses it: groups, classes, escapes and
 * {@code \Q...\E} are skipped correctly; anything odd only makes the estimate larger, never a crash.
 */
final class RegexSize {
    /** Ten times RE2's limit for a single count; ordinary patterns of up to 1000 characters stay far below. */
    static final long MAX_ATOMS = 10_000;

    private final String p;
    private int i;

    private RegexSize(String pattern) {
        this.p = pattern;
    }

    /** The number of atoms of {@code pattern} with every counted repetition expanded; capped at 10^9. */
    static long atoms(String pattern) {
        RegexSize s = new RegexSize(pattern);
        long total = 0;
        while (s.i < s.p.length()) {
            total = plus(total, s.sequence());
            s.i++; // an unbalanced ')': skip it and go on
        }
        return total;
    }

    /** A sequence (alternatives included) up to an unmatched ')' or the end: the sum of its elements' sizes. */
    private long sequence() {
        long total = 0;
        while (i < p.length() && p.charAt(i) != ')') {
            char c = p.charAt(i);
            long w = 1;
            if (c == '(') {
                // (the group's own "?:" / "?i" flags count as an atom or two: harmless over-estimate)
                i++;
                w = sequence();
                if (i < p.length()) {
                    i++; // ')'
                }
            } else if (c == '[') {
                skipClass();
            } else if (c == '\\') {
                skipEscape();
            } else {
                i++;
            }
            total = plus(total, times(w, quantifiers()));
        }
        return total;
    }

    /** The product of the counted quantifiers after an atom (x{2}{3} is refused by RE2 anyway). */
    private long quantifiers() {
        long factor = 1;
        while (i < p.length()) {
            char c = p.charAt(i);
            if (c == '*' || c == '+' || c == '?') {
                i++;
            } else if (c == '{') {
                int close = p.indexOf('}', i);
                String body = close < 0 ? "" : p.substring(i + 1, close);
                if (!body.matches("[0-9]{1,9}(,[0-9]{0,9})?")) {
                    return factor; // a literal '{'
                }
                int comma = body.indexOf(',');
                String upper = comma < 0 ? body : body.substring(comma + 1);
                long n = upper.isEmpty() ? Long.parseLong(body.substring(0, comma)) + 1 : Long.parseLong(upper);
                factor = times(factor, Math.max(1, n));
                i = close + 1;
            } else {
                return factor;
            }
        }
        return factor;
    }

    private void skipClass() {
        i++; // '['
        if (i < p.length() && p.charAt(i) == '^') {
            i++;
        }
        if (i < p.length() && p.charAt(i) == ']') {
            i++; // a leading ']' is literal
        }
        while (i < p.length() && p.charAt(i) != ']') {
            if (p.charAt(i) == '\\') {
                skipEscape();
            } else if (p.startsWith("[:", i)) {
                int end = p.indexOf(":]", i + 2);
                i = end < 0 ? i + 2 : end + 2;
            } else {
                i++;
            }
        }
        i++; // ']'
    }

    private void skipEscape() {
        i++; // '\'
        if (i >= p.length()) {
            return;
        }
        char c = p.charAt(i++);
        if (c == 'Q') {
            int end = p.indexOf("\\E", i);
            i = end < 0 ? p.length() : end + 2;
        } else if ((c == 'p' || c == 'P' || c == 'x') && i < p.length() && p.charAt(i) == '{') {
            int end = p.indexOf('}', i);
            i = end < 0 ? p.length() : end + 1;
        }
    }

    private static final long CAP = 1_000_000_000L;

    private static long times(long a, long b) {
        return b != 0 && a > CAP / b ? CAP : Math.min(CAP, a * b);
    }

    private static long plus(long a, long b) {
        return Math.min(CAP, a + b);
    }
}
