package io.vigil.engine.outbox;

import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;
import io.vertx.redis.client.ResponseType;
import io.vigil.stream.DecisionStreams;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Appends entries with {@code XADD <stream> MAXLEN ~ <n> * event_id <id> key <key> event <json>}
 * (the entry layout of {@link DecisionStreams}),
 * all of a batch in one pipelined round trip ({@link Redis#batch}). Called only from the outbox
 * writer thread, so waiting for the reply here blocks no event loop.
 */
final class RedisStreamAppender implements StreamAppender {

    // The constant arguments, encoded once rather than per entry.
    private static final byte[] MAXLEN = bytes("MAXLEN");
    private static final byte[] APPROXIMATELY = bytes("~");
    private static final byte[] AUTO_ID = bytes("*");
    private static final byte[] EVENT_ID = bytes(DecisionStreams.FIELD_EVENT_ID);
    private static final byte[] KEY = bytes(DecisionStreams.FIELD_KEY);
    private static final byte[] EVENT = bytes(DecisionStreams.FIELD_EVENT);

    private final Redis redis;
    private final byte[][] streamNames;
    private final byte[] maxLength;
    private final long timeoutMillis;

    RedisStreamAppender(Redis redis, String baseStream, int streams, long maxLength, Duration timeout) {
        this.redis = redis;
        String[] shards = DecisionStreams.shards(baseStream, streams);
        this.streamNames = new byte[shards.length][];
        for (int i = 0; i < shards.length; i++) {
            streamNames[i] = bytes(shards[i]);
        }
        this.maxLength = bytes(Long.toString(maxLength));
        this.timeoutMillis = timeout.toMillis();
    }

    @Override
    public void append(List<StreamEntry> entries) throws Exception {
        List<Request> requests = new ArrayList<>(entries.size());
        for (StreamEntry e : entries) {
            requests.add(Request.cmd(Command.XADD)
                    .arg(streamNames[e.shard()]).arg(MAXLEN).arg(APPROXIMATELY).arg(maxLength).arg(AUTO_ID)
                    .arg(EVENT_ID).arg(e.eventId())
                    .arg(KEY).arg(e.key())
                    .arg(EVENT).arg(e.event()));
        }
        List<Response> replies = redis.batch(requests).toCompletionStage().toCompletableFuture()
                .get(timeoutMillis, TimeUnit.MILLISECONDS);
        for (Response r : replies) {
            if (r == null || r.type() == ResponseType.ERROR) {
                throw new IllegalStateException("XADD answered " + r);
            }
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
