package io.vigil.operator.engine.dependent;

import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.DependentResource;
import io.javaoperatorsdk.operator.processing.dependent.workflow.Condition;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.engine.desired.Wanted;
import io.vigil.operator.support.OptionalCrds;
import io.vigil.operator.support.OptionalCrds.Crd;

/**
 * Workflow conditions. Activation conditions ("is the CRD installed?") keep the operator from watching
 * kinds the cluster does not have; reconcile preconditions ("does the spec want it?") delete what the
 * spec no longer asks for.
 */
public final class Conditions {
    private Conditions() {
    }

    abstract static class CrdInstalled implements Condition<Object, FraudEngine> {
        private final Crd crd;

        CrdInstalled(Crd crd) {
            this.crd = crd;
        }

        @Override
        public boolean isMet(DependentResource<Object, FraudEngine> dependent, FraudEngine fe, Context<FraudEngine> context) {
            return OptionalCrds.present(context.getClient(), crd);
        }
    }

    public static class KedaScaledObjectInstalled extends CrdInstalled {
        public KedaScaledObjectInstalled() {
            super(Crd.KEDA_SCALED_OBJECT);
        }
    }

    public static class KedaTriggerAuthenticationInstalled extends CrdInstalled {
        public KedaTriggerAuthenticationInstalled() {
            super(Crd.KEDA_TRIGGER_AUTHENTICATION);
        }
    }

    public static class ServiceMonitorInstalled extends CrdInstalled {
        public ServiceMonitorInstalled() {
            super(Crd.SERVICE_MONITOR);
        }
    }

    public static class PrometheusRuleInstalled extends CrdInstalled {
        public PrometheusRuleInstalled() {
            super(Crd.PROMETHEUS_RULE);
        }
    }

    public static class StrimziKafkaInstalled extends CrdInstalled {
        public StrimziKafkaInstalled() {
            super(Crd.STRIMZI_KAFKA);
        }
    }

    public static class StrimziNodePoolInstalled extends CrdInstalled {
        public StrimziNodePoolInstalled() {
            super(Crd.STRIMZI_NODE_POOL);
        }
    }

    public static class StrimziTopicInstalled extends CrdInstalled {
        public StrimziTopicInstalled() {
            super(Crd.STRIMZI_TOPIC);
        }
    }

    public static class RedisInstalled extends CrdInstalled {
        public RedisInstalled() {
            super(Crd.REDIS);
        }
    }

    public static class RedisReplicationInstalled extends CrdInstalled {
        public RedisReplicationInstalled() {
            super(Crd.REDIS_REPLICATION);
        }
    }

    public static class RedisSentinelInstalled extends CrdInstalled {
        public RedisSentinelInstalled() {
            super(Crd.REDIS_SENTINEL);
        }
    }

    abstract static class SpecCondition implements Condition<Object, FraudEngine> {
        abstract boolean wanted(FraudEngine fe);

        @Override
        public boolean isMet(DependentResource<Object, FraudEngine> dependent, FraudEngine fe, Context<FraudEngine> context) {
            return wanted(fe);
        }
    }

    public static class AutoscalingEnabled extends SpecCondition {
        @Override
        boolean wanted(FraudEngine fe) {
            return Wanted.autoscaling(fe);
        }
    }

    public static class RedisStandaloneManaged extends SpecCondition {
        @Override
        boolean wanted(FraudEngine fe) {
            return Wanted.redisStandalone(fe);
        }
    }

    public static class RedisReplicationManaged extends SpecCondition {
        @Override
        boolean wanted(FraudEngine fe) {
            return Wanted.redisReplication(fe);
        }
    }

    public static class RedisManaged extends SpecCondition {
        @Override
        boolean wanted(FraudEngine fe) {
            return Wanted.redisManaged(fe);
        }
    }

    public static class RedisPasswordSet extends SpecCondition {
        @Override
        boolean wanted(FraudEngine fe) {
            return Wanted.redisPassword(fe);
        }
    }

    public static class KafkaManaged extends SpecCondition {
        @Override
        boolean wanted(FraudEngine fe) {
            return Wanted.kafkaManaged(fe);
        }
    }

    public static class ServiceMonitorEnabled extends SpecCondition {
        @Override
        boolean wanted(FraudEngine fe) {
            return Wanted.serviceMonitor(fe);
        }
    }

    public static class PrometheusRuleEnabled extends SpecCondition {
        @Override
        boolean wanted(FraudEngine fe) {
            return Wanted.prometheusRule(fe);
        }
    }

    public static class DashboardEnabled extends SpecCondition {
        @Override
        boolean wanted(FraudEngine fe) {
            return Wanted.dashboard(fe);
        }
    }
}
