package io.vigil.relay;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** The send window on its own: Kafka's {@link MockProducer} answers on the test's cue, no Redis involved. */
class SendWindowTest {

    private final MockProducer<String, byte[]> kafka =
            new MockProducer<>(false, null, new StringSerializer(), new ByteArraySerializer());
    private final RelayMetrics metrics = new RelayMetrics(new SimpleMeterRegistry(), "test:window");

    private static List<StreamEntry> entries(String prefix, int n) {
        List<StreamEntry> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            StreamEntry e = new StreamEntry("1700000000000-" + i, null);
            e.key = i == 0 ? "" : prefix + "-card-" + i;
            e.event = ("{\"event_id\":\"" + prefix + "-" + i + "\"}").getBytes(StandardCharsets.UTF_8);
            out.add(e);
        }
        return out;
    }

    @Test
    void records_carry_the_entry_key_and_the_event_bytes_as_stored() {
        SendWindow window = new SendWindow(kafka, "decisions", 4, metrics);
        List<StreamEntry> batch = entries("a", 2);
        window.send(batch);
        List<ProducerRecord<String, byte[]>> sent = kafka.history();
        assertThat(sent).hasSize(2);
        assertThat(sent.get(0).topic()).isEqualTo("decisions");
        assertThat(sent.get(0).key()).as("an empty key is no key").isNull();
        assertThat(sent.get(1).key()).isEqualTo("a-card-1");
        assertThat(sent.get(1).value()).isSameAs(batch.get(1).event);
        assertThat(metrics.batchEntries.count()).isEqualTo(1);
        assertThat(metrics.batchEntries.totalAmount()).isEqualTo(2);
    }

    @Test
    void full_at_its_capacity_and_batches_come_out_oldest_first_once_answered() {
        SendWindow window = new SendWindow(kafka, "decisions", 2, metrics);
        assertThat(window.isEmpty()).isTrue();
        assertThat(window.oldestAnswered()).isFalse();
        List<StreamEntry> first = entries("first", 2);
        List<StreamEntry> second = entries("second", 2);
        window.send(first);
        assertThat(window.full()).isFalse();
        window.send(second);
        assertThat(window.full()).isTrue();
        assertThat(window.inHand()).containsExactlyElementsOf(concat(first, second));

        kafka.completeNext();
        assertThat(window.oldestAnswered()).as("half of the oldest batch answered").isFalse();
        kafka.errorNext(new NetworkException("broker went away"));
        assertThat(window.oldestAnswered()).isTrue();

        SendWindow.Batch oldest = window.takeOldest(1, () -> {
            throw new AssertionError("an answered batch is taken without waiting");
        });
        assertThat(oldest.entries).containsExactlyElementsOf(first);
        assertThat(oldest.failures[0]).isNull();
        assertThat(oldest.failures[1]).isInstanceOf(NetworkException.class);
        assertThat(window.full()).isFalse();
        assertThat(window.inHand()).containsExactlyElementsOf(second);
    }

    @Test
    void waiting_for_the_oldest_batch_runs_the_heartbeat_until_the_broker_answers() {
        SendWindow window = new SendWindow(kafka, "decisions", 2, metrics);
        window.send(entries("slow", 2));
        AtomicInteger heartbeats = new AtomicInteger();
        // each heartbeat lets the broker answer one more record: two records, two heartbeats
        SendWindow.Batch b = window.takeOldest(1, () -> {
            heartbeats.incrementAndGet();
            kafka.completeNext();
        });
        assertThat(heartbeats.get()).isEqualTo(2);
        assertThat(b.failures).containsOnlyNulls();
        assertThat(window.isEmpty()).isTrue();
    }

    @Test
    void a_send_the_producer_refuses_at_once_counts_as_a_failed_answer() {
        kafka.close();
        SendWindow window = new SendWindow(kafka, "decisions", 2, metrics);
        window.send(entries("closed", 2));
        assertThat(window.oldestAnswered()).isTrue();
        SendWindow.Batch b = window.takeOldest(1, () -> {
        });
        assertThat(b.failures).doesNotContainNull();
    }

    @Test
    void an_interrupted_wait_leaves_the_batch_in_the_window() {
        SendWindow window = new SendWindow(kafka, "decisions", 2, metrics);
        window.send(entries("interrupted", 1));
        Thread.currentThread().interrupt();
        try {
            assertThat(window.takeOldest(1, () -> {
            })).isNull();
            assertThat(Thread.currentThread().isInterrupted()).as("the interrupt stays set").isTrue();
        } finally {
            Thread.interrupted();
        }
        assertThat(window.isEmpty()).isFalse();
    }

    private static List<StreamEntry> concat(List<StreamEntry> a, List<StreamEntry> b) {
        List<StreamEntry> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
