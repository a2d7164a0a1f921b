package io.vigil.engine.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The writer's linger: a short batch waits for more decisions, a full one goes at once, none is held back. */
class OutboxLingerTest {

    final List<Integer> batches = new CopyOnWriteArrayList<>();
    final CountDownLatch firstBatch = new CountDownLatch(1);
    Outbox outbox;

    @AfterEach
    void stop() {
        if (outbox != null) {
            outbox.stop(Duration.ofSeconds(1));
        }
    }

    Outbox outbox(int batchSize, Duration linger) {
        StreamAppender appender = entries -> {
            batches.add(entries.size());
            firstBatch.countDown();
        };
        outbox = new Outbox(1000, batchSize, 1, linger, Duration.ofMillis(10), Duration.ofMillis(100), appender,
                new DecisionEvents("test"), new SimpleMeterRegistry());
        outbox.start();
        return outbox;
    }

    @Test
    void decisions_arriving_within_the_linger_share_one_round_trip() throws Exception {
        Outbox o = outbox(10, Duration.ofSeconds(30));
        o.offer(Decisions.declined(0));
        Thread.sleep(50); // the writer has taken the first one and lingers
        for (int i = 1; i < 10; i++) {
            o.offer(Decisions.declined(i));
        }
        // the batch is full: written at once, long before the linger ends
        assertThat(firstBatch.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(batches).containsExactly(10);
    }

    @Test
    void a_short_batch_is_written_when_the_linger_ends() throws Exception {
        Outbox o = outbox(10, Duration.ofMillis(500));
        for (int i = 0; i < 3; i++) {
            o.offer(Decisions.declined(i));
        }
        assertThat(firstBatch.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(batches).containsExactly(3);
    }

    @Test
    void without_linger_each_decision_can_go_alone() throws Exception {
        Outbox o = outbox(10, Duration.ZERO);
        o.offer(Decisions.declined(0));
        assertThat(firstBatch.await(10, TimeUnit.SECONDS)).isTrue();
        Thread.sleep(50);
        o.offer(Decisions.declined(1));
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (batches.size() < 2 && System.nanoTime() < until) {
            Thread.sleep(5);
        }
        assertThat(batches).containsExactly(1, 1);
    }
}
