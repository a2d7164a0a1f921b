package io.vigil.rules.txn;

import java.util.Currency;
import java.util.Locale;

/**
 * The forms the contract gives some string fields (engine contract §2): RFC 3339 timestamps,
 * ISO 3166-1 alpha-2 countries, ISO 4217 currencies, 4-digit merchant category codes.
 *
 * <p>Checked on every request, so each check is a plain scan of the string: no regex, no parsing
 * into date objects, no allocation. Country and currency codes are bits in tables built once from
 * the JDK's ISO data ({@link Locale#getISOCountries(Locale.IsoCountryCode)},
 * {@link Currency#getAvailableCurrencies()}), which are kept up to date with the JDK.
 */
public final class FieldForms {
    private FieldForms() {
    }

    /** Bit {@code (a-'A')*26 + (b-'A')} set for every assigned alpha-2 code. */
    private static final long[] COUNTRIES = new long[(26 * 26 + 63) / 64];
    /** Bit {@code ((a-'A')*26 + (b-'A'))*26 + (c-'A')} set for every ISO 4217 alphabetic code. */
    private static final long[] CURRENCIES = new long[(26 * 26 * 26 + 63) / 64];

    static {
        for (String c : Locale.getISOCountries(Locale.IsoCountryCode.PART1_ALPHA2)) {
            set(COUNTRIES, letters(c));
        }
        // User-assigned, but what the card networks and most acquirers send for Kosovo.
        set(COUNTRIES, letters("XK"));
        for (Currency c : Currency.getAvailableCurrencies()) {
            set(CURRENCIES, letters(c.getCurrencyCode()));
        }
    }

    /** Upper-case ISO 3166-1 alpha-2 country code, e.g. {@code US}. */
    public static boolean isCountry(String s) {
        return s.length() == 2 && get(COUNTRIES, letters(s));
    }

    /** Upper-case ISO 4217 alphabetic currency code, e.g. {@code EUR} (current and historic codes). */
    public static boolean isCurrency(String s) {
        return s.length() == 3 && get(CURRENCIES, letters(s));
    }

    /** Merchant category code (ISO 18245): exactly four ASCII digits. */
    public static boolean isMcc(String s) {
        return s.length() == 4 && digit(s, 0) >= 0 && digit(s, 1) >= 0 && digit(s, 2) >= 0 && digit(s, 3) >= 0;
    }

    /**
     * RFC 3339 {@code date-time}: {@code 2026-01-15T10:45:30Z}, {@code 2026-01-15T10:45:30.123+01:00}.
     * Fields are range-checked (month 1–12, day within the month, leap years, hour 0–23, minute 0–59,
     * second 0–60 for a leap second, offset up to ±23:59); {@code T} and {@code Z} in either case
     * (RFC 3339 §5.6), any number of fraction digits.
     */
    public static boolean isRfc3339(String s) {
        int n = s.length();
        if (n < 20 || s.charAt(4) != '-' || s.charAt(7) != '-' || s.charAt(13) != ':' || s.charAt(16) != ':') {
            return false;
        }
        char t = s.charAt(10);
        if (t != 'T' && t != 't') {
            return false;
        }
        int year = number(s, 0, 4);
        int month = number(s, 5, 2);
        int day = number(s, 8, 2);
        int hour = number(s, 11, 2);
        int minute = number(s, 14, 2);
        int second = number(s, 17, 2);
        if (year < 0 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month)
                || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 60) {
            return false;
        }
        int i = 19;
        if (s.charAt(i) == '.') {
            int start = ++i;
            while (i < n && digit(s, i) >= 0) {
                i++;
            }
            if (i == start) {
                return false;
            }
        }
        if (i == n) {
            return false;
        }
        char z = s.charAt(i);
        if (z == 'Z' || z == 'z') {
            return i + 1 == n;
        }
        if ((z != '+' && z != '-') || n - i != 6 || s.charAt(i + 3) != ':') {
            return false;
        }
        int offsetHour = number(s, i + 1, 2);
        int offsetMinute = number(s, i + 4, 2);
        return offsetHour >= 0 && offsetHour <= 23 && offsetMinute >= 0 && offsetMinute <= 59;
    }

    private static int daysIn(int year, int month) {
        return switch (month) {
            case 2 -> (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) ? 29 : 28;
            case 4, 6, 9, 11 -> 30;
            default -> 31;
        };
    }

    /** The decimal value of {@code len} digits at {@code from}, or -1 if any is not a digit. */
    private static int number(String s, int from, int len) {
        int v = 0;
        for (int i = from; i < from + len; i++) {
            int d = digit(s, i);
            if (d < 0) {
                return -1;
            }
            v = v * 10 + d;
        }
        return v;
    }

    private static int digit(String s, int i) {
        char c = s.charAt(i);
        return c >= '0' && c <= '9' ? c - '0' : -1;
    }

    /** Base-26 index of an upper-case ASCII code, or -1 if any character is not A–Z. */
    private static int letters(String s) {
        int v = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 'A' || c > 'Z') {
                return -1;
            }
            v = v * 26 + (c - 'A');
        }
        return v;
    }

    private static void set(long[] bits, int index) {
        if (index >= 0 && index < bits.length * 64) {
            bits[index >>> 6] |= 1L << index;
        }
    }

    private static boolean get(long[] bits, int index) {
        return index >= 0 && (bits[index >>> 6] & (1L << index)) != 0;
    }
}
