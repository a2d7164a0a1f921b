package io.vigil.engine.decision;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Time-ordered unique decision ids in the UUIDv7 layout (RFC 9562): 48 bits of Unix milliseconds,
 * version 7, 74 random bits. Sort by creation millisecond; no coordination, no lock, one String.
 */
public final class DecisionIds {
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    private DecisionIds() {
    }

    public static String next() {
        return format(System.currentTimeMillis(), ThreadLocalRandom.current());
    }

    static String format(long epochMillis, ThreadLocalRandom random) {
        long msb = (epochMillis << 16) | 0x7000L | (random.nextInt() & 0x0FFFL);
        long lsb = (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
        byte[] out = new byte[36];
        hex(out, 0, msb >>> 32, 8);
        out[8] = '-';
        hex(out, 9, msb >>> 16, 4);
        out[13] = '-';
        hex(out, 14, msb, 4);
        out[18] = '-';
        hex(out, 19, lsb >>> 48, 4);
        out[23] = '-';
        hex(out, 24, lsb, 12);
        return new String(out, StandardCharsets.ISO_8859_1);
    }

    private static void hex(byte[] out, int at, long value, int digits) {
        for (int i = digits - 1; i >= 0; i--) {
            out[at + i] = HEX[(int) (value & 0xF)];
            value >>>= 4;
        }
    }
}
