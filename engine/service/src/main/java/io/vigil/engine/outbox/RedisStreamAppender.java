package io.vigil.engine.outbox;

import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;
import io.vertx.redis.client.ResponseType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Appends entries with {@code XADD <stream> MAXLEN ~ <n> * event_id <id> key <key> event <json>},
 * all of a batch in one pipelined round trip ({@link Redis#batch}). Called only from the outbox
 * writer thread, so waiting for the reply here blocks no event loop.
 */
final class RedisStreamAppender implements StreamAppender {

    static final String FIELD_EVENT_ID = "event_id";
    static final String FIELD_KEY = "key";
    static final String FIELD_EVENT = "event";

    private final Redis redis;
    private final String[] streamNames;
    private final String maxLength;
    private final long timeoutMillis;

    RedisStreamAppender(Redis redis, String baseStream, int streams, long maxLength, Duration timeout) {
        this.redis = redis;
        this.streamNames = new String[streams];
        for (int i = 0; i < streams; i++) {
            streamNames[i] = StreamNames.shard(baseStream, streams, i);
        }
        this.maxLength = Long.toString(maxLength);
        this.timeoutMillis = timeout.toMillis();
    }

    @Override
    public void append(List<StreamEntry> entries) throws Exception {
        List<Request> requests = new ArrayList<>(entries.size());
        for (StreamEntry e : entries) {
            requests.add(Request.cmd(Command.XADD)
                    .arg(streamNames[e.shard()]).arg("MAXLEN").arg("~").arg(maxLength).arg("*")
                    .arg(FIELD_EVENT_ID).arg(e.eventId())
                    .arg(FIELD_KEY).arg(e.key())
                    .arg(FIELD_EVENT).arg(e.event()));
        }
        List<Response> replies = redis.batch(requests).toCompletionStage().toCompletableFuture()
                .get(timeoutMillis, TimeUnit.MILLISECONDS);
        for (Response r : replies) {
            if (r == null || r.type() == ResponseType.ERROR) {
                throw new IllegalStateException("XADD answered " + r);
            }
        }
    }
}
