package io.vigil.relay;

import io.quarkus.redis.datasource.RedisDataSource;
import io.vigil.stream.Backoff;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.Producer;
import org.jboss.logging.Logger;

/**
 * Relays one stream to Kafka on its own thread (blocking calls are fine here: this is not an event
 * loop). It coordinates three parts: the {@link StreamReader} (this consumer in the group: read,
 * reclaim, heartbeat, XACK), the {@link SendWindow} (batches sent to Kafka and awaiting the broker)
 * and the {@link DeadLetterPolicy} (what is never published, and where it goes).
 *
 * <p>Per batch: read (several XREADGROUPs of at most {@code entries-per-command} while the stream has
 * more, up to {@code batch-size}), let the policy settle what cannot be published, send the rest, and
 * once the broker has answered every record of the batch, XACK exactly the acknowledged entries
 * ({@code entries-per-command} per XACK and XDEL: ADR 0022).
 * Entries Kafka could not take (broker down) stay in hand and are re-sent with backoff; the worker keeps
 * them claimed meanwhile (XCLAIM JUSTID, which does not count as a delivery) so an outage never
 * dead-letters good events. On start the worker first re-reads its own pending entries (a restart with
 * the same consumer name), and every {@code reclaim-interval} it takes over entries idle longer than
 * {@code claim-min-idle} from any consumer.
 */
final class StreamRelay implements Runnable {

    private static final Logger LOG = Logger.getLogger(StreamRelay.class);
    /** Longest wait between retries while Redis or Kafka is away. */
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(5);

    private final String stream;
    private final StreamReader reader;
    private final SendWindow window;
    private final DeadLetterPolicy deadLetters;
    private final RelayMetrics metrics;
    private final int batchSize;
    private final long lingerNanos;
    private final long heartbeatMillis;
    private final long heartbeatNanos;
    private final long reclaimIntervalNanos;
    private final Duration claimMinIdle;
    /** Retries of the read loop (Redis away), of re-sends (Kafka away) and of an XACK (Redis away after the broker acked). */
    private final Backoff readBackoff;
    private final Backoff resendBackoff;
    private final Backoff ackBackoff;
    /** Renews the claim on everything in hand while the worker waits for the broker. */
    private final Runnable heartbeat = this::heartbeat;

    private volatile boolean stopping;
    private volatile boolean running;

    StreamRelay(String stream, RelayConfig config, String consumer, RedisDataSource redis,
                Producer<String, byte[]> producer, RelayMetrics metrics) {
        this.stream = stream;
        this.reader = new StreamReader(redis, stream, consumer, config);
        this.window = new SendWindow(producer, config.topic(), config.batchesInFlight(), metrics);
        this.deadLetters = new DeadLetterPolicy(redis, stream, consumer, config, metrics);
        this.metrics = metrics;
        this.batchSize = Math.max(1, config.batchSize());
        this.lingerNanos = config.linger().toNanos();
        this.heartbeatMillis = Math.max(1, config.heartbeatInterval().toMillis());
        this.heartbeatNanos = config.heartbeatInterval().toNanos();
        this.reclaimIntervalNanos = config.reclaimInterval().toNanos();
        this.claimMinIdle = config.claimMinIdle();
        this.readBackoff = new Backoff(config.retryBackoff(), MAX_BACKOFF);
        this.resendBackoff = new Backoff(config.retryBackoff(), MAX_BACKOFF);
        this.ackBackoff = new Backoff(config.retryBackoff(), MAX_BACKOFF);
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

    private void loop() {
        boolean groupReady = false;
        boolean history = true;
        String historyCursor = "0";
        long nextReclaim = 0;
        long failingSince = 0;
        while (!stopping) {
            try {
                if (!groupReady) {
                    reader.ensureGroup();
                    groupReady = true;
                }
                if (System.nanoTime() >= nextReclaim) {
                    boolean more = reclaim();
                    nextReclaim = more ? 0 : System.nanoTime() + reclaimIntervalNanos;
                }
                if (history) {
                    List<StreamEntry> mine = reader.readOwnPending(historyCursor);
                    if (mine.isEmpty()) {
                        history = false;
                    } else {
                        historyCursor = mine.get(mine.size() - 1).id;
                        LOG.infof("%s: resuming %d pending entries of consumer %s", stream, mine.size(), reader.consumer());
                        handle(mine, true);
                    }
                } else {
                    // block in Redis only when nothing is waiting for the broker; else poll and go on
                    long readAt = System.nanoTime();
                    List<StreamEntry> fresh = reader.readNew(window.isEmpty());
                    if (!fresh.isEmpty()) {
                        handle(fresh, false);
                    }
                    // a full window, or nothing new to send: complete the oldest batch (waits for its acks)
                    if (!window.isEmpty() && (fresh.isEmpty() || window.full())) {
                        completeOldest();
                    }
                    while (window.oldestAnswered() && completeOldest()) {
                        // settle whatever the broker has answered meanwhile, without waiting
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
                readBackoff.reset();
            } catch (RuntimeException e) {
                if (String.valueOf(e.getMessage()).contains("NOGROUP")) {
                    groupReady = false; // the stream (and its group) was deleted: recreate
                }
                if (failingSince == 0) {
                    failingSince = System.nanoTime();
                    LOG.warnf("%s: Redis call failed (%s); retrying with backoff", stream, e.toString());
                }
                pause(readBackoff);
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
            try {
                TimeUnit.NANOSECONDS.sleep(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** One XAUTOCLAIM step; true when it found a full batch (call again soon). */
    private boolean reclaim() {
        StreamReader.Claimed claimed = reader.reclaim();
        deadLetters.trimmedWhilePending(claimed.deletedIds());
        List<StreamEntry> entries = claimed.entries();
        if (entries.isEmpty()) {
            return false;
        }
        metrics.reclaimed.increment(entries.size());
        LOG.infof("%s: reclaimed %d entries idle for more than %s", stream, entries.size(), claimMinIdle);
        handle(entries, true);
        return claimed.more();
    }

    /**
     * Lets the dead-letter policy settle the entries that cannot be published (XACKed at once) and sends
     * the rest as one batch. Redelivered entries (own history, reclaimed) are published to the end before
     * returning: they are few, and this keeps their delivery counts simple.
     */
    private void handle(List<StreamEntry> entries, boolean redelivered) {
        Map<String, Integer> deliveries = redelivered ? reader.deliveries(entries) : null;
        List<StreamEntry> publishable = new ArrayList<>(entries.size());
        List<String> settled = null;
        for (StreamEntry e : entries) {
            int n = deliveries == null ? 1 : deliveries.getOrDefault(e.id, 1);
            if (deadLetters.unpublishable(e, n)) {
                if (settled == null) {
                    settled = new ArrayList<>();
                }
                settled.add(e.id);
            } else {
                publishable.add(e);
            }
        }
        if (settled != null) {
            reader.ack(settled);
        }
        if (!publishable.isEmpty()) {
            window.send(publishable);
        }
        if (redelivered) {
            completeAll();
        }
    }

    /** Completes every batch in hand, oldest first (each waits for its acknowledgements). */
    private void completeAll() {
        while (!window.isEmpty()) {
            if (!completeOldest()) {
                return; // interrupted: what is left stays pending
            }
        }
    }

    /**
     * Waits until the broker answered every record of the oldest batch (keeping all in-hand entries
     * claimed meanwhile), XACKs the acknowledged ones, dead-letters records the broker
     * rejects for good, and re-sends the rest until they land. False when interrupted.
     */
    private boolean completeOldest() {
        SendWindow.Batch b = window.takeOldest(heartbeatMillis, heartbeat);
        if (b == null) {
            return false;
        }
        List<StreamEntry> retry = settle(b);
        if (retry.isEmpty()) {
            return true;
        }
        // Kafka refused (down, timed out): let the batches behind this one finish first, then re-send
        // everything that failed, with backoff, before reading more
        while (!window.isEmpty()) {
            SendWindow.Batch next = window.takeOldest(heartbeatMillis, heartbeat);
            if (next == null) {
                return false;
            }
            retry.addAll(settle(next));
        }
        return resend(retry);
    }

    /** XACKs the acknowledged entries of an answered batch; returns the ones to send again (a new list, or an empty one). */
    private List<StreamEntry> settle(SendWindow.Batch b) {
        List<String> acked = new ArrayList<>(b.entries.length);
        List<StreamEntry> retry = null;
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
            if (DeadLetterPolicy.rejectedForGood(failure)) {
                deadLetters.rejected(b.entries[i], failure);
                acked.add(b.entries[i].id);
            } else {
                if (retry == null) {
                    retry = new ArrayList<>();
                }
                retry.add(b.entries[i]);
            }
        }
        if (!acked.isEmpty()) {
            ack(acked, published);
        }
        if (retry == null) {
            return List.of();
        }
        LOG.warnf("%s: %d of %d sends failed (%s)", stream, retry.size(), b.entries.length, lastFailure);
        return retry;
    }

    /** Re-sends {@code todo} until every entry is acknowledged by the broker (or dead-lettered). */
    private boolean resend(List<StreamEntry> todo) {
        resendBackoff.reset();
        long lastHeartbeat = System.nanoTime();
        while (!todo.isEmpty()) {
            if (stopping) {
                LOG.warnf("%s: stopping with %d entries not acknowledged by Kafka; they stay pending and are "
                        + "reclaimed after restart", stream, todo.size());
                return true;
            }
            LOG.warnf("%s: retrying %d entries in %d ms", stream, todo.size(),
                    TimeUnit.NANOSECONDS.toMillis(resendBackoff.nextNanos()));
            pause(resendBackoff);
            if (System.nanoTime() - lastHeartbeat > heartbeatNanos) {
                reader.heartbeat(todo); // not in the window while waiting: keep them claimed here
                lastHeartbeat = System.nanoTime();
            }
            window.send(todo);
            SendWindow.Batch b = window.takeOldest(heartbeatMillis, heartbeat);
            if (b == null) {
                return false;
            }
            todo = settle(b);
        }
        return true;
    }

    /** XACK after the broker's ack; retried while Redis is away (giving up would publish them again). */
    private void ack(List<String> ids, int published) {
        ackBackoff.reset();
        while (true) {
            try {
                reader.ack(ids);
                metrics.published.increment(published);
                return;
            } catch (RuntimeException e) {
                // Redis away: the entries are in Kafka; if we gave up they would be re-published (same event_id)
                if (stopping) {
                    LOG.warnf("%s: could not XACK %d published entries at shutdown (%s): they will be published again",
                            stream, ids.size(), e.toString());
                    return;
                }
                pause(ackBackoff);
            }
        }
    }

    /** Renews the claim on every entry in hand (sent, not yet XACKed). */
    private void heartbeat() {
        reader.heartbeat(window.inHand());
    }

    /** Waits the next backoff; an interrupt (shutdown overran its timeout) ends the wait and stays set. */
    private static void pause(Backoff backoff) {
        try {
            backoff.sleep();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
