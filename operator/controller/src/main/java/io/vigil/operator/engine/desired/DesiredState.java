package io.vigil.operator.engine.desired;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.engine.EnginePlan;
import java.util.ArrayList;
import java.util.List;

/**
 * Everything a FraudEngine owns, in one list: what the workflow's dependents apply when every optional
 * CRD is installed. Used by the golden tests and by docs; the dependents call the same functions one by one.
 */
public final class DesiredState {
    private DesiredState() {
    }

    public static List<HasMetadata> all(EnginePlan plan) {
        FraudEngine fe = plan.engine();
        List<HasMetadata> out = new ArrayList<>(EngineWorkload.rulesetConfigMaps(plan).values());
        out.add(EngineWorkload.serviceAccount(fe));
        out.add(EngineWorkload.deployment(plan));
        out.add(EngineWorkload.dataService(fe));
        out.add(EngineWorkload.managementService(fe));
        out.add(EngineWorkload.podDisruptionBudget(fe));
        out.add(NetworkPolicies.engine(fe));
        if (Wanted.autoscaling(fe)) {
            out.add(EngineWorkload.horizontalPodAutoscaler(fe));
        }
        out.add(RelayWorkload.deployment(fe));
        out.add(RelayWorkload.managementService(fe));
        out.add(NetworkPolicies.relay(fe));
        out.add(RelayWorkload.scaledObject(fe));
        if (Wanted.redisPassword(fe)) {
            out.add(RelayWorkload.triggerAuthentication(fe));
        }
        if (Wanted.redisManaged(fe)) {
            out.add(VelocityStore.config(fe));
        }
        if (Wanted.redisStandalone(fe)) {
            out.add(VelocityStore.standalone(fe));
        }
        if (Wanted.redisReplication(fe)) {
            out.add(VelocityStore.replication(fe));
            out.add(VelocityStore.sentinel(fe));
        }
        if (Wanted.kafkaManaged(fe)) {
            out.add(KafkaCluster.kafka(fe));
            out.add(KafkaCluster.nodePool(fe));
            out.add(KafkaCluster.topic(fe));
        }
        if (Wanted.serviceMonitor(fe)) {
            out.add(Monitoring.serviceMonitor(fe));
        }
        if (Wanted.prometheusRule(fe)) {
            out.add(Monitoring.prometheusRule(fe));
        }
        if (Wanted.dashboard(fe)) {
            out.add(Monitoring.dashboard(fe));
        }
        return out;
    }
}
