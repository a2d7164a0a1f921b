package io.vigil.engine.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Places reserved before deciding: a decision that reserved its place is never dropped, whatever other
 * threads offer meanwhile; records without a place take only what is left. No writer runs (nothing
 * drains) except in the last test, where the writer frees places while decisions take them.
 */
class OutboxReservationTest {

    SimpleMeterRegistry registry = new SimpleMeterRegistry();

    Outbox outbox(int capacity) {
        return new Outbox(capacity, 16, 1, Duration.ZERO, Duration.ofMillis(10), Duration.ofMillis(100),
                entries -> { }, new DecisionEvents("test"), registry);
    }

    double counter(String name, String result) {
        return registry.get(name).tag("result", result).functionCounter().count();
    }

    @Test
    void reservedPlacesAreKeptForTheirDecisionsAndOthersAreDroppedAndCounted() {
        Outbox o = outbox(3);
        assertThat(o.reserve()).isTrue();
        assertThat(o.reserve()).isTrue();
        assertThat(o.offer(Decisions.declined(0))).as("the last free place").isTrue();
        assertThat(o.reserve()).as("two held, one queued: full").isFalse();
        assertThat(o.offer(Decisions.declined(1))).as("no place without a reservation").isFalse();
        o.offerReserved(Decisions.declined(2));
        o.offerReserved(Decisions.declined(3));
        assertThat(counter("vigil.outbox.enqueue", "ok")).isEqualTo(3);
        assertThat(counter("vigil.outbox.enqueue", "dropped")).isEqualTo(1);
        assertThat(o.reserve()).isFalse();
    }

    @Test
    void concurrentDecisionsThatReservedAreNeverDroppedWhileOthersCompeteForPlaces() throws Exception {
        Outbox o = outbox(500);
        // 100 decisions already in flight hold their places before the competition starts, so the
        // test does not depend on which thread the scheduler runs first (CI once ran the shedding
        // threads to completion before any reserving thread started).
        int inFlight = 100;
        for (int i = 0; i < inFlight; i++) {
            assertThat(o.reserve()).isTrue();
        }
        AtomicInteger decided = new AtomicInteger(inFlight);
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService threads = Executors.newFixedThreadPool(4);
        List<Future<?>> work = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            int worker = w;
            work.add(threads.submit(() -> {
                start.await();
                for (int i = 0; i < 1000; i++) {
                    if (worker % 2 == 0) {
                        if (i < inFlight / 2) {
                            o.offerReserved(Decisions.declined(i)); // a decision that reserved before
                        }
                        if (o.reserve()) {
                            o.offerReserved(Decisions.declined(i));
                            decided.incrementAndGet();
                        }
                    } else {
                        o.offer(Decisions.declined(i)); // shed answers: whatever place is left
                    }
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> f : work) {
            f.get();
        }
        threads.shutdown();
        double ok = counter("vigil.outbox.enqueue", "ok");
        double dropped = counter("vigil.outbox.enqueue", "dropped");
        assertThat(ok).isEqualTo(500);
        assertThat(ok + dropped).as("every offer counted: the reserved ones and the 2,000 others").isEqualTo(2000 + decided.get());
        assertThat(dropped).as("only records without a reservation are dropped").isEqualTo(2000 - (500 - decided.get()));
        assertThat(o.reserve()).as("every place used").isFalse();
    }

    @Test
    void aPlaceIsNeverGivenTwiceWhileTheWriterFreesPlaces() throws Exception {
        // CI once saw a decision that reserved find the queue full: the free places were computed from
        // the queue's size and a separate count of held places, and another decision's
        // reserve-enqueue-release between the two reads let one place go to two decisions. A tiny
        // queue that the writer keeps draining makes that interleaving frequent.
        Outbox o = new Outbox(2, 1, 1, Duration.ZERO, Duration.ofMillis(1), Duration.ofMillis(10),
                entries -> { }, new DecisionEvents("test"), registry);
        o.start();
        AtomicInteger reservedAndOffered = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService threads = Executors.newFixedThreadPool(6);
        List<Future<?>> work = new ArrayList<>();
        for (int w = 0; w < 6; w++) {
            work.add(threads.submit(() -> {
                start.await();
                for (int i = 0; i < 100_000; i++) {
                    if (o.reserve()) {
                        o.offerReserved(Decisions.declined(i));
                        reservedAndOffered.incrementAndGet();
                    } else {
                        Thread.yield(); // let the writer free a place
                    }
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> f : work) {
            f.get();
        }
        threads.shutdown();
        o.stop(Duration.ofSeconds(5));
        assertThat(reservedAndOffered.get()).as("the writer freed places").isGreaterThan(2);
        assertThat(counter("vigil.outbox.enqueue", "dropped")).as("no reserved record dropped").isZero();
        assertThat(counter("vigil.outbox.enqueue", "ok")).isEqualTo(reservedAndOffered.get());
    }
}
