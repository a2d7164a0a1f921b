package io.vigil.operator.engine.desired;

import io.vigil.operator.api.v1alpha1.FraudEngine;

/**
 * Which optional objects a spec asks for; shared by the workflow's preconditions and {@link DesiredState}.
 * A managed Redis or Kafka only when the spec sets {@code managed} (the schema refuses a spec with neither).
 */
public final class Wanted {
    private Wanted() {
    }

    public static boolean autoscaling(FraudEngine fe) {
        return fe.getSpec().engine.autoscaling != null;
    }

    public static boolean redisStandalone(FraudEngine fe) {
        var r = fe.getSpec().velocity.redis;
        return r.hasManaged() && !r.managed.replication();
    }

    public static boolean redisReplication(FraudEngine fe) {
        var r = fe.getSpec().velocity.redis;
        return r.hasManaged() && r.managed.replication();
    }

    public static boolean redisManaged(FraudEngine fe) {
        return fe.getSpec().velocity.redis.hasManaged();
    }

    public static boolean redisPassword(FraudEngine fe) {
        return RedisConnection.of(fe).password() != null;
    }

    public static boolean kafkaManaged(FraudEngine fe) {
        return fe.getSpec().durability.kafka.hasManaged();
    }

    public static boolean serviceMonitor(FraudEngine fe) {
        return Boolean.TRUE.equals(fe.getSpec().observability.serviceMonitor.enabled);
    }

    public static boolean prometheusRule(FraudEngine fe) {
        return Boolean.TRUE.equals(fe.getSpec().observability.prometheusRule.enabled);
    }

    /** A cert-manager Certificate: the data port serves TLS and spec.auth.tls names an issuer. */
    public static boolean engineCertificate(FraudEngine fe) {
        return EngineCallerAuth.certificateIssuer(fe) != null;
    }

    public static boolean dashboard(FraudEngine fe) {
        return Boolean.TRUE.equals(fe.getSpec().observability.grafanaDashboard.enabled);
    }
}
