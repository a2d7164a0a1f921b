package io.vigil.relay;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Reads a topic from the beginning (read_committed is not needed: the relay does not use transactions). */
final class KafkaTopicReader implements AutoCloseable {
    private final KafkaConsumer<String, byte[]> consumer;
    final List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
    final Map<String, Integer> countsByEventId = new HashMap<>();

    KafkaTopicReader(String bootstrap, String topic) {
        consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG, "test-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000),
                new StringDeserializer(), new ByteArrayDeserializer());
        consumer.subscribe(List.of(topic));
    }

    /** Polls until every id in {@code expected} was seen or the timeout passed; returns the ids still missing. */
    Set<String> awaitAll(Set<String> expected, Duration timeout) {
        Set<String> missing = new HashSet<>(expected);
        missing.removeAll(countsByEventId.keySet());
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!missing.isEmpty() && System.nanoTime() < deadline) {
            poll(missing::remove);
        }
        return missing;
    }

    /** Polls for a short while more, to catch late duplicates or unexpected records. */
    void drain(Duration d) {
        long deadline = System.nanoTime() + d.toNanos();
        while (System.nanoTime() < deadline) {
            poll(id -> true);
        }
    }

    private void poll(Predicate<String> seen) {
        for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(300))) {
            records.add(r);
            String id = TestEvents.eventIdOf(r.value());
            countsByEventId.merge(id, 1, Integer::sum);
            seen.test(id);
        }
    }

    @Override
    public void close() {
        consumer.close(Duration.ofSeconds(2));
    }
}
