package io.vigil.relay;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Decides whether a stream entry's event can be published: it must be one well-formed JSON object
 * (RFC 8259) with a non-empty string {@code event_id} at its top level. Both ways refuse the same
 * events (EventCheckTest feeds them the same valid and broken ones); {@code vigil.relay.event-check}
 * picks one, so the two can be compared on one machine (ADR 0030).
 */
public enum EventCheck {

    /**
     * One pass over the bytes that checks the grammar and nothing else: no token objects, no
     * field-name table, no number text. The default: under the relay's C1-only JIT (ADR 0023),
     * Jackson's tokenizer was about a tenth of the relay's CPU (ADR 0030), and the relay needs from it
     * only "well-formed, and has an event_id". Strings are checked for escapes, control characters
     * and the shape of their UTF-8 sequences; a key written with escapes is not read as
     * {@code event_id} (the engine never writes one).
     */
    SCAN {
        @Override
        public String problem(byte[] event) {
            if (event == null || event.length == 0) {
                return NO_EVENT;
            }
            Scan s = new Scan(event);
            try {
                s.whitespace();
                if (s.at >= event.length || event[s.at] != '{') {
                    return NOT_OBJECT;
                }
                boolean hasId = s.object(1, true);
                s.whitespace();
                if (s.at < event.length) {
                    return TRAILING;
                }
                return hasId ? null : NO_ID;
            } catch (Malformed m) {
                return m.getMessage();
            }
        }
    },

    /** Jackson's streaming parser (no tree): the relay's check before ADR 0030, kept to compare. */
    JACKSON {
        @Override
        public String problem(byte[] event) {
            if (event == null || event.length == 0) {
                return NO_EVENT;
            }
            try (JsonParser p = JSON.createParser(event)) {
                if (p.nextToken() != JsonToken.START_OBJECT) {
                    return NOT_OBJECT;
                }
                boolean hasId = false;
                JsonToken t;
                while ((t = p.nextToken()) != JsonToken.END_OBJECT) {
                    if (t == null) {
                        return ENDS_EARLY;
                    }
                    String name = p.currentName();
                    JsonToken v = p.nextToken();
                    if ("event_id".equals(name)) {
                        hasId = v == JsonToken.VALUE_STRING && !p.getText().isEmpty();
                    }
                    if (v == JsonToken.START_OBJECT || v == JsonToken.START_ARRAY) {
                        p.skipChildren();
                    }
                }
                if (p.nextToken() != null) {
                    return TRAILING;
                }
                return hasId ? null : NO_ID;
            } catch (IOException e) {
                return INVALID + firstLine(e.getMessage());
            }
        }
    };

    static final String NO_EVENT = "no event field";
    static final String NOT_OBJECT = "event is not a JSON object";
    static final String ENDS_EARLY = "event JSON ends early";
    static final String TRAILING = "trailing content after the event object";
    static final String NO_ID = "event has no event_id";
    static final String INVALID = "event is not valid JSON: ";
    /** Deepest nesting accepted (Jackson's default limit too): bounds the scan's recursion. */
    static final int MAX_DEPTH = 1000;

    private static final JsonFactory JSON = new JsonFactory();
    private static final byte[] EVENT_ID = "event_id".getBytes(StandardCharsets.US_ASCII);

    /** Null when publishable, else why not. Reads the bytes as stored (UTF-8), no decoding to a String first. */
    public abstract String problem(byte[] event);

    /** Null when publishable, else why not. */
    public String problem(String event) {
        return problem(event == null ? null : event.getBytes(StandardCharsets.UTF_8));
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    /** Why an event is refused; rare, so no stack trace. */
    private static final class Malformed extends RuntimeException {
        Malformed(String message) {
            super(message, null, false, false);
        }
    }

    /** The scan's position in one event. */
    private static final class Scan {
        private final byte[] b;
        int at;

        Scan(byte[] b) {
            this.b = b;
        }

        private Malformed invalid(String what) {
            return new Malformed(INVALID + what + " at byte " + at); // counted from 0
        }

        private int next() {
            if (at >= b.length) {
                throw new Malformed(ENDS_EARLY);
            }
            return b[at++] & 0xFF;
        }

        void whitespace() {
            while (at < b.length) {
                byte c = b[at];
                if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                    return;
                }
                at++;
            }
        }

        /** At '{'; returns whether a top-level {@code event_id} holds a non-empty string (only when {@code top}). */
        boolean object(int depth, boolean top) {
            if (enterEmpty(depth, '}')) {
                return false;
            }
            boolean hasId = false;
            while (true) {
                if (next() != '"') {
                    at--;
                    throw invalid("expected a field name");
                }
                int nameStart = at;
                string();
                boolean isId = top && isEventId(nameStart, at - 1);
                whitespace();
                if (next() != ':') {
                    at--;
                    throw invalid("expected ':'");
                }
                whitespace();
                if (isId) {
                    boolean quoted = at < b.length && b[at] == '"';
                    int valueStart = at;
                    value(depth);
                    // the last one counts, as with Jackson; "" is empty, any escape is at least one character
                    hasId = quoted && at - valueStart > 2;
                } else {
                    value(depth);
                }
                whitespace();
                int c = next();
                if (c == '}') {
                    return hasId;
                }
                if (c != ',') {
                    at--;
                    throw invalid("expected ',' or '}'");
                }
                whitespace();
            }
        }

        /** Steps into the object or array at {@code at}; true when it is empty (then also stepped out of). */
        private boolean enterEmpty(int depth, char close) {
            if (depth > MAX_DEPTH) {
                throw invalid("nested deeper than " + MAX_DEPTH);
            }
            at++;
            whitespace();
            if (at < b.length && b[at] == close) {
                at++;
                return true;
            }
            return false;
        }

        private boolean isEventId(int from, int to) {
            if (to - from != EVENT_ID.length) {
                return false;
            }
            for (int i = 0; i < EVENT_ID.length; i++) {
                if (b[from + i] != EVENT_ID[i]) {
                    return false;
                }
            }
            return true;
        }

        private void array(int depth) {
            if (enterEmpty(depth, ']')) {
                return;
            }
            while (true) {
                value(depth);
                whitespace();
                int c = next();
                if (c == ']') {
                    return;
                }
                if (c != ',') {
                    at--;
                    throw invalid("expected ',' or ']'");
                }
                whitespace();
            }
        }

        private void value(int depth) {
            if (at >= b.length) {
                throw new Malformed(ENDS_EARLY);
            }
            switch (b[at]) {
                case '{' -> object(depth + 1, false);
                case '[' -> array(depth + 1);
                case '"' -> {
                    at++;
                    string();
                }
                case 't' -> literal("true");
                case 'f' -> literal("false");
                case 'n' -> literal("null");
                case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9' -> number();
                default -> throw invalid("unexpected character");
            }
        }

        /** After the opening quote; ends after the closing one. */
        private void string() {
            final byte[] b = this.b;
            int i = at;
            while (true) {
                if (i >= b.length) {
                    at = i;
                    throw new Malformed(ENDS_EARLY);
                }
                int c = b[i] & 0xFF;
                if (c == '"') {
                    at = i + 1;
                    return;
                }
                if (c == '\\') {
                    at = i + 1;
                    escape();
                    i = at;
                } else if (c < 0x20) {
                    at = i;
                    throw invalid("control character in a string");
                } else if (c < 0x80) {
                    i++;
                } else {
                    at = i;
                    utf8(c);
                    i = at;
                }
            }
        }

        private void escape() {
            int c = next();
            switch (c) {
                case '"', '\\', '/', 'b', 'f', 'n', 'r', 't' -> {
                }
                case 'u' -> {
                    for (int k = 0; k < 4; k++) {
                        int h = next();
                        if (!(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F')) {
                            at--;
                            throw invalid("bad \\u escape");
                        }
                    }
                }
                default -> {
                    at--;
                    throw invalid("bad escape");
                }
            }
        }

        /** A multi-byte UTF-8 sequence starting with {@code lead} at {@code at}: its shape (lead byte, continuation bytes). */
        private void utf8(int lead) {
            int more;
            if (lead >= 0xC2 && lead <= 0xDF) {
                more = 1;
            } else if (lead >= 0xE0 && lead <= 0xEF) {
                more = 2;
            } else if (lead >= 0xF0 && lead <= 0xF4) {
                more = 3;
            } else {
                throw invalid("invalid UTF-8");
            }
            at++;
            for (int k = 0; k < more; k++) {
                if ((next() & 0xC0) != 0x80) {
                    at--;
                    throw invalid("invalid UTF-8");
                }
            }
        }

        private void literal(String word) {
            for (int k = 0; k < word.length(); k++) {
                if (next() != word.charAt(k)) {
                    at--;
                    throw invalid("unexpected character");
                }
            }
        }

        /** -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)? ; what follows is the caller's to check. */
        private void number() {
            if (b[at] == '-') {
                at++;
            }
            if (at < b.length && b[at] == '0') {
                at++;
            } else if (digits() == 0) {
                throw invalid("expected a digit");
            }
            if (at < b.length && b[at] == '.') {
                at++;
                if (digits() == 0) {
                    throw invalid("expected a digit");
                }
            }
            if (at < b.length && (b[at] == 'e' || b[at] == 'E')) {
                at++;
                if (at < b.length && (b[at] == '+' || b[at] == '-')) {
                    at++;
                }
                if (digits() == 0) {
                    throw invalid("expected a digit");
                }
            }
        }

        private int digits() {
            int from = at;
            while (at < b.length && b[at] >= '0' && b[at] <= '9') {
                at++;
            }
            return at - from;
        }
    }
}
