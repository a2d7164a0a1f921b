// Small Kafka client commands for `make run` / `make watch-decisions`, run with the JDK's source
// launcher on the broker's classpath (no build step): kafka-tools (TopicCommand, ConsoleConsumer)
// would pull Kafka Connect's runtime into the local classpath for two commands.
//
//   java -cp "$(cat broker.classpath)" KafkaLocal.java create-topic <bootstrap> <topic> <partitions>
//   java -cp "$(cat broker.classpath)" KafkaLocal.java watch <bootstrap> <topic> [--from-beginning]
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.StringDeserializer;

public class KafkaLocal {

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: KafkaLocal create-topic <bootstrap> <topic> <partitions> | watch <bootstrap> <topic> [--from-beginning]");
            System.exit(2);
        }
        switch (args[0]) {
            case "create-topic" -> createTopic(args[1], args[2], Integer.parseInt(args[3]));
            case "watch" -> watch(args[1], args[2], args.length > 3 && args[3].equals("--from-beginning"));
            default -> {
                System.err.println("unknown command " + args[0]);
                System.exit(2);
            }
        }
    }

    static void createTopic(String bootstrap, String topic, int partitions) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            try {
                admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
                System.out.println("    created topic " + topic + " (" + partitions + " partitions)");
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
                System.out.println("    topic " + topic + " exists");
            }
        }
    }

    /** Prints one line per decision event: time, partition/offset, key (card_hash), then the event JSON. */
    static void watch(String bootstrap, String topic, boolean fromBeginning) {
        try (var consumer = new KafkaConsumer<String, String>(Map.of(
                "bootstrap.servers", bootstrap,
                "group.id", "watch-decisions-" + UUID.randomUUID(),
                "auto.offset.reset", fromBeginning ? "earliest" : "latest",
                "enable.auto.commit", "false"), new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            System.err.println("watching " + topic + " at " + bootstrap + (fromBeginning ? " from the beginning" : "")
                    + " (Ctrl-C to stop)");
            while (true) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    System.out.println(Instant.ofEpochMilli(r.timestamp()) + " p" + r.partition() + "@" + r.offset()
                            + " key=" + r.key() + " " + r.value());
                }
            }
        }
    }
}
