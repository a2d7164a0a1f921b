package io.vigil.rules.model;

import java.util.Collection;

/** "Did you mean" suggestions for validation messages. */
public final class Names {
    private Names() {
    }

    /** The candidate closest to {@code s} by edit distance, if close enough to be a plausible typo; else null. */
    public static String closest(String s, Collection<String> candidates) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String c : candidates) {
            int d = distance(s, c);
            if (d < bestDistance || (d == bestDistance && best != null && c.compareTo(best) < 0)) {
                best = c;
                bestDistance = d;
            }
        }
        int allowed = s.length() <= 3 ? 1 : Math.min(3, Math.max(2, s.length() / 4));
        return bestDistance <= allowed ? best : null;
    }

    /** Edit distance where swapping two adjacent characters counts as one edit (optimal string alignment). */
    static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }
}
