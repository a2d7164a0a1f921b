package io.vigil.operator.engine.desired;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
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
 */
public final class VelocityStore {

    public static final String API_VERSION = "redis.redis.opstreelabs.in/v1beta2";
    public static final String SENTINEL_IMAGE = "quay.io/opstree/redis-sentinel:v7.0.15";

    private VelocityStore() {
    }

    public static GenericKubernetesResource standalone(FraudEngine fe) {
        VelocitySpec.ManagedRedis m = fe.getSpec().velocity.redis.managedOrDefault();
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("kubernetesConfig", kubernetesConfig(m, m.image));
        spec.put("storage", storage(m));
        spec.put("securityContext", Map.of("runAsNonRoot", true, "runAsUser", 1000, "fsGroup", 1000));
        return resource(fe, "Redis", Names.redis(fe), spec);
    }

    public static GenericKubernetesResource replication(FraudEngine fe) {
        VelocitySpec.ManagedRedis m = fe.getSpec().velocity.redis.managedOrDefault();
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("clusterSize", m.sizeOrDefault());
        spec.put("kubernetesConfig", kubernetesConfig(m, m.image));
        spec.put("storage", storage(m));
        spec.put("securityContext", Map.of("runAsNonRoot", true, "runAsUser", 1000, "fsGroup", 1000));
        return resource(fe, "RedisReplication", Names.redis(fe), spec);
    }

    public static GenericKubernetesResource sentinel(FraudEngine fe) {
        VelocitySpec.ManagedRedis m = fe.getSpec().velocity.redis.managedOrDefault();
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("clusterSize", m.sentinels);
        spec.put("kubernetesConfig", kubernetesConfig(m, SENTINEL_IMAGE));
        Map<String, Object> cfg = new LinkedHashMap<>();
        cfg.put("redisReplicationName", Names.redis(fe));
        cfg.put("masterGroupName", RedisConnection.MASTER_GROUP);
        cfg.put("quorum", String.valueOf(m.sentinels / 2 + 1));
        spec.put("redisSentinelConfig", cfg);
        return resource(fe, "RedisSentinel", Names.redis(fe), spec);
    }

    private static Map<String, Object> kubernetesConfig(VelocitySpec.ManagedRedis m, String image) {
        Map<String, Object> k = new LinkedHashMap<>();
        k.put("image", image);
        k.put("imagePullPolicy", "IfNotPresent");
        ResourceRequirements r = m.resources;
        if (r != null) {
            Map<String, Object> res = new LinkedHashMap<>();
            if (r.getRequests() != null && !r.getRequests().isEmpty()) {
                res.put("requests", quantities(r.getRequests()));
            }
            if (r.getLimits() != null && !r.getLimits().isEmpty()) {
                res.put("limits", quantities(r.getLimits()));
            }
            k.put("resources", res);
        }
        if (m.passwordSecretRef != null) {
            k.put("redisSecret", Map.of("name", m.passwordSecretRef.name, "key", m.passwordSecretRef.key));
        }
        return k;
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
