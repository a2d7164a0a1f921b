package io.vigil.engine.outbox;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vigil.engine.decision.DecisionRecord;
import io.vigil.stream.Backoff;
import io.vigil.stream.DecisionStreams;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.jboss.logging.Logger;

/**
 * The bounded decision queue and the writer that drains it into Redis Streams.
 *
 * <p>{@link #offer} runs on the request thread: it never blocks and never allocates beyond the
 * queue slot; a full queue drops the record and counts it, so {@code offered = accepted + dropped}
 * always. The writer is its own thread (not an event loop): it takes up to a batch, waiting up to
 * {@code linger} for a short batch to fill (one round trip per decision at moderate rates costs more
 * CPU in the engine and in Redis than the decision itself), serializes it
 * ({@link DecisionEvents}) and appends it in one pipelined round trip. A failed round trip keeps the
 * batch and retries it with exponential backoff; meanwhile the queue absorbs new decisions up to its
 * capacity. A retried batch may append some entries twice (the first attempt may have partly
 * succeeded): they carry the same event_id, which downstream deduplicates on.
 */
public final class Outbox {

    private static final Logger LOG = Logger.getLogger(Outbox.class);

    private final ArrayBlockingQueue<DecisionRecord> queue;
    private final int capacity;
    private final int batchSize;
    private final int streams;
    private final StreamAppender appender;
    private final DecisionEvents events;
    /** The writer thread's, between failed round trips. */
    private final Backoff backoff;
    private final long lingerNanos;

    private final LongAdder offered = new LongAdder();
    /**
     * Places taken: held by decisions being made (see {@link #reserve}) plus records queued. One
     * counter, so a place is taken with one compare-and-set; counting held places apart from the
     * queue's size let a place be given twice (a stale size read across another decision's
     * reserve-enqueue-release), and that decision's record found the queue full.
     */
    private final AtomicInteger places = new AtomicInteger();
    private final LongAdder accepted = new LongAdder();
    private final LongAdder dropped = new LongAdder();
    private final LongAdder xaddOk = new LongAdder();
    private final LongAdder xaddFailed = new LongAdder();
    private final LongAdder unserializable = new LongAdder();
    private final LongAdder abandoned = new LongAdder();
    private final Timer writeLatency;
    private final DistributionSummary batchSizes;

    private volatile Thread writer;
    /** True while the writer sleeps for a short batch to fill ({@link #linger}). */
    private volatile boolean lingering;
    private volatile boolean stopping;
    private volatile long stopDeadline;

    Outbox(int capacity, int batchSize, int streams, Duration backoffMin, Duration backoffMax,
           StreamAppender appender, DecisionEvents events, MeterRegistry registry) {
        this(capacity, batchSize, streams, Duration.ZERO, backoffMin, backoffMax, appender, events, registry);
    }

    Outbox(int capacity, int batchSize, int streams, Duration linger, Duration backoffMin, Duration backoffMax,
           StreamAppender appender, DecisionEvents events, MeterRegistry registry) {
        if (capacity < 1 || batchSize < 1 || streams < 1) {
            throw new IllegalArgumentException("vigil.outbox: queue-capacity, batch-size and streams must be >= 1");
        }
        this.capacity = capacity;
        this.queue = new ArrayBlockingQueue<>(capacity);
        this.batchSize = batchSize;
        this.streams = streams;
        this.appender = appender;
        this.events = events;
        this.backoff = new Backoff(backoffMin, backoffMax);
        this.lingerNanos = Math.max(0, linger.toNanos());

        Gauge.builder("vigil.outbox.queue.depth", queue, ArrayBlockingQueue::size)
                .description("Decisions waiting in memory for the outbox writer").register(registry);
        Gauge.builder("vigil.outbox.queue.capacity", () -> this.capacity)
                .description("Capacity of the decision queue (vigil.outbox.queue-capacity)").register(registry);
        FunctionCounter.builder("vigil.outbox.offered", offered, LongAdder::sum)
                .description("Decisions offered to the outbox (= enqueue ok + dropped)").register(registry);
        FunctionCounter.builder("vigil.outbox.enqueue", accepted, LongAdder::sum).tag("result", "ok")
                .description("Decisions offered to the outbox queue, by result").register(registry);
        FunctionCounter.builder("vigil.outbox.enqueue", dropped, LongAdder::sum).tag("result", "dropped")
                .description("Decisions offered to the outbox queue, by result").register(registry);
        FunctionCounter.builder("vigil.outbox.xadd", xaddOk, LongAdder::sum).tag("result", "ok")
                .description("XADD commands, by result (failed counts every command of a failed round trip, retries included)")
                .register(registry);
        FunctionCounter.builder("vigil.outbox.xadd", xaddFailed, LongAdder::sum).tag("result", "failed")
                .description("XADD commands, by result (failed counts every command of a failed round trip, retries included)")
                .register(registry);
        FunctionCounter.builder("vigil.outbox.unserializable", unserializable, LongAdder::sum)
                .description("Decisions that could not be serialized (a bug: logged with the decision id)").register(registry);
        FunctionCounter.builder("vigil.outbox.abandoned", abandoned, LongAdder::sum)
                .description("Accepted decisions not written when the shutdown timeout ran out").register(registry);
        writeLatency = Timer.builder("vigil.outbox.write")
                .description("Pipelined XADD round trips, by batch").publishPercentileHistogram()
                .register(registry);
        batchSizes = DistributionSummary.builder("vigil.outbox.batch.size")
                .description("Decisions per pipelined XADD round trip").register(registry);
    }

    /**
     * Request thread: holds one place in the queue for a decision about to be made (the decision path
     * sheds the request when there is none). Places held plus records queued never exceed the capacity,
     * so a reserved record is never dropped.
     */
    public boolean reserve() {
        while (true) {
            int taken = places.get();
            if (taken >= capacity) {
                return false;
            }
            if (places.compareAndSet(taken, taken + 1)) {
                return true;
            }
        }
    }

    /**
     * Request thread: enqueues the record of a decision that {@link #reserve reserved} its place. The
     * place stays taken until the writer takes the record from the queue.
     */
    public void offerReserved(DecisionRecord record) {
        enqueue(record);
    }

    /**
     * Request thread: enqueue a record without a reserved place if one is free, else drop it (counted).
     * Never blocks. True when accepted.
     */
    public boolean offer(DecisionRecord record) {
        if (!reserve()) {
            offered.increment();
            dropped.increment();
            return false;
        }
        return enqueue(record);
    }

    private boolean enqueue(DecisionRecord record) {
        offered.increment();
        if (queue.offer(record)) {
            accepted.increment();
            if (lingering && queue.size() >= batchSize - 1) {
                LockSupport.unpark(writer); // a full batch goes at once
            }
            return true;
        }
        places.decrementAndGet();
        dropped.increment(); // not reached: queued records never outnumber the places taken
        return false;
    }

    /** Writer: takes up to {@code max} queued records into {@code records} and frees their places. */
    private void take(List<DecisionRecord> records, int max) {
        int n = queue.drainTo(records, max);
        if (n > 0) {
            places.addAndGet(-n);
        }
    }

    public synchronized void start() {
        if (writer != null) {
            return;
        }
        Thread t = new Thread(this::run, "vigil-outbox-writer");
        t.setDaemon(true);
        writer = t;
        t.start();
    }

    /**
     * Stops taking new batches once the queue is empty, or at {@code timeout}; waits for the writer.
     * What is left then (Redis down during shutdown) is counted as abandoned.
     */
    public void stop(Duration timeout) {
        Thread t = writer;
        stopDeadline = System.nanoTime() + timeout.toNanos();
        stopping = true;
        if (t == null) {
            return;
        }
        try {
            t.join(timeout.toMillis() + 1000);
            if (t.isAlive()) {
                t.interrupt();
                t.join(2000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        List<DecisionRecord> left = new ArrayList<>();
        take(left, Integer.MAX_VALUE);
        abandoned.add(left.size());
        if (abandoned.sum() > 0) {
            LOG.warnf("outbox stopped with %d accepted decisions not written (Redis unavailable during shutdown)",
                    abandoned.sum());
        }
    }

    private void run() {
        List<DecisionRecord> records = new ArrayList<>(batchSize);
        List<StreamEntry> entries = new ArrayList<>(batchSize);
        long failingSince = 0;
        while (true) {
            if (entries.isEmpty()) {
                if (stopping && (queue.isEmpty() || System.nanoTime() > stopDeadline)) {
                    return;
                }
                records.clear();
                DecisionRecord first;
                try {
                    first = stopping ? queue.poll() : queue.poll(100, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    if (stopping) {
                        return;
                    }
                    continue;
                }
                if (first == null) {
                    continue;
                }
                places.decrementAndGet();
                records.add(first);
                take(records, batchSize - 1);
                if (!stopping) {
                    linger(records);
                }
                for (int i = 0; i < records.size(); i++) {
                    DecisionRecord r = records.get(i);
                    try {
                        String key = DecisionEvents.key(r);
                        entries.add(new StreamEntry(DecisionStreams.shardOf(key, streams), r.decisionId(), key, events.toJson(r)));
                    } catch (RuntimeException e) {
                        unserializable.increment();
                        LOG.errorf(e, "decision %s could not be serialized; it is not written", r.decisionId());
                    }
                }
                records.clear(); // let the records go: the entries hold what is written
                if (entries.isEmpty()) {
                    continue;
                }
            }
            long start = System.nanoTime();
            try {
                appender.append(entries);
                writeLatency.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
                batchSizes.record(entries.size());
                xaddOk.add(entries.size());
                entries.clear();
                if (failingSince != 0) {
                    LOG.infof("outbox writes to Redis recovered after %d ms",
                            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - failingSince));
                    failingSince = 0;
                }
                backoff.reset();
            } catch (Exception e) {
                xaddFailed.add(entries.size());
                if (failingSince == 0) {
                    failingSince = System.nanoTime();
                    LOG.warnf("outbox write of %d decisions to Redis failed (%s); retrying with backoff, "
                            + "the queue absorbs new decisions meanwhile", entries.size(), e.toString());
                }
                if (stopping && System.nanoTime() > stopDeadline) {
                    abandoned.add(entries.size());
                    return;
                }
                try {
                    backoff.sleep();
                } catch (InterruptedException ie) {
                    if (stopping) {
                        abandoned.add(entries.size());
                        return;
                    }
                }
            }
        }
    }

    /**
     * Tops a short batch up with what arrives within the linger time (none when it is 0). The writer
     * sleeps rather than waits on the queue: a writer waiting on the queue is woken by every decision
     * offered (a futex call on the request's event loop and a context switch here, per decision), a
     * sleeping one only when the batch is full or the linger is over.
     */
    private void linger(List<DecisionRecord> records) {
        if (lingerNanos == 0 || records.size() >= batchSize) {
            return;
        }
        long deadline = System.nanoTime() + lingerNanos;
        lingering = true;
        try {
            while (queue.size() + records.size() < batchSize && !Thread.currentThread().isInterrupted()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                LockSupport.parkNanos(this, left);
            }
        } finally {
            lingering = false;
        }
        // stop() interrupts only a writer that overran its timeout: the flag stays set, and the round
        // trip of what was taken fails fast and is counted as abandoned
        take(records, batchSize - records.size());
    }

    public long offered() {
        return offered.sum();
    }

    public long accepted() {
        return accepted.sum();
    }

    public long dropped() {
        return dropped.sum();
    }

    public long xaddOk() {
        return xaddOk.sum();
    }

    public long xaddFailed() {
        return xaddFailed.sum();
    }

    public long abandoned() {
        return abandoned.sum();
    }

    public int depth() {
        return queue.size();
    }

    public int capacity() {
        return capacity;
    }
}
