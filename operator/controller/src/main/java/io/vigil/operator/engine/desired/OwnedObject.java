package io.vigil.operator.engine.desired;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.engine.EnginePlan;
import io.vigil.operator.support.OptionalCrds.Crd;
import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Every object a FraudEngine owns, in one table: the workflow dependent's name, the optional CRD it
 * needs (null for core kinds), when the spec wants it, and how it is built. The workflow's conditions
 * ({@code dependent/Conditions}), {@link DesiredState#all} and the reconciler's missing CRDs are derived
 * from it; the {@code @Workflow} annotation lists the dependent classes by these names (a test checks
 * that both agree). Order: the workflow's.
 */
public enum OwnedObject {
    RULESET_CONFIGMAPS("ruleset-configmaps", null, null,
            plan -> List.copyOf(EngineWorkload.rulesetConfigMaps(plan).values())),
    ENGINE_SERVICE_ACCOUNT("engine-serviceaccount", null, null,
            plan -> List.of(EngineWorkload.serviceAccount(plan.engine()))),
    ENGINE_DEPLOYMENT("engine-deployment", null, null, plan -> List.of(EngineWorkload.deployment(plan))),
    ENGINE_SERVICE("engine-service", null, null, plan -> List.of(EngineWorkload.dataService(plan.engine()))),
    ENGINE_MANAGEMENT_SERVICE("engine-management-service", null, null,
            plan -> List.of(EngineWorkload.managementService(plan.engine()))),
    ENGINE_PDB("engine-pdb", null, null, plan -> List.of(EngineWorkload.podDisruptionBudget(plan.engine()))),
    ENGINE_NETWORK_POLICY("engine-networkpolicy", null, null,
            plan -> List.of(NetworkPolicies.engine(plan.engine()))),
    ENGINE_HPA("engine-hpa", null, Wanted::autoscaling,
            plan -> List.of(EngineWorkload.horizontalPodAutoscaler(plan.engine()))),
    RELAY_DEPLOYMENT("relay-deployment", null, null, plan -> List.of(RelayWorkload.deployment(plan.engine()))),
    RELAY_MANAGEMENT_SERVICE("relay-management-service", null, null,
            plan -> List.of(RelayWorkload.managementService(plan.engine()))),
    RELAY_NETWORK_POLICY("relay-networkpolicy", null, null,
            plan -> List.of(NetworkPolicies.relay(plan.engine()))),
    RELAY_SCALED_OBJECT("relay-scaledobject", Crd.KEDA_SCALED_OBJECT, null,
            plan -> List.of(RelayWorkload.scaledObject(plan.engine()))),
    RELAY_TRIGGER_AUTHENTICATION("relay-triggerauthentication", Crd.KEDA_TRIGGER_AUTHENTICATION, Wanted::redisPassword,
            plan -> List.of(RelayWorkload.triggerAuthentication(plan.engine()))),
    REDIS_CONFIG("redis-config", null, Wanted::redisManaged, plan -> List.of(VelocityStore.config(plan.engine()))),
    REDIS_STANDALONE("redis-standalone", Crd.REDIS, Wanted::redisStandalone,
            plan -> List.of(VelocityStore.standalone(plan.engine()))),
    REDIS_REPLICATION("redis-replication", Crd.REDIS_REPLICATION, Wanted::redisReplication,
            plan -> List.of(VelocityStore.replication(plan.engine()))),
    REDIS_SENTINEL("redis-sentinel", Crd.REDIS_SENTINEL, Wanted::redisReplication,
            plan -> List.of(VelocityStore.sentinel(plan.engine()))),
    KAFKA("kafka", Crd.STRIMZI_KAFKA, Wanted::kafkaManaged, plan -> List.of(KafkaCluster.kafka(plan.engine()))),
    KAFKA_NODE_POOL("kafka-nodepool", Crd.STRIMZI_NODE_POOL, Wanted::kafkaManaged,
            plan -> List.of(KafkaCluster.nodePool(plan.engine()))),
    KAFKA_TOPIC("kafka-topic", Crd.STRIMZI_TOPIC, Wanted::kafkaManaged, plan -> List.of(KafkaCluster.topic(plan.engine()))),
    SERVICE_MONITOR("servicemonitor", Crd.SERVICE_MONITOR, Wanted::serviceMonitor,
            plan -> List.of(Monitoring.serviceMonitor(plan.engine()))),
    PROMETHEUS_RULE("prometheusrule", Crd.PROMETHEUS_RULE, Wanted::prometheusRule,
            plan -> List.of(Monitoring.prometheusRule(plan.engine()))),
    GRAFANA_DASHBOARD("grafana-dashboard", null, Wanted::dashboard, plan -> List.of(Monitoring.dashboard(plan.engine()))),
    ENGINE_CERTIFICATE("engine-certificate", Crd.CERT_MANAGER_CERTIFICATE, Wanted::engineCertificate,
            plan -> List.of(EngineCallerAuth.certificate(plan.engine())));

    /** The workflow dependent's name ({@code @Dependent(name = ...)}). */
    public final String dependentName;
    /** The optional CRD its kind needs, or null for a core kind. */
    public final Crd crd;
    /** null: always. */
    private final Predicate<FraudEngine> wanted;
    private final Function<EnginePlan, List<? extends HasMetadata>> build;

    OwnedObject(String dependentName, Crd crd, Predicate<FraudEngine> wanted,
                Function<EnginePlan, List<? extends HasMetadata>> build) {
        this.dependentName = dependentName;
        this.crd = crd;
        this.wanted = wanted;
        this.build = build;
    }

    /** Whether the spec asks for it (an optional CRD aside). */
    public boolean wanted(FraudEngine fe) {
        return wanted == null || wanted.test(fe);
    }

    /** Whether every spec asks for it (the workflow has no reconcile precondition for it). */
    public boolean always() {
        return wanted == null;
    }

    public List<? extends HasMetadata> build(EnginePlan plan) {
        return build.apply(plan);
    }

    /** The row of the dependent named {@code name}. */
    public static OwnedObject named(String name) {
        for (OwnedObject o : values()) {
            if (o.dependentName.equals(name)) {
                return o;
            }
        }
        throw new IllegalArgumentException("no owned object for dependent " + name);
    }
}
