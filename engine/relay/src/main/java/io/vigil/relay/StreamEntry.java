package io.vigil.relay;

import io.vertx.redis.client.Response;
import io.vigil.stream.DecisionStreams;
import java.util.LinkedHashMap;
import java.util.Map;

/** One stream entry as read: the event's bytes untouched, the raw fields kept for dead-lettering. */
final class StreamEntry {
    final String id;
    final Response fields;
    String key;
    byte[] event;

    StreamEntry(String id, Response fields) {
        this.id = id;
        this.fields = fields;
        if (fields != null) {
            for (int i = 0; i + 1 < fields.size(); i += 2) {
                String name = fields.get(i).toString();
                if (DecisionStreams.FIELD_EVENT.equals(name)) {
                    Response v = fields.get(i + 1);
                    event = v == null ? null : v.toBytes();
                } else if (DecisionStreams.FIELD_KEY.equals(name)) {
                    Response v = fields.get(i + 1);
                    key = v == null ? null : v.toString();
                }
            }
        }
    }

    /** Deleted from the stream (MAXLEN trimming) while pending: Redis answers the id without fields. */
    boolean deleted() {
        return fields == null || fields.size() == 0;
    }

    /** Every field as text (dead-lettering only: the hot path keeps the event as bytes). */
    Map<String, String> payload() {
        Map<String, String> m = new LinkedHashMap<>();
        if (fields != null) {
            for (int i = 0; i + 1 < fields.size(); i += 2) {
                Response v = fields.get(i + 1);
                m.put(fields.get(i).toString(), v == null ? null : v.toString());
            }
        }
        return m;
    }

    /** The millisecond part of a stream id ({@code <ms>-<seq>}): when Redis appended the entry; 0 if unreadable. */
    static long appendedAtMillis(String id) {
        int dash = id.indexOf('-');
        try {
            return Long.parseLong(dash < 0 ? id : id.substring(0, dash));
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
