package io.vigil.relay;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * The batches sent to Kafka and not yet answered, oldest first, at most {@code batches-in-flight}: the
 * worker reads and sends the next batch while the broker acknowledges earlier ones, so the acks=all
 * round trip does not serialise the stream. Each record is keyed by the entry's {@code key} and carries
 * the entry's {@code event} bytes as stored. Batches are taken out in the order they were sent.
 */
final class SendWindow {

    /**
     * A batch sent to Kafka: one callback per record fills {@code failures[i]} (null = acknowledged by
     * the broker) and counts down; the batch is answered once the count is zero.
     */
    static final class Batch {
        final StreamEntry[] entries;
        final Throwable[] failures;
        private final CountDownLatch unanswered;

        private Batch(List<StreamEntry> entries) {
            this.entries = entries.toArray(StreamEntry[]::new);
            this.failures = new Throwable[this.entries.length];
            this.unanswered = new CountDownLatch(this.entries.length);
        }

        private void answered(int i, Throwable failure) {
            failures[i] = failure;
            unanswered.countDown();
        }

        boolean answered() {
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
                long appendedAtMillis = StreamEntry.appendedAtMillis(batch.entries[index].id);
                if (appendedAtMillis > 0) {
                    metrics.eventAge.record(Math.max(0, System.currentTimeMillis() - appendedAtMillis), TimeUnit.MILLISECONDS);
                }
            }
            batch.answered(index, error);
        }
    }

    private final Producer<String, byte[]> producer;
    private final String topic;
    private final int capacity;
    private final RelayMetrics metrics;
    private final ArrayDeque<Batch> inFlight = new ArrayDeque<>();

    SendWindow(Producer<String, byte[]> producer, String topic, int batchesInFlight, RelayMetrics metrics) {
        this.producer = producer;
        this.topic = topic;
        this.capacity = Math.max(1, batchesInFlight);
        this.metrics = metrics;
    }

    /** Sends {@code entries} as one batch, the newest in the window. */
    void send(List<StreamEntry> entries) {
        Batch b = new Batch(entries);
        metrics.batchEntries.record(b.entries.length);
        long sentAt = System.nanoTime();
        for (int i = 0; i < b.entries.length; i++) {
            StreamEntry e = b.entries[i];
            String key = e.key == null || e.key.isEmpty() ? null : e.key;
            try {
                producer.send(new ProducerRecord<>(topic, key, e.event), new Answer(b, i, sentAt));
            } catch (RuntimeException ex) {
                // e.g. metadata not available within max.block.ms (broker down at start)
                b.answered(i, ex);
            }
        }
        inFlight.addLast(b);
    }

    boolean isEmpty() {
        return inFlight.isEmpty();
    }

    boolean full() {
        return inFlight.size() >= capacity;
    }

    /** True when the oldest batch is fully answered (taking it out will not wait). */
    boolean oldestAnswered() {
        Batch b = inFlight.peekFirst();
        return b != null && b.answered();
    }

    /**
     * Waits until the broker answered every record of the oldest batch, running {@code whileWaiting}
     * every {@code intervalMillis} (the batch still counts as in hand meanwhile), then takes it out.
     * Null when interrupted: the batch stays in the window, its entries pending in Redis.
     */
    Batch takeOldest(long intervalMillis, Runnable whileWaiting) {
        Batch b = inFlight.peekFirst();
        try {
            while (!b.unanswered.await(intervalMillis, TimeUnit.MILLISECONDS)) {
                whileWaiting.run();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null; // a restart or another relay takes the entries
        }
        return inFlight.pollFirst();
    }

    /** Every entry sent and not yet taken out. */
    List<StreamEntry> inHand() {
        List<StreamEntry> all = new ArrayList<>();
        for (Batch b : inFlight) {
            all.addAll(List.of(b.entries));
        }
        return all;
    }
}
