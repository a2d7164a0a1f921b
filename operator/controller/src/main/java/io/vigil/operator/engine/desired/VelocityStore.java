package io.vigil.operator.engine.desired;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.api.v1alpha1.VelocitySpec;
import io.vigil.operator.engine.Names;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Managed Redis through the OT redis-operator (redis.redis.opstreelabs.in/v1beta2): a Redis for
 * standalone, a RedisReplication plus a RedisSentinel for replication. There is no Java model of those
 * CRDs, so they are GenericKubernetesResource.
 *
 * <p>One Redis holds the velocity counters and the decision streams (ADR 0011): AOF with a once-a-second
 * fsync, {@code maxmemory} below the container's memory limit and {@code noeviction}, so a full Redis
 * refuses writes (velocity DEGRADED, outbox retrying, both counted) instead of silently evicting stream
 * entries or windows. Velocity keys are bounded by their TTLs, streams by MAXLEN.
 */
public final class VelocityStore {

    public static final String API_VERSION = "redis.redis.opstreelabs.in/v1beta2";
    public static final String SENTINEL_IMAGE = "quay.io/opstree/redis-sentinel:v7.0.15";

    private VelocityStore() {
    }

    /** Memory limit of a Redis pod whose spec sets none (and so the basis of its maxmemory). */
    public static final Quantity DEFAULT_MEMORY = new Quantity("1Gi");
    /**
     * The CPU a Redis pod requests when the spec sets none, as much as an engine pod. Without a request a
     * pod gets the node's smallest CPU weight: on a busy node Redis, which every decision waits for, was the
     * first process kept off a core, and answers missed the deadline on a healthy Redis
     * (docs/adr/0025-redis-cpu-weight.md). No CPU limit: a CFS quota would stop Redis for the rest of a
     * 100 ms period once spent.
     */
    public static final String DEFAULT_CPU_REQUEST = "500m";
    /**
     * Share of the container's memory limit Redis may fill: the rest covers the AOF rewrite's fork
     * (copy-on-write pages while it runs), client and replication buffers and allocator fragmentation.
     */
    static final double MAXMEMORY_SHARE = 0.75;
    /** The redis-operator mounts this key of the additionalRedisConfig ConfigMap and includes it in redis.conf. */
    public static final String CONFIG_KEY = "redis-additional.conf";

    /** redis.conf lines for the managed Redis (redis-operator's additionalRedisConfig). */
    public static ConfigMap config(FraudEngine fe) {
        VelocitySpec.ManagedRedis m = fe.getSpec().velocity.redis.managedOrDefault();
        String conf = String.join("\n",
                "# Rendered by the Vigil operator from FraudEngine " + fe.getMetadata().getName() + " (docs/adr/0011-redis-layout.md).",
                "# Streams must not be evicted and must survive a restart; velocity keys expire by TTL.",
                "appendonly yes",
                "appendfsync everysec",
                "# AOF rewrites (each a fork that stops Redis) rare, within the volume (docs/adr/0019-decision-path-first.md)",
                "auto-aof-rewrite-min-size " + aofRewriteMinSizeBytes(m),
                "maxmemory " + maxMemoryBytes(m),
                "maxmemory-policy noeviction",
                "");
        return new ConfigMapBuilder()
                .withMetadata(Meta.of(fe, Names.redisConfig(fe), "redis"))
                .addToData(CONFIG_KEY, conf)
                .build();
    }

    /** The memory limit the Redis container gets: the spec's limit, else its request, else 1Gi. */
    static Quantity memoryLimit(VelocitySpec.ManagedRedis m) {
        ResourceRequirements r = m.resources;
        if (r != null && r.getLimits() != null && r.getLimits().get("memory") != null) {
            return r.getLimits().get("memory");
        }
        if (r != null && r.getRequests() != null && r.getRequests().get("memory") != null) {
            return r.getRequests().get("memory");
        }
        return DEFAULT_MEMORY;
    }

    /**
     * The AOF growth that triggers a rewrite: a quarter of the volume (the volume holds the base and the
     * growth, and a rewrite writes a new base beside the old one), between Redis' default 64 MB and the
     * local platform's 512 MB. 1Gi, the default volume, gives 256 MB.
     */
    static long aofRewriteMinSizeBytes(VelocitySpec.ManagedRedis m) {
        long quarter = Quantity.getAmountInBytes(new Quantity(m.storage)).longValue() / 4;
        return Math.max(64L << 20, Math.min(512L << 20, quarter));
    }

    static long maxMemoryBytes(VelocitySpec.ManagedRedis m) {
        return (long) (Quantity.getAmountInBytes(memoryLimit(m)).longValue() * MAXMEMORY_SHARE);
    }

    public static GenericKubernetesResource standalone(FraudEngine fe) {
        VelocitySpec.ManagedRedis m = fe.getSpec().velocity.redis.managedOrDefault();
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("kubernetesConfig", kubernetesConfig(m, m.image));
        spec.put("redisConfig", Map.of("additionalRedisConfig", Names.redisConfig(fe)));
        spec.put("storage", storage(m));
        spec.put("securityContext", Map.of("runAsNonRoot", true, "runAsUser", 1000, "fsGroup", 1000));
        return resource(fe, "Redis", Names.redis(fe), spec);
    }

    public static GenericKubernetesResource replication(FraudEngine fe) {
        VelocitySpec.ManagedRedis m = fe.getSpec().velocity.redis.managedOrDefault();
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("clusterSize", m.sizeOrDefault());
        spec.put("kubernetesConfig", kubernetesConfig(m, m.image));
        spec.put("redisConfig", Map.of("additionalRedisConfig", Names.redisConfig(fe)));
        spec.put("storage", storage(m));
        spec.put("securityContext", Map.of("runAsNonRoot", true, "runAsUser", 1000, "fsGroup", 1000));
        return resource(fe, "RedisReplication", Names.redis(fe), spec);
    }

    public static GenericKubernetesResource sentinel(FraudEngine fe) {
        VelocitySpec.ManagedRedis m = fe.getSpec().velocity.redis.managedOrDefault();
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("clusterSize", m.sentinels);
        spec.put("kubernetesConfig", sentinelConfig(m));
        Map<String, Object> cfg = new LinkedHashMap<>();
        cfg.put("redisReplicationName", Names.redis(fe));
        cfg.put("masterGroupName", RedisConnection.MASTER_GROUP);
        cfg.put("quorum", String.valueOf(m.sentinels / 2 + 1));
        spec.put("redisSentinelConfig", cfg);
        return resource(fe, "RedisSentinel", Names.redis(fe), spec);
    }

    /**
     * Redis pods always get a memory limit (maxmemory is a share of it; the default when the spec sets none)
     * and a CPU request ({@link #DEFAULT_CPU_REQUEST} when the spec sets none).
     */
    private static Map<String, Object> kubernetesConfig(VelocitySpec.ManagedRedis m, String image) {
        Map<String, Object> k = new LinkedHashMap<>();
        k.put("image", image);
        k.put("imagePullPolicy", "IfNotPresent");
        ResourceRequirements r = m.resources;
        Map<String, String> requests = new LinkedHashMap<>(r != null && r.getRequests() != null ? quantities(r.getRequests()) : Map.of());
        Map<String, String> limits = new LinkedHashMap<>(r != null && r.getLimits() != null ? quantities(r.getLimits()) : Map.of());
        limits.putIfAbsent("memory", memoryLimit(m).toString());
        requests.putIfAbsent("memory", limits.get("memory"));
        requests.putIfAbsent("cpu", DEFAULT_CPU_REQUEST);
        k.put("resources", Map.of("requests", requests, "limits", limits));
        passwordSecret(m, k);
        return k;
    }

    /**
     * Sentinels hold no data: a small fixed size, not the Redis pods' resources (which would reserve a
     * data node's memory, 16Gi in production, three more times for nothing).
     */
    private static Map<String, Object> sentinelConfig(VelocitySpec.ManagedRedis m) {
        Map<String, Object> k = new LinkedHashMap<>();
        k.put("image", SENTINEL_IMAGE);
        k.put("imagePullPolicy", "IfNotPresent");
        k.put("resources", Map.of("requests", Map.of("cpu", "50m", "memory", "64Mi"), "limits", Map.of("memory", "128Mi")));
        passwordSecret(m, k);
        return k;
    }

    private static void passwordSecret(VelocitySpec.ManagedRedis m, Map<String, Object> k) {
        if (m.passwordSecretRef != null) {
            k.put("redisSecret", Map.of("name", m.passwordSecretRef.name, "key", m.passwordSecretRef.key));
        }
    }

    private static Map<String, String> quantities(Map<String, io.fabric8.kubernetes.api.model.Quantity> q) {
        Map<String, String> out = new LinkedHashMap<>();
        q.forEach((k, v) -> out.put(k, v.toString()));
        return out;
    }

    private static Map<String, Object> storage(VelocitySpec.ManagedRedis m) {
        return Map.of("volumeClaimTemplate", Map.of("spec", Map.of(
                "accessModes", List.of("ReadWriteOnce"),
                "resources", Map.of("requests", Map.of("storage", m.storage)))));
    }

    private static GenericKubernetesResource resource(FraudEngine fe, String kind, String name, Map<String, Object> spec) {
        return new GenericKubernetesResourceBuilder()
                .withApiVersion(API_VERSION).withKind(kind)
                .withMetadata(Meta.of(fe, name, "redis"))
                .withAdditionalProperties(Map.of("spec", spec))
                .build();
    }
}
