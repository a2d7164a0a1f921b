package io.vigil.operator.api.v1alpha1;

import java.time.Duration;
import java.util.regex.Matcher;

/** Durations in the CRDs are written like Go/Prometheus durations of one unit: 5ms, 30s, 10m, 2h, 7d. */
public final class Durations {
    public static final String PATTERN = "^[0-9]+(ms|s|m|h|d)$";
    /** A duration that must not be zero. */
    public static final String POSITIVE_PATTERN = "^[1-9][0-9]*(ms|s|m|h|d)$";
    private static final java.util.regex.Pattern COMPILED = java.util.regex.Pattern.compile(PATTERN);

    private Durations() {
    }

    public static Duration parse(String text) {
        Matcher m = COMPILED.matcher(text == null ? "" : text);
        if (!m.matches()) {
            throw new IllegalArgumentException("not a duration (expected e.g. 5ms, 30s, 7d): " + text);
        }
        long n = Long.parseLong(text.substring(0, text.length() - m.group(1).length()));
        return switch (m.group(1)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofDays(n);
        };
    }
}
