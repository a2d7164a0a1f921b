package io.vigil.relay;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Decides whether a stream entry's event can be published: it must be one well-formed JSON object
 * with a non-empty string {@code event_id}. Streaming parse, no tree: the relay checks every entry.
 */
final class EventCheck {
    private static final JsonFactory JSON = new JsonFactory();

    private EventCheck() {
    }

    /** Null when publishable, else why not. */
    static String problem(String event) {
        return problem(event == null ? null : event.getBytes(StandardCharsets.UTF_8));
    }

    /** Null when publishable, else why not. Parses the bytes as stored (UTF-8), no decoding to a String first. */
    static String problem(byte[] event) {
        if (event == null || event.length == 0) {
            return "no event field";
        }
        try (JsonParser p = JSON.createParser(event)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return "event is not a JSON object";
            }
            boolean hasId = false;
            JsonToken t;
            while ((t = p.nextToken()) != JsonToken.END_OBJECT) {
                if (t == null) {
                    return "event JSON ends early";
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
                return "trailing content after the event object";
            }
            return hasId ? null : "event has no event_id";
        } catch (IOException e) {
            return "event is not valid JSON: " + firstLine(e.getMessage());
        }
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
