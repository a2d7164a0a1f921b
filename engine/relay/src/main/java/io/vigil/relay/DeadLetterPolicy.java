package io.vigil.relay;

import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.redis.datasource.stream.StreamCommands;
import io.quarkus.redis.datasource.stream.XAddArgs;
import io.vertx.redis.client.Response;
import io.vigil.stream.DecisionStreams;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.jboss.logging.Logger;

/**
 * What the relay never publishes, and where it goes, so nothing loops forever: an entry trimmed from
 * the stream while pending (lost: counted and logged), one delivered more than {@code max-deliveries}
 * times (something keeps crashing on it), one that is not a JSON object with an {@code event_id}, and
 * one the broker rejects for good (too large). The last three are appended, with the reason and the
 * original fields, to the dead-letter stream {@code <stream><dead-letter-suffix>} (bounded by
 * {@code dead-letter-max-length}). The dead-letter stream is the relay's own: the engine never reads or
 * writes it. A Kafka outage is never a reason: those entries are retried.
 */
final class DeadLetterPolicy {

    private static final Logger LOG = Logger.getLogger(DeadLetterPolicy.class);

    private final String stream;
    private final String deadLetterStream;
    private final String consumer;
    private final int maxDeliveries;
    private final EventCheck check;
    private final StreamCommands<String, String, String> streams;
    private final XAddArgs bound;
    private final RelayMetrics metrics;

    DeadLetterPolicy(RedisDataSource redis, String stream, String consumer, RelayConfig config, RelayMetrics metrics) {
        this.stream = stream;
        this.deadLetterStream = stream + config.deadLetterSuffix();
        this.consumer = consumer;
        this.maxDeliveries = config.maxDeliveries();
        this.check = config.eventCheck();
        this.streams = redis.stream(String.class, String.class, String.class);
        this.bound = new XAddArgs().maxlen(config.deadLetterMaxLength()).nearlyExactTrimming();
        this.metrics = metrics;
    }

    /**
     * Checks an entry before it is sent. True when it must not be published: it is then dead-lettered
     * (or counted lost) here and only needs its XACK.
     */
    boolean unpublishable(StreamEntry e, int deliveries) {
        if (e.deleted()) {
            // deleted from the stream (MAXLEN trimming) while pending: nothing left to relay
            metrics.trimmed.increment();
            LOG.errorf("%s: entry %s was trimmed from the stream before it was relayed (event lost)", stream, e.id);
            return true;
        }
        if (deliveries > maxDeliveries) {
            deadLetter(e, "max-deliveries", "delivered " + deliveries + " times (max " + maxDeliveries + ")", deliveries);
            metrics.deadLetteredMaxDeliveries.increment();
            return true;
        }
        String problem = check.problem(e.event);
        if (problem != null) {
            deadLetter(e, "unparseable", problem, deliveries);
            metrics.deadLetteredUnparseable.increment();
            return true;
        }
        return false;
    }

    /** Pending entries Redis reported deleted (XAUTOCLAIM drops them from the PEL): lost events, counted like the others. */
    void trimmedWhilePending(Response ids) {
        if (ids != null && ids.size() > 0) {
            metrics.trimmed.increment(ids.size());
            LOG.errorf("%s: %d pending entries were trimmed from the stream before they were relayed (events lost): %s",
                    stream, ids.size(), ids);
        }
    }

    /** Failures that no retry fixes: the record itself is unacceptable to the broker. */
    static boolean rejectedForGood(Throwable t) {
        return t instanceof RecordTooLargeException || t instanceof RecordBatchTooLargeException
                || t instanceof InvalidRecordException || t instanceof SerializationException;
    }

    /** The broker refused the record for good ({@link #rejectedForGood}); the entry then only needs its XACK. */
    void rejected(StreamEntry e, Throwable failure) {
        deadLetter(e, "rejected", "Kafka rejected the record: " + failure, 1);
        metrics.deadLetteredRejected.increment();
    }

    private void deadLetter(StreamEntry e, String reason, String detail, int deliveries) {
        Map<String, String> entry = new LinkedHashMap<>();
        entry.put("reason", reason);
        entry.put("detail", detail);
        entry.put("source_stream", stream);
        entry.put("source_id", e.id);
        entry.put("deliveries", Integer.toString(deliveries));
        entry.put("consumer", consumer);
        Map<String, String> payload = e.payload();
        for (Map.Entry<String, String> f : payload.entrySet()) {
            if (f.getValue() != null) {
                entry.putIfAbsent(f.getKey(), f.getValue());
            }
        }
        streams.xadd(deadLetterStream, bound, entry);
        LOG.warnf("%s: entry %s (event_id %s) dead-lettered to %s: %s", stream, e.id,
                payload.get(DecisionStreams.FIELD_EVENT_ID), deadLetterStream, detail);
    }
}
