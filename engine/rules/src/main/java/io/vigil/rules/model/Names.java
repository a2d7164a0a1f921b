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
        int allowed = Math.max(1, Math.min(3, s.length() / 3));
        return bestDistance <= allowed ? best : null;
    }

    static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
