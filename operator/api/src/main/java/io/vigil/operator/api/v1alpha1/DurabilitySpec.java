package io.vigil.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.ResourceRequirements;

@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "!has(self.kafka) || !has(self.kafka.managed) || !has(self.topic) || self.topic.replicas <= self.kafka.managed.replicas",
        message = "durability.topic.replicas must not exceed durability.kafka.managed.replicas")
public class DurabilitySpec {

    /** The relay's default JVM options: the image's heap share, C1 only (ADR 0023). */
    public static final String RELAY_JVM_OPTIONS = "-XX:MaxRAMPercentage=75 -XX:TieredStopAtLevel=1";

    @Default("10000")
    @Min(1)
    @JsonPropertyDescription("Capacity of the in-memory outbox queue per engine pod (vigil.outbox.queue-capacity); full means dropped and counted.")
    public Integer queueCapacity = 10000;

    @Default("{}")
    public Stream stream = new Stream();

    @Default("{}")
    public Relay relay = new Relay();

    // Required, no default: the spec names its Kafka (managed or external), nothing is managed implicitly.
    @Required
    @JsonPropertyDescription("The Kafka of the decision topic: managed (Strimzi) or external; exactly one must be set.")
    public Kafka kafka = new Kafka();

    @Default("{}")
    public Topic topic = new Topic();

    public static class Stream {
        @Default("vigil:decisions")
        @Pattern("^[A-Za-z0-9:._-]+$")
        @JsonPropertyDescription("Redis stream name (vigil.outbox.stream); with shards > 1 the streams are <name>:0..<name>:N-1.")
        public String name = "vigil:decisions";

        @Default("1")
        @Min(1)
        @Max(64)
        public Integer shards = 1;

        @Default("1000000")
        @Min(1000)
        @JsonPropertyDescription("Approximate MAXLEN of each stream.")
        public Long maxLength = 1_000_000L;
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(value = "self.minReplicas <= self.maxReplicas",
            message = "durability.relay.minReplicas must not exceed maxReplicas")
    public static class Relay {
        @JsonPropertyDescription("Relay container image. Default: the relay image of the operator's own release (the operator chart's"
                + " images.relay, env VIGIL_OPERATOR_RELAY_IMAGE).")
        public String image;

        @Default("1")
        @Min(0)
        @JsonPropertyDescription("Lower bound for KEDA (0 allows scale to zero when the stream is idle).")
        public Integer minReplicas = 1;

        @Default("4")
        @Min(1)
        @Max(100)
        public Integer maxReplicas = 4;

        @Default("1000")
        @Min(1)
        @JsonPropertyDescription("Consumer-group lag per relay replica that KEDA scales on.")
        public Long lagThreshold = 1000L;

        @Default("5000")
        @Min(1)
        @JsonPropertyDescription("Pending (delivered, unacknowledged) entries per relay replica that KEDA scales on.")
        public Long pendingThreshold = 5000L;

        // The relay's own default (vigil.relay.batch-size): 1000 measured 1.75-2.07x faster than 500 (docs/durability.md).
        @Default("1000")
        @Min(1)
        @Max(10000)
        @JsonPropertyDescription("Most entries per Kafka batch, gathered from several reads of entriesPerCommand.")
        public Integer batchSize = 1000;

        // The relay's own default (vigil.relay.entries-per-command): bounds how long one command holds the
        // Redis that velocity shares (ADR 0022).
        @Default("100")
        @Min(1)
        @Max(10000)
        @JsonPropertyDescription("Most entries one relay command reads, acknowledges or deletes in Redis (XREADGROUP COUNT, ids per XACK/XDEL):"
                + " bounds how long the relay holds the Redis that velocity shares.")
        public Integer entriesPerCommand = 100;

        // C1 only (TieredStopAtLevel=1): half the relay's CPU after a start was C2 compiling its path for
        // minutes, beside the engine on the same node; at a steady rate C1's code cost the same (ADR 0023).
        @Default(RELAY_JVM_OPTIONS)
        @JsonPropertyDescription("JVM options of the relay (JAVA_TOOL_OPTIONS, replacing the image's). The default runs C1 only;"
                + " drop -XX:TieredStopAtLevel=1 to give the relay C2 back.")
        public String jvmOptions = RELAY_JVM_OPTIONS;

        public ResourceRequirements resources;
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(value = "has(self.managed) != has(self.external)",
            message = "set exactly one of durability.kafka.managed (a Kafka the operator declares to Strimzi; managed: {} for the defaults) or durability.kafka.external (an existing Kafka)")
    public static class Kafka {
        @JsonPropertyDescription("A Kafka cluster run by Strimzi (Kafka + KafkaNodePool + KafkaTopic, KRaft), owned by this FraudEngine. Created only when set.")
        public ManagedKafka managed;

        @JsonPropertyDescription("An existing Kafka; nothing is created.")
        public ExternalKafka external;

        public boolean hasExternal() {
            return external != null;
        }

        /** The spec asks the operator to run this Kafka (the schema refuses neither and both). */
        public boolean hasManaged() {
            return managed != null;
        }

        public ManagedKafka managedOrDefault() {
            return managed != null ? managed : new ManagedKafka();
        }
    }

    public static class ManagedKafka {
        @Default("3")
        @Min(1)
        @Max(9)
        @JsonPropertyDescription("Broker+controller nodes (one KafkaNodePool with both roles).")
        public Integer replicas = 3;

        @Default("10Gi")
        @Pattern(Quantities.PATTERN)
        public String storage = "10Gi";

        @Default("4.0.0")
        @Pattern("^[0-9]+\\.[0-9]+\\.[0-9]+$")
        @JsonPropertyDescription("Kafka version (one the installed Strimzi supports).")
        public String version = "4.0.0";
    }

    public static class ExternalKafka {
        @Required
        @JsonPropertyDescription("Comma-separated host:port list.")
        public String bootstrapServers;

        @JsonPropertyDescription("Secret with client settings (e.g. sasl.jaas.config); its keys become relay environment variables.")
        public SecretKeyRef secretRef;
    }

    public static class Topic {
        @Default("fraud.card.decisions.v1")
        @Pattern("^[a-zA-Z0-9._-]{1,249}$")
        public String name = "fraud.card.decisions.v1";

        @Default("12")
        @Min(1)
        @Max(1000)
        public Integer partitions = 12;

        @Default("3")
        @Min(1)
        @Max(9)
        public Integer replicas = 3;

        @Default("7d")
        @Pattern(Durations.PATTERN)
        @JsonPropertyDescription("retention.ms of the topic.")
        public String retention = "7d";
    }
}
