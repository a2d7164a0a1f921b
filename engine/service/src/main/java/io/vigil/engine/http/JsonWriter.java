package io.vigil.engine.http;

import io.vertx.core.buffer.Buffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A minimal JSON writer into a growable byte array that is reused per thread: answers are a handful
 * of known keys, so writing them by hand costs one copy into the response buffer instead of a tree,
 * a reflective serializer and their garbage.
 */
public final class JsonWriter {
    private static final ThreadLocal<JsonWriter> PER_THREAD = ThreadLocal.withInitial(JsonWriter::new);
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NULL = {'n', 'u', 'l', 'l'};
    private static final byte[] TRUE = {'t', 'r', 'u', 'e'};
    private static final byte[] FALSE = {'f', 'a', 'l', 's', 'e'};

    private byte[] buf;
    private int len;

    /** A writer of one's own (e.g. a background thread's); request threads use {@link #get()}. */
    public JsonWriter(int initialCapacity) {
        buf = new byte[Math.max(16, initialCapacity)];
    }

    private JsonWriter() {
        this(512);
    }

    /** Empties the writer, keeping its buffer. */
    public JsonWriter reset() {
        len = 0;
        return this;
    }

    /** The calling thread's writer, emptied. Do not keep it across an asynchronous step. */
    public static JsonWriter get() {
        JsonWriter w = PER_THREAD.get();
        w.len = 0;
        return w;
    }

    public JsonWriter raw(byte[] bytes) {
        ensure(bytes.length);
        System.arraycopy(bytes, 0, buf, len, bytes.length);
        len += bytes.length;
        return this;
    }

    public JsonWriter raw(byte[] bytes, int from, int to) {
        int n = to - from;
        ensure(n);
        System.arraycopy(bytes, from, buf, len, n);
        len += n;
        return this;
    }

    public JsonWriter raw(char c) {
        ensure(1);
        buf[len++] = (byte) c;
        return this;
    }

    /** Writes a key known to need no escaping, with its quotes and colon, preceded by a comma unless first. */
    public JsonWriter key(String name) {
        ensure(name.length() + 4);
        commaUnlessFirst();
        buf[len++] = '"';
        lowBytes(name);
        buf[len++] = '"';
        buf[len++] = ':';
        return this;
    }

    /**
     * {@link #key(String)} with the key encoded once ({@link #keyBytes}): one array copy instead of the
     * name's chars, for the fixed keys of an object written many times (the decision event).
     */
    public JsonWriter key(byte[] encoded) {
        ensure(encoded.length + 1);
        commaUnlessFirst();
        System.arraycopy(encoded, 0, buf, len, encoded.length);
        len += encoded.length;
        return this;
    }

    /** A key for {@link #key(byte[])}: {@code "name":}, the name known to need no escaping. */
    public static byte[] keyBytes(String name) {
        return ('"' + name + "\":").getBytes(StandardCharsets.US_ASCII);
    }

    /** A comma before a key unless it is the first of its object or array (room ensured by the caller). */
    private void commaUnlessFirst() {
        byte last = len == 0 ? 0 : buf[len - 1];
        if (last != '{' && last != '[' && last != 0) {
            buf[len++] = ',';
        }
    }

    /**
     * Copies an ASCII string's chars as bytes: {@code String.getBytes(int, int, byte[], int)} is one
     * array copy for a Latin-1 string, where a loop over {@code charAt} checks bounds and the coder per
     * char ({@code key} was 4.4 % of the engine's CPU samples inside the outbox event's encoder alone;
     * docs/adr/0021-velocity-connection-per-event-loop.md). Same bytes as that loop: the low byte of
     * each char, so only for text known to be ASCII.
     */
    @SuppressWarnings("deprecation")
    private void lowBytes(String ascii) {
        int n = ascii.length();
        ascii.getBytes(0, n, buf, len);
        len += n;
    }

    /** A comma between array elements. */
    public JsonWriter comma() {
        return raw(',');
    }

    public JsonWriter string(String s) {
        if (s == null) {
            return raw(NULL);
        }
        // Room for the worst case (every char a six-byte escape) once, not a check per char.
        int n = s.length();
        ensure(n * 6 + 2);
        // The common case, printable ASCII, in locals: no field read or written per char.
        byte[] b = buf;
        int p = len;
        b[p++] = '"';
        int i = 0;
        while (i < n) {
            char c = s.charAt(i);
            if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') {
                break;
            }
            b[p++] = (byte) c;
            i++;
        }
        len = p;
        for (; i < n; i++) {
            char c = s.charAt(i);
            if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
                buf[len++] = (byte) c;
            } else {
                escaped(s, i, c);
                if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                }
            }
        }
        buf[len++] = '"';
        return this;
    }

    private void escaped(String s, int i, char c) {
        switch (c) {
            case '"' -> { buf[len++] = '\\'; buf[len++] = '"'; }
            case '\\' -> { buf[len++] = '\\'; buf[len++] = '\\'; }
            case '\n' -> { buf[len++] = '\\'; buf[len++] = 'n'; }
            case '\r' -> { buf[len++] = '\\'; buf[len++] = 'r'; }
            case '\t' -> { buf[len++] = '\\'; buf[len++] = 't'; }
            default -> {
                if (c < 0x20) {
                    buf[len++] = '\\';
                    buf[len++] = 'u';
                    buf[len++] = '0';
                    buf[len++] = '0';
                    buf[len++] = HEX[c >> 4];
                    buf[len++] = HEX[c & 0xF];
                } else if (c < 0x800) {
                    buf[len++] = (byte) (0xC0 | (c >> 6));
                    buf[len++] = (byte) (0x80 | (c & 0x3F));
                } else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                    int cp = Character.toCodePoint(c, s.charAt(i + 1));
                    buf[len++] = (byte) (0xF0 | (cp >> 18));
                    buf[len++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
                    buf[len++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
                    buf[len++] = (byte) (0x80 | (cp & 0x3F));
                } else if (Character.isSurrogate(c)) {
                    buf[len++] = (byte) 0xEF; // lone surrogate: U+FFFD, JSON must stay valid UTF-8
                    buf[len++] = (byte) 0xBF;
                    buf[len++] = (byte) 0xBD;
                } else {
                    buf[len++] = (byte) (0xE0 | (c >> 12));
                    buf[len++] = (byte) (0x80 | ((c >> 6) & 0x3F));
                    buf[len++] = (byte) (0x80 | (c & 0x3F));
                }
            }
        }
    }

    public JsonWriter number(long v) {
        if (v == Long.MIN_VALUE) {
            return ascii(Long.toString(v));
        }
        ensure(20);
        if (v < 0) {
            buf[len++] = '-';
            v = -v;
        }
        if (v == 0) {
            buf[len++] = '0';
            return this;
        }
        int start = len;
        while (v > 0) {
            buf[len++] = (byte) ('0' + (v % 10));
            v /= 10;
        }
        for (int i = start, j = len - 1; i < j; i++, j--) {
            byte t = buf[i];
            buf[i] = buf[j];
            buf[j] = t;
        }
        return this;
    }

    /** Integral values without a fraction (counts read as counts); NaN and infinities as null. */
    public JsonWriter number(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return raw(NULL);
        }
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return number((long) v);
        }
        return ascii(Double.toString(v));
    }

    /**
     * A double as {@link Double#toString(double)} spells it ({@code 20.0}, {@code 1.0E-4}), the way Jackson
     * writes one; NaN and infinities as null.
     */
    public JsonWriter decimal(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return raw(NULL);
        }
        // Counts and whole thresholds: Double.toString spells an integral value below 10^7 as its digits
        // and ".0" (not -0.0, whose sign it keeps); written without its String and decimal conversion.
        if (v == (long) v && Math.abs(v) < 1e7 && (v != 0 || Double.doubleToRawLongBits(v) == 0)) {
            number((long) v);
            ensure(2);
            buf[len++] = '.';
            buf[len++] = '0';
            return this;
        }
        return ascii(Double.toString(v));
    }

    /** An already valid JSON number as text (e.g. as the caller spelled it), unquoted. */
    public JsonWriter numberText(String text) {
        return text == null ? nul() : ascii(text);
    }

    public JsonWriter bool(boolean b) {
        return raw(b ? TRUE : FALSE);
    }

    public JsonWriter nul() {
        return raw(NULL);
    }

    /** A name of an enum, or null. */
    public JsonWriter name(Enum<?> e) {
        return e == null ? nul() : ascii(e.name(), true);
    }

    private JsonWriter ascii(String s) {
        return ascii(s, false);
    }

    private JsonWriter ascii(String s, boolean quoted) {
        ensure(s.length() + 2);
        if (quoted) {
            buf[len++] = '"';
        }
        lowBytes(s);
        if (quoted) {
            buf[len++] = '"';
        }
        return this;
    }

    public int length() {
        return len;
    }

    /** The writer's own buffer (valid up to {@link #length()}); overwritten by the next use. */
    public byte[] array() {
        return buf;
    }

    /** A copy of what was written, as a Vert.x buffer (the writer is reused by the next request). */
    public Buffer toBuffer() {
        return Buffer.buffer(Arrays.copyOf(buf, len));
    }

    public byte[] toBytes() {
        return Arrays.copyOf(buf, len);
    }

    @Override
    public String toString() {
        return new String(buf, 0, len, StandardCharsets.UTF_8);
    }

    private void ensure(int more) {
        if (len + more > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + more));
        }
    }
}
