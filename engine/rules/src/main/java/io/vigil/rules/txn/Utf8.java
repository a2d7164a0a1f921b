package io.vigil.rules.txn;

/**
 * Strict UTF-8 well-formedness (Unicode 15 Table 3-7, RFC 3629): refuses overlong forms
 * ({@code C0 80}), encoded surrogates (CESU-8's {@code ED A0 80}), code points above U+10FFFF and
 * truncated sequences. Jackson decodes such bytes without complaint, and two spellings of the same
 * text would let a value slip past a block list, so the body is checked before it is parsed.
 */
final class Utf8 {
    /** Eight bytes at a time: a request body is mostly ASCII, and one test per word skips it. */
    private static final java.lang.invoke.VarHandle LONGS =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);
    private static final long HIGH_BITS = 0x8080808080808080L;

    private Utf8() {
    }

    /** Offset of the first byte of the first ill-formed sequence in {@code [from, to)}, or -1 if all is well-formed. */
    static int firstInvalid(byte[] b, int from, int to) {
        int i = from;
        while (i < to) {
            while (i + 8 <= to && ((long) LONGS.get(b, i) & HIGH_BITS) == 0) {
                i += 8;
            }
            if (i >= to) {
                break;
            }
            int c = b[i];
            if (c >= 0) { // ASCII, the common case
                i++;
                continue;
            }
            c &= 0xFF;
            int need;
            int lo = 0x80;
            int hi = 0xBF;
            if (c >= 0xC2 && c <= 0xDF) {
                need = 1;
            } else if (c >= 0xE0 && c <= 0xEF) {
                need = 2;
                if (c == 0xE0) {
                    lo = 0xA0; // below is an overlong 2-byte form
                } else if (c == 0xED) {
                    hi = 0x9F; // above are the surrogates U+D800..U+DFFF
                }
            } else if (c >= 0xF0 && c <= 0xF4) {
                need = 3;
                if (c == 0xF0) {
                    lo = 0x90; // overlong
                } else if (c == 0xF4) {
                    hi = 0x8F; // above U+10FFFF
                }
            } else {
                return i; // C0, C1 (overlong), F5..FF, or a stray continuation byte
            }
            if (i + need >= to) {
                return i; // truncated at the end
            }
            int second = b[i + 1] & 0xFF;
            if (second < lo || second > hi) {
                return i;
            }
            for (int k = 2; k <= need; k++) {
                int next = b[i + k] & 0xFF;
                if (next < 0x80 || next > 0xBF) {
                    return i;
                }
            }
            i += need + 1;
        }
        return -1;
    }
}
