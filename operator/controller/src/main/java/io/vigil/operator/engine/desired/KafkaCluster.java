package io.vigil.operator.engine.desired;

import io.strimzi.api.kafka.model.kafka.Kafka;
import io.strimzi.api.kafka.model.kafka.KafkaBuilder;
import io.strimzi.api.kafka.model.kafka.JbodStorageBuilder;
import io.strimzi.api.kafka.model.kafka.KRaftMetadataStorage;
import io.strimzi.api.kafka.model.kafka.PersistentClaimStorageBuilder;
import io.strimzi.api.kafka.model.kafka.listener.GenericKafkaListenerBuilder;
import io.strimzi.api.kafka.model.kafka.listener.KafkaListenerType;
import io.strimzi.api.kafka.model.nodepool.KafkaNodePool;
import io.strimzi.api.kafka.model.nodepool.KafkaNodePoolBuilder;
import io.strimzi.api.kafka.model.nodepool.ProcessRoles;
import io.strimzi.api.kafka.model.topic.KafkaTopic;
import io.strimzi.api.kafka.model.topic.KafkaTopicBuilder;
import io.vigil.operator.api.v1alpha1.DurabilitySpec;
import io.vigil.operator.api.v1alpha1.Durations;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.engine.Names;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Managed Kafka through Strimzi's typed model (kafka.strimzi.io/v1beta2): a KRaft Kafka with one
 * KafkaNodePool holding both roles, and the decision topic as a KafkaTopic.
 */
public final class KafkaCluster {

    public static final String STRIMZI_CLUSTER_LABEL = "strimzi.io/cluster";

    private KafkaCluster() {
    }

    /** What the relay connects to: Strimzi's bootstrap Service, or the external servers. */
    public static String bootstrapServers(FraudEngine fe) {
        DurabilitySpec.Kafka k = fe.getSpec().durability.kafka;
        if (k.hasExternal()) {
            return k.external.bootstrapServers;
        }
        return Names.kafka(fe) + "-kafka-bootstrap." + fe.getMetadata().getNamespace() + ".svc:9092";
    }

    public static Kafka kafka(FraudEngine fe) {
        DurabilitySpec.ManagedKafka m = fe.getSpec().durability.kafka.managedOrDefault();
        int rf = Math.min(3, m.replicas);
        Map<String, Object> config = new LinkedHashMap<>();
        config.put("default.replication.factor", rf);
        config.put("min.insync.replicas", Math.max(1, rf - 1));
        config.put("offsets.topic.replication.factor", rf);
        config.put("transaction.state.log.replication.factor", rf);
        config.put("transaction.state.log.min.isr", Math.max(1, rf - 1));
        var meta = Meta.of(fe, Names.kafka(fe), "kafka");
        meta.setAnnotations(new LinkedHashMap<>(Map.of("strimzi.io/node-pools", "enabled", "strimzi.io/kraft", "enabled")));
        return new KafkaBuilder()
                .withMetadata(meta)
                .withNewSpec()
                .withNewKafka()
                .withVersion(m.version)
                .withListeners(new GenericKafkaListenerBuilder().withName("plain").withPort(9092)
                        .withType(KafkaListenerType.INTERNAL).withTls(false).build())
                .withConfig(config)
                .endKafka()
                .withNewEntityOperator().withNewTopicOperator().endTopicOperator().endEntityOperator()
                .endSpec()
                .build();
    }

    public static KafkaNodePool nodePool(FraudEngine fe) {
        DurabilitySpec.ManagedKafka m = fe.getSpec().durability.kafka.managedOrDefault();
        var meta = Meta.of(fe, Names.kafka(fe) + "-dual", "kafka");
        meta.getLabels().put(STRIMZI_CLUSTER_LABEL, Names.kafka(fe));
        return new KafkaNodePoolBuilder()
                .withMetadata(meta)
                .withNewSpec()
                .withReplicas(m.replicas)
                .withRoles(ProcessRoles.CONTROLLER, ProcessRoles.BROKER)
                .withStorage(new JbodStorageBuilder().withVolumes(new PersistentClaimStorageBuilder()
                        .withId(0).withSize(m.storage).withDeleteClaim(false).withKraftMetadata(KRaftMetadataStorage.SHARED).build()).build())
                .endSpec()
                .build();
    }

    public static KafkaTopic topic(FraudEngine fe) {
        DurabilitySpec.Topic t = fe.getSpec().durability.topic;
        var meta = Meta.of(fe, Names.kafka(fe) + "-decisions", "kafka");
        meta.getLabels().put(STRIMZI_CLUSTER_LABEL, Names.kafka(fe));
        Map<String, Object> config = new LinkedHashMap<>();
        config.put("retention.ms", Durations.parse(t.retention).toMillis());
        config.put("min.insync.replicas", Math.max(1, Math.min(t.replicas - 1, 2)));
        return new KafkaTopicBuilder()
                .withMetadata(meta)
                .withNewSpec()
                .withTopicName(t.name)
                .withPartitions(t.partitions)
                .withReplicas(t.replicas)
                .withConfig(config)
                .endSpec()
                .build();
    }
}
