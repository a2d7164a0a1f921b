package io.vigil.operator.engine.desired;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.vigil.operator.api.v1alpha1.DurabilitySpec;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.engine.Names;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Desired state of the relay: Deployment (without spec.replicas: KEDA's HPA owns it), management Service,
 * KEDA ScaledObject and TriggerAuthentication. KEDA has no Java model; its objects are rendered as
 * GenericKubernetesResource.
 */
public final class RelayWorkload {

    public static final int MANAGEMENT_PORT = 9091;
    public static final String CONSUMER_GROUP = "vigil-relay";
    public static final String KEDA_API_VERSION = "keda.sh/v1alpha1";

    private RelayWorkload() {
    }

    static List<EnvVar> relayEnv(FraudEngine fe) {
        DurabilitySpec d = fe.getSpec().durability;
        RedisConnection redis = RedisConnection.of(fe);
        List<EnvVar> env = new ArrayList<>();
        EngineWorkload.redisClient(env, "QUARKUS_REDIS_", redis);
        EngineWorkload.add(env, "VIGIL_RELAY_STREAM", d.stream.name);
        EngineWorkload.add(env, "VIGIL_RELAY_STREAMS", d.stream.shards);
        EngineWorkload.add(env, "VIGIL_RELAY_GROUP", CONSUMER_GROUP);
        EngineWorkload.add(env, "VIGIL_RELAY_BATCH_SIZE", d.relay.batchSize);
        EngineWorkload.add(env, "VIGIL_RELAY_ENTRIES_PER_COMMAND", d.relay.entriesPerCommand);
        EngineWorkload.add(env, "VIGIL_RELAY_TOPIC", d.topic.name);
        EngineWorkload.add(env, "VIGIL_RELAY_BOOTSTRAP_SERVERS", KafkaCluster.bootstrapServers(fe));
        EngineWorkload.add(env, "JAVA_TOOL_OPTIONS", d.relay.jvmOptions);
        return env;
    }

    public static Deployment deployment(FraudEngine fe) {
        DurabilitySpec d = fe.getSpec().durability;
        var container = new ContainerBuilder()
                .withName("relay")
                .withImage(OperatorImages.relay(fe))
                .withImagePullPolicy(fe.getSpec().engine.imagePullPolicy)
                .addNewPort().withName("management").withContainerPort(MANAGEMENT_PORT).withProtocol("TCP").endPort()
                .withEnv(relayEnv(fe))
                .withResources(d.relay.resources != null ? d.relay.resources : EngineWorkload.defaultResources("250m", "384Mi", "768Mi"))
                .withStartupProbe(EngineWorkload.probe("/q/health/started", 1, 60, null))
                .withLivenessProbe(EngineWorkload.probe("/q/health/live", 10, 3, null))
                .withReadinessProbe(EngineWorkload.probe("/q/health/ready", 5, 2, null))
                .withSecurityContext(Security.container())
                // A container that exits without writing /dev/termination-log leaves the end of its log as
                // the termination message, which the FraudEngine status shows for a crash loop.
                .withTerminationMessagePolicy("FallbackToLogsOnError")
                .addNewVolumeMount().withName("tmp").withMountPath("/tmp").endVolumeMount();
        if (d.kafka.hasExternal() && d.kafka.external.secretRef != null) {
            // Client settings (e.g. SASL) for an external Kafka come from the referenced Secret as env vars.
            container.addNewEnvFrom().withNewSecretRef().withName(d.kafka.external.secretRef.name).endSecretRef().endEnvFrom();
        }
        Container relay = container.build();
        return new DeploymentBuilder()
                .withMetadata(Meta.of(fe, Names.relay(fe), Names.RELAY))
                .withNewSpec()
                // spec.replicas deliberately absent: the HPA that KEDA creates owns it (server-side apply
                // leaves fields this manager does not set alone).
                .withNewSelector().withMatchLabels(Names.selector(fe, Names.RELAY)).endSelector()
                .withNewStrategy().withType("RollingUpdate").withNewRollingUpdate()
                .withMaxUnavailable(new IntOrString(0)).withMaxSurge(new IntOrString(1)).endRollingUpdate().endStrategy()
                .withRevisionHistoryLimit(5)
                .withNewTemplate()
                .withNewMetadata().withLabels(Names.labels(fe, Names.RELAY)).endMetadata()
                .withNewSpec()
                .withServiceAccountName(Names.engine(fe))
                .withAutomountServiceAccountToken(false)
                .withSecurityContext(Security.pod())
                .withTerminationGracePeriodSeconds(60L)
                .withNodeSelector(EngineWorkload.nodeSelector(fe))
                .withTolerations(EngineWorkload.tolerations(fe))
                .withContainers(relay)
                .addNewVolume().withName("tmp").withNewEmptyDir().withSizeLimit(new Quantity("64Mi")).endEmptyDir().endVolume()
                .endSpec()
                .endTemplate()
                .endSpec()
                .build();
    }

    public static Service managementService(FraudEngine fe) {
        var meta = Meta.of(fe, Names.relay(fe) + "-management", Names.RELAY);
        meta.getLabels().put(Monitoring.METRICS_LABEL, "true");
        return new ServiceBuilder()
                .withMetadata(meta)
                .withNewSpec()
                .withType("ClusterIP")
                .withSelector(Names.selector(fe, Names.RELAY))
                .addNewPort().withName("management").withPort(MANAGEMENT_PORT).withTargetPort(new IntOrString("management")).withProtocol("TCP").endPort()
                .endSpec()
                .build();
    }

    /** Stream names as the engine writes them: the name itself, or name:0 .. name:N-1 when sharded. */
    public static List<String> streams(FraudEngine fe) {
        DurabilitySpec.Stream s = fe.getSpec().durability.stream;
        if (s.shards == 1) {
            return List.of(s.name);
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < s.shards; i++) {
            out.add(s.name + ":" + i);
        }
        return out;
    }

    /**
     * Two triggers per stream: consumer-group lag (entries not yet delivered to the relay) and pending
     * entries (delivered, not acknowledged: the relay is stuck on Kafka). KEDA scales on the largest.
     */
    public static GenericKubernetesResource scaledObject(FraudEngine fe) {
        DurabilitySpec.Relay r = fe.getSpec().durability.relay;
        RedisConnection redis = RedisConnection.of(fe);
        List<Map<String, Object>> triggers = new ArrayList<>();
        for (String stream : streams(fe)) {
            triggers.add(trigger(fe, redis, stream, "lag-" + stream, Map.of("lagCount", String.valueOf(r.lagThreshold))));
            triggers.add(trigger(fe, redis, stream, "pending-" + stream, Map.of("pendingEntriesCount", String.valueOf(r.pendingThreshold))));
        }
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("scaleTargetRef", Map.of("apiVersion", "apps/v1", "kind", "Deployment", "name", Names.relay(fe)));
        spec.put("minReplicaCount", r.minReplicas);
        spec.put("maxReplicaCount", r.maxReplicas);
        spec.put("pollingInterval", 15);
        spec.put("cooldownPeriod", 300);
        spec.put("triggers", triggers);
        return new GenericKubernetesResourceBuilder()
                .withApiVersion(KEDA_API_VERSION).withKind("ScaledObject")
                .withMetadata(Meta.of(fe, Names.relay(fe), Names.RELAY))
                .withAdditionalProperties(Map.of("spec", spec))
                .build();
    }

    private static Map<String, Object> trigger(FraudEngine fe, RedisConnection redis, String stream, String name, Map<String, String> threshold) {
        Map<String, Object> metadata = new LinkedHashMap<>();
        if (redis.sentinel()) {
            metadata.put("addresses", redis.address());
            metadata.put("sentinelMaster", redis.masterName());
        } else {
            metadata.put("address", redis.address());
        }
        metadata.put("stream", stream);
        metadata.put("consumerGroup", CONSUMER_GROUP);
        metadata.putAll(threshold);
        Map<String, Object> t = new LinkedHashMap<>();
        t.put("type", redis.sentinel() ? "redis-sentinel-streams" : "redis-streams");
        t.put("name", name.replace(':', '-').replace('.', '-').toLowerCase(java.util.Locale.ROOT));
        t.put("metadata", metadata);
        if (redis.password() != null) {
            t.put("authenticationRef", Map.of("name", triggerAuthenticationName(fe)));
        }
        return t;
    }

    public static String triggerAuthenticationName(FraudEngine fe) {
        return Names.relay(fe) + "-redis";
    }

    /** Only when the Redis has a password: KEDA reads it from the referenced Secret, never copied. */
    public static GenericKubernetesResource triggerAuthentication(FraudEngine fe) {
        RedisConnection redis = RedisConnection.of(fe);
        if (redis.password() == null) {
            // Not wanted (the workflow deletes it); rendered empty so its identity can still be computed.
            return new GenericKubernetesResourceBuilder().withApiVersion(KEDA_API_VERSION).withKind("TriggerAuthentication")
                    .withMetadata(Meta.of(fe, triggerAuthenticationName(fe), Names.RELAY)).build();
        }
        Map<String, Object> ref = new LinkedHashMap<>();
        ref.put("parameter", redis.sentinel() ? "sentinelPassword" : "password");
        ref.put("name", redis.password().name);
        ref.put("key", redis.password().key);
        List<Map<String, Object>> refs = new ArrayList<>(List.of(ref));
        if (redis.sentinel()) {
            Map<String, Object> data = new LinkedHashMap<>(ref);
            data.put("parameter", "password");
            refs.add(data);
        }
        return new GenericKubernetesResourceBuilder()
                .withApiVersion(KEDA_API_VERSION).withKind("TriggerAuthentication")
                .withMetadata(Meta.of(fe, triggerAuthenticationName(fe), Names.RELAY))
                .withAdditionalProperties(Map.of("spec", Map.of("secretTargetRef", refs)))
                .build();
    }
}
