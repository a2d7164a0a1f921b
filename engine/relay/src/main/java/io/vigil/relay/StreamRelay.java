package io.vigil.relay;

import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.redis.datasource.stream.PendingMessage;
import io.quarkus.redis.datasource.stream.StreamCommands;
import io.quarkus.redis.datasource.stream.StreamMessage;
import io.quarkus.redis.datasource.stream.StreamRange;
import io.quarkus.redis.datasource.stream.XAddArgs;
import io.quarkus.redis.datasource.stream.XPendingArgs;
import io.quarkus.redis.datasource.stream.XReadGroupArgs;
import io.vertx.mutiny.redis.client.Response;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.jboss.logging.Logger;

/**
 * Relays one stream to Kafka on its own thread (blocking reads are fine here: this is not an event loop).
 *
 * <p>Per batch: read with the consumer group, check each entry, send the publishable ones
 * (idempotent producer, acks=all, key = the entry's {@code key} field = card_hash), wait for the
 * broker's acknowledgements, then XACK exactly the acknowledged entries. Entries Kafka could not take
 * (broker down) stay in hand and are re-sent with backoff; the worker keeps them claimed meanwhile
 * (XCLAIM JUSTID, which does not count as a delivery) so an outage never dead-letters good events.
 *
 * <p>On start the worker first re-reads its own pending entries (a restart with the same consumer
 * name), and every {@code reclaim-interval} it takes over entries idle longer than
 * {@code claim-min-idle} from any consumer (XAUTOCLAIM). Entries that were delivered more than
 * {@code max-deliveries} times (something keeps crashing on them) or cannot be parsed go to the
 * dead-letter stream, with the reason, and are acknowledged: never an endless loop.
 */
final class StreamRelay implements Runnable {

    private static final Logger LOG = Logger.getLogger(StreamRelay.class);
    static final String FIELD_EVENT_ID = "event_id";
    static final String FIELD_KEY = "key";
    static final String FIELD_EVENT = "event";
    private static final long MAX_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final String stream;
    private final String deadLetterStream;
    private final RelayConfig config;
    private final String group;
    private final String consumer;
    private final String topic;
    private final RedisDataSource redis;
    private final StreamCommands<String, String, String> streams;
    private final Producer<String, byte[]> producer;
    private final RelayMetrics metrics;
    private final XAddArgs deadLetterBound;

    private volatile boolean stopping;
    private volatile boolean running;
    private String claimCursor = "0-0";

    StreamRelay(String stream, RelayConfig config, String consumer, RedisDataSource redis,
                Producer<String, byte[]> producer, RelayMetrics metrics) {
        this.stream = stream;
        this.deadLetterStream = stream + config.deadLetterSuffix();
        this.config = config;
        this.group = config.group();
        this.consumer = consumer;
        this.topic = config.topic();
        this.redis = redis;
        this.streams = redis.stream(String.class, String.class, String.class);
        this.producer = producer;
        this.metrics = metrics;
        this.deadLetterBound = new XAddArgs().maxlen(config.deadLetterMaxLength()).nearlyExactTrimming();
    }

    String stream() {
        return stream;
    }

    boolean running() {
        return running;
    }

    /** Finish the batch in hand, then return (the caller joins the thread). */
    void stop() {
        stopping = true;
    }

    @Override
    public void run() {
        running = true;
        try {
            loop();
        } finally {
            running = false;
        }
    }

    private void loop() {
        long backoff = config.retryBackoff().toNanos();
        boolean groupReady = false;
        boolean history = true;
        String historyCursor = "0";
        long nextReclaim = 0;
        long failingSince = 0;
        while (!stopping) {
            try {
                if (!groupReady) {
                    ensureGroup();
                    groupReady = true;
                }
                if (System.nanoTime() >= nextReclaim) {
                    boolean more = reclaim();
                    nextReclaim = more ? 0 : System.nanoTime() + config.reclaimInterval().toNanos();
                }
                if (history) {
                    List<StreamMessage<String, String, String>> mine = streams.xreadgroup(group, consumer, stream,
                            historyCursor, new XReadGroupArgs().count(config.batchSize()));
                    if (mine.isEmpty()) {
                        history = false;
                    } else {
                        historyCursor = mine.get(mine.size() - 1).id();
                        LOG.infof("%s: resuming %d pending entries of consumer %s", stream, mine.size(), consumer);
                        handle(mine, true);
                    }
                } else {
                    List<StreamMessage<String, String, String>> fresh = streams.xreadgroup(group, consumer, stream,
                            ">", new XReadGroupArgs().count(config.batchSize()).block(config.block()));
                    if (!fresh.isEmpty()) {
                        handle(fresh, false);
                    }
                }
                if (failingSince != 0) {
                    LOG.infof("%s: Redis answers again after %d ms", stream,
                            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - failingSince));
                    failingSince = 0;
                }
                backoff = config.retryBackoff().toNanos();
            } catch (RuntimeException e) {
                if (String.valueOf(e.getMessage()).contains("NOGROUP")) {
                    groupReady = false; // the stream (and its group) was deleted: recreate
                }
                if (failingSince == 0) {
                    failingSince = System.nanoTime();
                    LOG.warnf("%s: Redis call failed (%s); retrying with backoff", stream, e.toString());
                }
                sleepNanos(backoff);
                backoff = Math.min(backoff * 2, MAX_BACKOFF_NANOS);
            }
        }
    }

    /** XGROUP CREATE <stream> <group> 0 MKSTREAM: entries written before the first relay started are relayed too. */
    private void ensureGroup() {
        try {
            redis.execute("XGROUP", "CREATE", stream, group, "0", "MKSTREAM");
            LOG.infof("%s: created consumer group %s", stream, group);
        } catch (RuntimeException e) {
            if (!String.valueOf(e.getMessage()).contains("BUSYGROUP")) {
                throw e;
            }
        }
    }

    /**
     * One XAUTOCLAIM step; true when it found a full batch (call again soon). The reply is read
     * directly ({@code [cursor, [[id, [field, value, ...]], ...], [deleted ids]]}).
     */
    private boolean reclaim() {
        Response reply = redis.execute("XAUTOCLAIM", stream, group, consumer,
                Long.toString(config.claimMinIdle().toMillis()), claimCursor, "COUNT", Integer.toString(config.batchSize()));
        String next = reply.get(0).toString();
        claimCursor = next == null ? "0-0" : next;
        List<StreamMessage<String, String, String>> messages = new ArrayList<>();
        for (Response entry : reply.get(1)) {
            Response fields = entry.get(1);
            Map<String, String> payload = new LinkedHashMap<>();
            if (fields != null) {
                for (int i = 0; i + 1 < fields.size(); i += 2) {
                    payload.put(fields.get(i).toString(), fields.get(i + 1).toString());
                }
            }
            messages.add(new StreamMessage<>(stream, entry.get(0).toString(), payload));
        }
        if (messages.isEmpty()) {
            return false;
        }
        metrics.reclaimed.increment(messages.size());
        LOG.infof("%s: reclaimed %d entries idle for more than %s", stream, messages.size(), config.claimMinIdle());
        handle(messages, true);
        return messages.size() >= config.batchSize() && !"0-0".equals(claimCursor);
    }

    private void handle(List<StreamMessage<String, String, String>> messages, boolean redelivered) {
        Map<String, Integer> deliveries = redelivered ? deliveries(messages) : Map.of();
        List<StreamMessage<String, String, String>> publishable = new ArrayList<>(messages.size());
        List<String> done = new ArrayList<>();
        for (StreamMessage<String, String, String> m : messages) {
            Map<String, String> fields = m.payload();
            if (fields == null || fields.isEmpty()) {
                // deleted from the stream (MAXLEN trimming) while pending: nothing left to relay
                metrics.trimmed.increment();
                LOG.errorf("%s: entry %s was trimmed from the stream before it was relayed (event lost)", stream, m.id());
                done.add(m.id());
                continue;
            }
            int n = deliveries.getOrDefault(m.id(), 1);
            if (n > config.maxDeliveries()) {
                deadLetter(m, "max-deliveries", "delivered " + n + " times (max " + config.maxDeliveries() + ")", n);
                metrics.deadLetteredMaxDeliveries.increment();
                done.add(m.id());
                continue;
            }
            String problem = EventCheck.problem(fields.get(FIELD_EVENT));
            if (problem != null) {
                deadLetter(m, "unparseable", problem, n);
                metrics.deadLetteredUnparseable.increment();
                done.add(m.id());
                continue;
            }
            publishable.add(m);
        }
        if (!done.isEmpty()) {
            streams.xack(stream, group, done.toArray(String[]::new));
        }
        if (!publishable.isEmpty()) {
            publish(publishable);
        }
    }

    /** Delivery counts of this consumer's pending entries among {@code messages} (ids ascending). */
    private Map<String, Integer> deliveries(List<StreamMessage<String, String, String>> messages) {
        String first = messages.get(0).id();
        String last = messages.get(messages.size() - 1).id();
        List<PendingMessage> pending = streams.xpending(stream, group, StreamRange.of(first, last),
                messages.size() * 2 + 16, new XPendingArgs().consumer(consumer));
        Map<String, Integer> counts = new HashMap<>(pending.size() * 2);
        for (PendingMessage p : pending) {
            counts.put(p.getMessageId(), p.getDeliveryCount());
        }
        return counts;
    }

    private void deadLetter(StreamMessage<String, String, String> m, String reason, String detail, int deliveries) {
        Map<String, String> entry = new LinkedHashMap<>();
        entry.put("reason", reason);
        entry.put("detail", detail);
        entry.put("source_stream", stream);
        entry.put("source_id", m.id());
        entry.put("deliveries", Integer.toString(deliveries));
        entry.put("consumer", consumer);
        for (Map.Entry<String, String> f : m.payload().entrySet()) {
            entry.putIfAbsent(f.getKey(), f.getValue());
        }
        streams.xadd(deadLetterStream, deadLetterBound, entry);
        LOG.warnf("%s: entry %s (event_id %s) dead-lettered to %s: %s", stream, m.id(),
                m.payload().get(FIELD_EVENT_ID), deadLetterStream, detail);
    }

    private record InFlight(StreamMessage<String, String, String> message, CompletableFuture<RecordMetadata> ack) {
    }

    /** Sends until every entry is acknowledged by the broker (or dead-lettered), acking as they land. */
    private void publish(List<StreamMessage<String, String, String>> batch) {
        List<StreamMessage<String, String, String>> todo = batch;
        long backoff = config.retryBackoff().toNanos();
        long lastHeartbeat = System.nanoTime();
        while (!todo.isEmpty()) {
            List<InFlight> inFlight = new ArrayList<>(todo.size());
            for (StreamMessage<String, String, String> m : todo) {
                inFlight.add(new InFlight(m, send(m)));
            }
            // wait for every acknowledgement; keep our entries claimed while Kafka is slow or away
            for (InFlight f : inFlight) {
                while (!f.ack.isDone()) {
                    try {
                        f.ack.get(config.heartbeatInterval().toMillis(), TimeUnit.MILLISECONDS);
                    } catch (TimeoutException e) {
                        heartbeat(inFlight);
                        lastHeartbeat = System.nanoTime();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return; // entries stay pending; a restart or another relay takes them
                    } catch (ExecutionException e) {
                        break;
                    }
                }
            }
            List<String> acked = new ArrayList<>(inFlight.size());
            List<StreamMessage<String, String, String>> retry = new ArrayList<>();
            Throwable lastFailure = null;
            int published = 0;
            for (InFlight f : inFlight) {
                Throwable failure = failure(f.ack);
                if (failure == null) {
                    acked.add(f.message.id());
                    published++;
                    continue;
                }
                metrics.publishFailed.increment();
                lastFailure = failure;
                if (rejectedForGood(failure)) {
                    deadLetter(f.message, "rejected", "Kafka rejected the record: " + failure, 1);
                    metrics.deadLetteredRejected.increment();
                    acked.add(f.message.id());
                } else {
                    retry.add(f.message);
                }
            }
            if (!acked.isEmpty()) {
                ack(acked, published);
            }
            todo = retry;
            if (!todo.isEmpty()) {
                if (stopping) {
                    LOG.warnf("%s: stopping with %d entries not acknowledged by Kafka; they stay pending and are "
                            + "reclaimed after restart", stream, todo.size());
                    return;
                }
                LOG.warnf("%s: %d sends failed (%s); retrying in %d ms", stream, todo.size(), lastFailure,
                        TimeUnit.NANOSECONDS.toMillis(backoff));
                sleepNanos(backoff);
                backoff = Math.min(backoff * 2, MAX_BACKOFF_NANOS);
                if (System.nanoTime() - lastHeartbeat > config.heartbeatInterval().toNanos()) {
                    heartbeat(todo.stream().map(m -> new InFlight(m, null)).toList());
                    lastHeartbeat = System.nanoTime();
                }
            }
        }
    }

    private CompletableFuture<RecordMetadata> send(StreamMessage<String, String, String> m) {
        CompletableFuture<RecordMetadata> ack = new CompletableFuture<>();
        Map<String, String> fields = m.payload();
        String key = fields.get(FIELD_KEY);
        byte[] value = fields.get(FIELD_EVENT).getBytes(StandardCharsets.UTF_8);
        long sentAt = System.nanoTime();
        long appendedAtMillis = entryMillis(m.id());
        try {
            producer.send(new ProducerRecord<>(topic, key == null || key.isEmpty() ? null : key, value), (meta, error) -> {
                if (error != null) {
                    ack.completeExceptionally(error);
                    return;
                }
                metrics.publishLatency.record(System.nanoTime() - sentAt, TimeUnit.NANOSECONDS);
                if (appendedAtMillis > 0) {
                    metrics.eventAge.record(Math.max(0, System.currentTimeMillis() - appendedAtMillis), TimeUnit.MILLISECONDS);
                }
                ack.complete(meta);
            });
        } catch (RuntimeException e) {
            // e.g. metadata not available within max.block.ms (broker down at start)
            ack.completeExceptionally(e);
        }
        return ack;
    }

    private void ack(List<String> ids, int published) {
        long backoff = config.retryBackoff().toNanos();
        while (true) {
            try {
                streams.xack(stream, group, ids.toArray(String[]::new));
                metrics.published.increment(published);
                return;
            } catch (RuntimeException e) {
                // Redis away: the entries are in Kafka; if we gave up they would be re-published (same event_id)
                if (stopping) {
                    LOG.warnf("%s: could not XACK %d published entries at shutdown (%s): they will be published again",
                            stream, ids.size(), e.toString());
                    return;
                }
                sleepNanos(backoff);
                backoff = Math.min(backoff * 2, MAX_BACKOFF_NANOS);
            }
        }
    }

    /** XCLAIM <ids> JUSTID resets their idle time (no delivery counted), so XAUTOCLAIM elsewhere leaves them alone. */
    private void heartbeat(List<InFlight> entries) {
        List<String> args = new ArrayList<>(entries.size() + 6);
        args.add(stream);
        args.add(group);
        args.add(consumer);
        args.add("0");
        for (InFlight f : entries) {
            if (f.ack == null || !f.ack.isDone()) {
                args.add(f.message.id());
            }
        }
        if (args.size() == 4) {
            return;
        }
        args.add("JUSTID");
        try {
            redis.execute("XCLAIM", args.toArray(String[]::new));
        } catch (RuntimeException e) {
            LOG.debugf("%s: heartbeat XCLAIM failed: %s", stream, e);
        }
    }

    private static Throwable failure(CompletableFuture<RecordMetadata> f) {
        if (!f.isCompletedExceptionally()) {
            return null;
        }
        try {
            f.join();
            return null;
        } catch (RuntimeException e) {
            return e.getCause() != null ? e.getCause() : e;
        }
    }

    /** Failures that no retry fixes: the record itself is unacceptable to the broker. */
    private static boolean rejectedForGood(Throwable t) {
        return t instanceof RecordTooLargeException || t instanceof RecordBatchTooLargeException
                || t instanceof InvalidRecordException || t instanceof SerializationException;
    }

    /** The millisecond part of a stream id ({@code <ms>-<seq>}): when Redis appended the entry. */
    static long entryMillis(String id) {
        int dash = id.indexOf('-');
        try {
            return Long.parseLong(dash < 0 ? id : id.substring(0, dash));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static void sleepNanos(long nanos) {
        try {
            TimeUnit.NANOSECONDS.sleep(nanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
