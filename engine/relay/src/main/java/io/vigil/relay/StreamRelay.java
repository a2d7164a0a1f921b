package io.vigil.relay;

import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.redis.datasource.stream.PendingMessage;
import io.quarkus.redis.datasource.stream.StreamCommands;
import io.quarkus.redis.datasource.stream.StreamRange;
import io.quarkus.redis.datasource.stream.XAddArgs;
import io.quarkus.redis.datasource.stream.XPendingArgs;
import io.vertx.redis.client.Response;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.Callback;
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
 * (idempotent producer, acks=all, key = the entry's {@code key} field = card_hash, value = the entry's
 * {@code event} bytes as stored), and once the broker has answered for every record of the batch, XACK
 * exactly the acknowledged entries in one command. Up to {@code batches-in-flight} batches are sent and
 * not yet answered: the worker reads and sends the next batch while the broker acknowledges earlier
 * ones (the broker round trip with acks=all no longer serialises the stream). Entries Kafka could not
 * take (broker down) stay in hand and are re-sent with backoff; the worker keeps them claimed meanwhile
 * (XCLAIM JUSTID, which does not count as a delivery) so an outage never dead-letters good events.
 *
 * <p>On start the worker first re-reads its own pending entries (a restart with the same consumer
 * name), and every {@code reclaim-interval} it takes over entries idle longer than
 * {@code claim-min-idle} from any consumer (XAUTOCLAIM). Entries that were delivered more than
 * {@code max-deliveries} times (something keeps crashing on them) or cannot be parsed go to the
 * dead-letter stream, with the reason, and are acknowledged: never an endless loop.
 *
 * <p>Replies are read from the Redis client's raw {@link Response} (no typed decoding into strings):
 * the event's bytes go to Kafka as Redis holds them, never decoded and re-encoded.
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
    private final String count;
    private final String blockMillis;
    private final int batchesInFlight;
    private final int batchSize;
    private final long lingerNanos;
    /** Sent batches, oldest first; completed (XACKed) in order. */
    private final ArrayDeque<Batch> inFlight = new ArrayDeque<>();

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
        this.count = Integer.toString(Math.max(1, config.batchSize()));
        this.blockMillis = Long.toString(Math.max(1, config.block().toMillis()));
        this.batchesInFlight = Math.max(1, config.batchesInFlight());
        this.batchSize = Math.max(1, config.batchSize());
        this.lingerNanos = config.linger().toNanos();
    }

    String stream() {
        return stream;
    }

    boolean running() {
        return running;
    }

    /** Finish the batches in hand, then return (the caller joins the thread). */
    void stop() {
        stopping = true;
    }

    @Override
    public void run() {
        running = true;
        try {
            loop();
            // SIGTERM: stop reading, but what was sent is waited for and acknowledged
            completeAll();
        } finally {
            running = false;
        }
    }

    /** One stream entry as read: the event's bytes untouched, the raw fields kept for dead-lettering. */
    static final class Entry {
        final String id;
        final Response fields;
        String key;
        byte[] event;

        Entry(String id, Response fields) {
            this.id = id;
            this.fields = fields;
            if (fields != null) {
                for (int i = 0; i + 1 < fields.size(); i += 2) {
                    String name = fields.get(i).toString();
                    if (FIELD_EVENT.equals(name)) {
                        Response v = fields.get(i + 1);
                        event = v == null ? null : v.toBytes();
                    } else if (FIELD_KEY.equals(name)) {
                        Response v = fields.get(i + 1);
                        key = v == null ? null : v.toString();
                    }
                }
            }
        }

        boolean deleted() {
            return fields == null || fields.size() == 0;
        }

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
    }

    /**
     * A batch sent to Kafka: one callback per record fills {@code failures[i]} (null = acknowledged by
     * the broker) and counts down; the worker completes the batch once the count is zero.
     */
    final class Batch {
        final Entry[] entries;
        final Throwable[] failures;
        final CountDownLatch unanswered;

        Batch(List<Entry> entries) {
            this.entries = entries.toArray(Entry[]::new);
            this.failures = new Throwable[this.entries.length];
            this.unanswered = new CountDownLatch(this.entries.length);
        }

        void send() {
            metrics.batchEntries.record(entries.length);
            long sentAt = System.nanoTime();
            for (int i = 0; i < entries.length; i++) {
                Entry e = entries[i];
                String key = e.key == null || e.key.isEmpty() ? null : e.key;
                try {
                    producer.send(new ProducerRecord<>(topic, key, e.event), new Answer(this, i, sentAt));
                } catch (RuntimeException ex) {
                    // e.g. metadata not available within max.block.ms (broker down at start)
                    answered(i, ex);
                }
            }
        }

        void answered(int i, Throwable failure) {
            failures[i] = failure;
            unanswered.countDown();
        }

        boolean done() {
            return unanswered.getCount() == 0;
        }
    }

    /** The broker's answer for one record (runs on the producer's I/O thread). */
    private final class Answer implements Callback {
        private final Batch batch;
        private final int index;
        private final long sentAt;

        Answer(Batch batch, int index, long sentAt) {
            this.batch = batch;
            this.index = index;
            this.sentAt = sentAt;
        }

        @Override
        public void onCompletion(RecordMetadata meta, Exception error) {
            if (error == null) {
                metrics.publishLatency.record(System.nanoTime() - sentAt, TimeUnit.NANOSECONDS);
                long appendedAtMillis = entryMillis(batch.entries[index].id);
                if (appendedAtMillis > 0) {
                    metrics.eventAge.record(Math.max(0, System.currentTimeMillis() - appendedAtMillis), TimeUnit.MILLISECONDS);
                }
            }
            batch.answered(index, error);
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
                    List<Entry> mine = read(historyCursor, false);
                    if (mine.isEmpty()) {
                        history = false;
                    } else {
                        historyCursor = mine.get(mine.size() - 1).id;
                        LOG.infof("%s: resuming %d pending entries of consumer %s", stream, mine.size(), consumer);
                        handle(mine, true);
                    }
                } else {
                    // block in Redis only when nothing is waiting for the broker; else poll and go on
                    long readAt = System.nanoTime();
                    List<Entry> fresh = read(">", inFlight.isEmpty());
                    if (!fresh.isEmpty()) {
                        handle(fresh, false);
                    }
                    // a full window, or nothing new to send: complete the oldest batch (waits for its acks)
                    if (!inFlight.isEmpty() && (fresh.isEmpty() || inFlight.size() >= batchesInFlight)) {
                        completeOldest();
                    }
                    while (!inFlight.isEmpty() && inFlight.peekFirst().done()) {
                        completeOldest();
                    }
                    if (fresh.size() < batchSize) {
                        lingerSince(readAt);
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

    /**
     * The stream had less than a batch: let it fill until {@code linger} after the last read (the
     * broker's answers for what was sent arrive meanwhile), so that at moderate rates a read, a
     * Kafka request and an XACK each carry many events instead of a few.
     */
    private void lingerSince(long readAt) {
        long wait = readAt + lingerNanos - System.nanoTime();
        if (wait > 0 && !stopping) {
            sleepNanos(wait);
        }
    }

    /**
     * XREADGROUP GROUP g c COUNT n [BLOCK ms] STREAMS s id. The reply is read directly: RESP2
     * {@code [[stream, entries]]}, RESP3 {@code {stream: entries}}, null when BLOCK timed out; an
     * entry is {@code [id, [field, value, ...]]}, or {@code [id, nil]} when trimmed while pending.
     */
    private List<Entry> read(String from, boolean block) {
        Response reply = block
                ? raw("XREADGROUP", "GROUP", group, consumer, "COUNT", count, "BLOCK", blockMillis, "STREAMS", stream, from)
                : raw("XREADGROUP", "GROUP", group, consumer, "COUNT", count, "STREAMS", stream, from);
        if (reply == null || reply.size() == 0) {
            return List.of();
        }
        // iterating either shape yields (stream, entries) pairs
        for (Response perStream : reply) {
            if (stream.equals(perStream.get(0).toString())) {
                return entries(perStream.get(1));
            }
        }
        return List.of();
    }

    private static List<Entry> entries(Response entries) {
        if (entries == null || entries.size() == 0) {
            return List.of();
        }
        List<Entry> out = new ArrayList<>(entries.size());
        for (Response entry : entries) {
            out.add(new Entry(entry.get(0).toString(), entry.get(1)));
        }
        return out;
    }

    private Response raw(String command, String... args) {
        io.vertx.mutiny.redis.client.Response r = redis.execute(command, args);
        return r == null ? null : r.getDelegate();
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
     * directly ({@code [cursor, [[id, [field, value, ...]], ...], [deleted ids]]}, Redis 7).
     */
    private boolean reclaim() {
        Response reply = raw("XAUTOCLAIM", stream, group, consumer,
                Long.toString(config.claimMinIdle().toMillis()), claimCursor, "COUNT", count);
        String next = reply.get(0).toString();
        claimCursor = next == null ? "0-0" : next;
        // Redis 7 drops pending entries whose message was deleted (MAXLEN trimming) from the PEL as it
        // scans, whatever their idle time, and lists their ids here: lost events, counted like the others
        Response deleted = reply.size() > 2 ? reply.get(2) : null;
        if (deleted != null && deleted.size() > 0) {
            metrics.trimmed.increment(deleted.size());
            LOG.errorf("%s: %d pending entries were trimmed from the stream before they were relayed (events lost): %s",
                    stream, deleted.size(), deleted);
        }
        List<Entry> messages = entries(reply.get(1));
        if (messages.isEmpty()) {
            return false;
        }
        metrics.reclaimed.increment(messages.size());
        LOG.infof("%s: reclaimed %d entries idle for more than %s", stream, messages.size(), config.claimMinIdle());
        handle(messages, true);
        return messages.size() >= config.batchSize() && !"0-0".equals(claimCursor);
    }

    /**
     * Checks the entries, settles the ones that cannot be published (trimmed, over-delivered, unparseable),
     * and sends the rest as one batch. Redelivered entries (own history, reclaimed) are published to the
     * end before returning: they are few, and this keeps their delivery counts simple.
     */
    private void handle(List<Entry> messages, boolean redelivered) {
        Map<String, Integer> deliveries = redelivered ? deliveries(messages) : Map.of();
        List<Entry> publishable = new ArrayList<>(messages.size());
        List<String> done = new ArrayList<>();
        for (Entry m : messages) {
            if (m.deleted()) {
                // deleted from the stream (MAXLEN trimming) while pending: nothing left to relay
                metrics.trimmed.increment();
                LOG.errorf("%s: entry %s was trimmed from the stream before it was relayed (event lost)", stream, m.id);
                done.add(m.id);
                continue;
            }
            int n = deliveries.getOrDefault(m.id, 1);
            if (n > config.maxDeliveries()) {
                deadLetter(m, "max-deliveries", "delivered " + n + " times (max " + config.maxDeliveries() + ")", n);
                metrics.deadLetteredMaxDeliveries.increment();
                done.add(m.id);
                continue;
            }
            String problem = EventCheck.problem(m.event);
            if (problem != null) {
                deadLetter(m, "unparseable", problem, n);
                metrics.deadLetteredUnparseable.increment();
                done.add(m.id);
                continue;
            }
            publishable.add(m);
        }
        if (!done.isEmpty()) {
            streams.xack(stream, group, done.toArray(String[]::new));
        }
        if (!publishable.isEmpty()) {
            Batch b = new Batch(publishable);
            b.send();
            inFlight.addLast(b);
        }
        if (redelivered) {
            completeAll();
        }
    }

    /** Delivery counts of this consumer's pending entries among {@code messages} (ids ascending). */
    private Map<String, Integer> deliveries(List<Entry> messages) {
        String first = messages.get(0).id;
        String last = messages.get(messages.size() - 1).id;
        List<PendingMessage> pending = streams.xpending(stream, group, StreamRange.of(first, last),
                messages.size() * 2 + 16, new XPendingArgs().consumer(consumer));
        Map<String, Integer> counts = new HashMap<>(pending.size() * 2);
        for (PendingMessage p : pending) {
            counts.put(p.getMessageId(), p.getDeliveryCount());
        }
        return counts;
    }

    private void deadLetter(Entry m, String reason, String detail, int deliveries) {
        Map<String, String> entry = new LinkedHashMap<>();
        entry.put("reason", reason);
        entry.put("detail", detail);
        entry.put("source_stream", stream);
        entry.put("source_id", m.id);
        entry.put("deliveries", Integer.toString(deliveries));
        entry.put("consumer", consumer);
        Map<String, String> payload = m.payload();
        for (Map.Entry<String, String> f : payload.entrySet()) {
            if (f.getValue() != null) {
                entry.putIfAbsent(f.getKey(), f.getValue());
            }
        }
        streams.xadd(deadLetterStream, deadLetterBound, entry);
        LOG.warnf("%s: entry %s (event_id %s) dead-lettered to %s: %s", stream, m.id,
                payload.get(FIELD_EVENT_ID), deadLetterStream, detail);
    }

    /** Completes every batch in hand, oldest first (each waits for its acknowledgements). */
    private void completeAll() {
        while (!inFlight.isEmpty()) {
            if (!completeOldest()) {
                return; // interrupted: what is left stays pending
            }
        }
    }

    /**
     * Waits until the broker answered every record of the oldest batch (keeping all in-hand entries
     * claimed meanwhile), XACKs the acknowledged ones in one command, dead-letters records the broker
     * rejects for good, and re-sends the rest until they land. False when interrupted.
     */
    private boolean completeOldest() {
        Batch b = inFlight.peekFirst();
        if (!await(b)) {
            return false;
        }
        inFlight.pollFirst();
        List<Entry> retry = settle(b);
        if (retry.isEmpty()) {
            return true;
        }
        // Kafka refused (down, timed out): let the batches behind this one finish first, then re-send
        // everything that failed, with backoff, before reading more
        while (!inFlight.isEmpty()) {
            Batch next = inFlight.peekFirst();
            if (!await(next)) {
                return false;
            }
            inFlight.pollFirst();
            retry.addAll(settle(next));
        }
        return resend(retry);
    }

    /** Waits for every answer of {@code b}, renewing the claim on all in-hand entries every heartbeat interval. */
    private boolean await(Batch b) {
        long heartbeatMillis = Math.max(1, config.heartbeatInterval().toMillis());
        try {
            while (!b.unanswered.await(heartbeatMillis, TimeUnit.MILLISECONDS)) {
                heartbeat();
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false; // entries stay pending; a restart or another relay takes them
        }
    }

    /** XACKs the acknowledged entries of an answered batch; returns the ones to send again. */
    private List<Entry> settle(Batch b) {
        List<String> acked = new ArrayList<>(b.entries.length);
        List<Entry> retry = new ArrayList<>();
        int published = 0;
        Throwable lastFailure = null;
        for (int i = 0; i < b.entries.length; i++) {
            Throwable failure = b.failures[i];
            if (failure == null) {
                acked.add(b.entries[i].id);
                published++;
                continue;
            }
            metrics.publishFailed.increment();
            lastFailure = failure;
            if (rejectedForGood(failure)) {
                deadLetter(b.entries[i], "rejected", "Kafka rejected the record: " + failure, 1);
                metrics.deadLetteredRejected.increment();
                acked.add(b.entries[i].id);
            } else {
                retry.add(b.entries[i]);
            }
        }
        if (!acked.isEmpty()) {
            ack(acked, published);
        }
        if (!retry.isEmpty()) {
            LOG.warnf("%s: %d of %d sends failed (%s)", stream, retry.size(), b.entries.length, lastFailure);
        }
        return retry;
    }

    /** Re-sends {@code todo} until every entry is acknowledged by the broker (or dead-lettered). */
    private boolean resend(List<Entry> todo) {
        long backoff = config.retryBackoff().toNanos();
        long lastHeartbeat = System.nanoTime();
        while (!todo.isEmpty()) {
            if (stopping) {
                LOG.warnf("%s: stopping with %d entries not acknowledged by Kafka; they stay pending and are "
                        + "reclaimed after restart", stream, todo.size());
                return true;
            }
            LOG.warnf("%s: retrying %d entries in %d ms", stream, todo.size(), TimeUnit.NANOSECONDS.toMillis(backoff));
            sleepNanos(backoff);
            backoff = Math.min(backoff * 2, MAX_BACKOFF_NANOS);
            if (System.nanoTime() - lastHeartbeat > config.heartbeatInterval().toNanos()) {
                heartbeat(todo);
                lastHeartbeat = System.nanoTime();
            }
            Batch b = new Batch(todo);
            b.send();
            inFlight.addLast(b);
            if (!await(b)) {
                return false;
            }
            inFlight.pollFirst();
            todo = settle(b);
        }
        return true;
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

    /** Renews the claim on every entry in hand (sent, not yet XACKed). */
    private void heartbeat() {
        List<Entry> inHand = new ArrayList<>();
        for (Batch b : inFlight) {
            inHand.addAll(List.of(b.entries));
        }
        heartbeat(inHand);
    }

    /** XCLAIM <ids> JUSTID resets their idle time (no delivery counted), so XAUTOCLAIM elsewhere leaves them alone. */
    private void heartbeat(List<Entry> entries) {
        if (entries.isEmpty()) {
            return;
        }
        List<String> args = new ArrayList<>(entries.size() + 6);
        args.add(stream);
        args.add(group);
        args.add(consumer);
        args.add("0");
        for (Entry e : entries) {
            args.add(e.id);
        }
        args.add("JUSTID");
        try {
            redis.execute("XCLAIM", args.toArray(String[]::new));
        } catch (RuntimeException e) {
            LOG.debugf("%s: heartbeat XCLAIM failed: %s", stream, e);
        }
    }

    /** Failures that no retry fixes: the record itself is unacceptable to the broker. */
    static boolean rejectedForGood(Throwable t) {
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
