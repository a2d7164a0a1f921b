package io.vigil.operator.engine;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.strimzi.api.kafka.model.kafka.Kafka;
import io.vigil.operator.support.OptionalCrds;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the cluster looked like after the dependents were reconciled: the inputs of the status besides
 * the spec and the plan.
 *
 * @param redis       the managed Redis as redis-operator runs it (all null parts for an external one)
 * @param missingCrds optional CRDs this FraudEngine needs and the cluster lacks
 * @param failures    dependents the last reconciliation could not apply, sorted by name
 * @param enginePods  the engine Deployment's pods (their container statuses explain an engine that is not available)
 * @param relayPods   the relay Deployment's pods
 */
public record Observed(Deployment engine, Deployment relay, Kafka kafka, ManagedRedis redis,
                       Set<OptionalCrds.Crd> missingCrds, List<DependentFailure> failures,
                       List<Pod> enginePods, List<Pod> relayPods) {

    public Observed {
        redis = redis == null ? ManagedRedis.NONE : redis;
        failures = failures == null ? List.of() : List.copyOf(failures);
        enginePods = enginePods == null ? List.of() : List.copyOf(enginePods);
        relayPods = relayPods == null ? List.of() : List.copyOf(relayPods);
    }

    public Observed(Deployment engine, Deployment relay, Kafka kafka, ManagedRedis redis,
                    Set<OptionalCrds.Crd> missingCrds, List<DependentFailure> failures) {
        this(engine, relay, kafka, redis, missingCrds, failures, List.of(), List.of());
    }

    /**
     * The redis-operator objects of a managed Redis and the StatefulSets redis-operator made for them.
     *
     * @param store        the {@code Redis} (standalone) or {@code RedisReplication} custom resource
     * @param storePods    StatefulSet {@code <fe>-redis} (redis-operator names it after the CR)
     * @param sentinelPods StatefulSet {@code <fe>-redis-sentinel} (replication mode only)
     */
    public record ManagedRedis(GenericKubernetesResource store, StatefulSet storePods, StatefulSet sentinelPods) {
        public static final ManagedRedis NONE = new ManagedRedis(null, null, null);

        /** A status field of the redis-operator resource ({@code state}, {@code reason}, {@code masterNode}), or null. */
        public String storeStatus(String field) {
            if (store == null || !(store.getAdditionalProperties().get("status") instanceof Map<?, ?> status)) {
                return null;
            }
            Object v = status.get(field);
            return v == null || v.toString().isBlank() ? null : v.toString();
        }

        static int ready(StatefulSet s) {
            return s == null || s.getStatus() == null || s.getStatus().getReadyReplicas() == null ? 0 : s.getStatus().getReadyReplicas();
        }
    }
}
