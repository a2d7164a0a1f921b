package io.vigil.local.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.vigil.testing.kafka.KafkaBroker;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** The harness starts a real broker that keeps acked records across a graceful stop and a SIGKILL. */
class KafkaBrokerTest {

    @Test
    void acked_records_survive_stop_and_kill() throws Exception {
        try (KafkaBroker kafka = KafkaBroker.start()) {
            kafka.createTopic("harness.check", 3);
            kafka.createTopic("harness.check", 3); // idempotent

            produce(kafka, "a", 50);
            kafka.stop();
            assertThat(kafka.isRunning()).isFalse();
            assertThat(portAnswers(kafka.port())).isFalse();

            kafka.restart();
            produce(kafka, "b", 50);
            kafka.kill();
            assertThat(kafka.isRunning()).isFalse();

            kafka.restart();
            List<String> values = consumeAll(kafka, 100);
            assertThat(values).hasSize(100);
            assertThat(values.stream().filter(v -> v.startsWith("a-"))).hasSize(50);
            assertThat(values.stream().filter(v -> v.startsWith("b-"))).hasSize(50);
        }
    }

    private static void produce(KafkaBroker kafka, String prefix, int n) throws Exception {
        try (var producer = new KafkaProducer<String, String>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true),
                new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < n; i++) {
                producer.send(new ProducerRecord<>("harness.check", "k" + i, prefix + "-" + i)).get(30, TimeUnit.SECONDS);
            }
        }
    }

    private static List<String> consumeAll(KafkaBroker kafka, int expected) {
        List<String> values = new ArrayList<>();
        try (var consumer = new KafkaConsumer<String, String>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "harness-check",
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
                new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of("harness.check"));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (values.size() < expected && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    values.add(r.value());
                }
            }
        }
        return values;
    }

    private static boolean portAnswers(int port) {
        try (Socket s = new Socket("127.0.0.1", port)) {
            return true;
        } catch (Exception e) {
            return false;
        }
    }
}
