package io.vigil.operator.engine;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.vigil.operator.api.v1alpha1.EngineSpec;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.api.v1alpha1.FraudEngineStatus;
import io.vigil.operator.api.v1alpha1.VelocitySpec;
import io.vigil.operator.engine.desired.EngineCallerAuth;
import io.vigil.operator.engine.desired.EngineWorkload;
import io.vigil.operator.engine.desired.KafkaCluster;
import io.vigil.operator.support.OptionalCrds.Crd;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * Computes the FraudEngine status from the plan and what was observed. Pure (the clock is a parameter):
 * each condition carries the generation it was computed for, and keeps its lastTransitionTime while its
 * status does not change.
 */
public final class StatusAggregator {

    public static final String READY = "Ready";
    public static final String RULESETS_VALID = "RulesetsValid";
    public static final String SECRETS_VALID = "SecretsValid";
    public static final String VELOCITY_STORE_READY = "VelocityStoreReady";
    public static final String DURABILITY_READY = "DurabilityReady";
    public static final String PROGRESSING = "Progressing";
    public static final String DEGRADED = "Degraded";

    /** Degraded and Ready reason while a dependent cannot be applied. */
    public static final String DEPENDENT_FAILED = "DependentFailed";
    /** VelocityStoreReady reason (status Unknown) for an external Redis. */
    public static final String EXTERNAL = "External";
    /** VelocityStoreReady reason (status True): serving, with fewer Redis pods or sentinels than asked for. */
    public static final String REDUCED_REDUNDANCY = "ReducedRedundancy";

    private StatusAggregator() {
    }

    public static FraudEngineStatus aggregate(EnginePlan plan, Observed observed, Instant now) {
        FraudEngine fe = plan.engine();
        long generation = fe.getMetadata().getGeneration() == null ? 0 : fe.getMetadata().getGeneration();
        List<Condition> previous = fe.getStatus() == null || fe.getStatus().conditions == null ? List.of() : fe.getStatus().conditions;
        String time = now.truncatedTo(ChronoUnit.SECONDS).toString();

        FraudEngineStatus s = new FraudEngineStatus();
        s.observedGeneration = generation;
        for (EnginePlan.PlannedRuleset r : plan.rulesets()) {
            s.activeRulesets.add(new FraudEngineStatus.ActiveRuleset(r.key(), r.version(), r.checksum(), r.configMapName()));
        }
        s.rulesets = plan.rulesets().stream().map(r -> r.key() + ":v" + r.version()).collect(Collectors.joining(","));
        Deployment engine = observed.engine();
        s.replicas = desiredReplicas(plan, engine);
        s.readyReplicas = engine == null || engine.getStatus() == null ? 0 : nz(engine.getStatus().getReadyReplicas());
        s.relayReplicas = observed.relay() == null || observed.relay().getStatus() == null ? 0 : nz(observed.relay().getStatus().getReadyReplicas());
        s.endpoints = new FraudEngineStatus.Endpoints();
        String ns = fe.getMetadata().getNamespace();
        // with mutual TLS the data port serves HTTPS only: the URL callers must use
        boolean dataTls = fe.getSpec().auth != null && fe.getSpec().auth.data.mutualTls;
        s.endpoints.data = (dataTls ? "https://" : "http://") + Names.engine(fe) + "." + ns + ".svc:" + EngineWorkload.DATA_PORT;
        s.endpoints.management = (io.vigil.operator.engine.desired.EngineCallerAuth.managementTls(fe) ? "https://" : "http://") + Names.engineManagement(fe) + "." + ns + ".svc:" + EngineWorkload.MANAGEMENT_PORT;

        Condition velocity = velocityStore(fe, observed);
        Condition durability = durabilityReady(fe, observed, s);
        boolean rolledOut = rolledOut(engine, s.replicas);
        List<Condition> c = new ArrayList<>();
        c.add(ready(plan, observed, s, velocity, durability, rolledOut));
        c.add(rulesetsValid(plan, s));
        c.add(secretsValid(plan));
        c.add(velocity);
        c.add(durability);
        c.add(progressing(engine, s, rolledOut));
        c.add(degraded(plan, observed, velocity));

        for (Condition cond : c) {
            cond.setObservedGeneration(generation);
            Condition before = previous.stream().filter(p -> cond.getType().equals(p.getType())).findFirst().orElse(null);
            cond.setLastTransitionTime(before != null && Objects.equals(before.getStatus(), cond.getStatus()) && before.getLastTransitionTime() != null
                    ? before.getLastTransitionTime() : time);
        }
        s.conditions = c;
        return s;
    }

    /** RulesetsValid: every requested ruleset version is valid and configured. */
    static Condition rulesetsValid(EnginePlan plan, FraudEngineStatus s) {
        return plan.allRequestedServed()
                ? cond(RULESETS_VALID, true, "AllServed", "every requested ruleset version is valid and configured: " + s.rulesets)
                : cond(RULESETS_VALID, false, plan.problems().get(0).reason(), plan.problems().stream().map(EnginePlan.RulesetProblem::message)
                        .collect(Collectors.joining("; ")) + (plan.rulesets().isEmpty() ? "" : "; still serving " + s.rulesets));
    }

    /**
     * SecretsValid: every Secret the engine pods mount (spec.auth, spec.personalData) exists, has the
     * key and holds what the engine reads. The first problem's reason wins, the message names each.
     */
    static Condition secretsValid(EnginePlan plan) {
        if (plan.secretsUsable()) {
            var mounted = EngineCallerAuth.secrets(plan.engine()).stream().map(m -> m.secret() + "/" + m.key()).toList();
            String usable = mounted.isEmpty() ? "no Secret is referenced by spec.auth or spec.personalData"
                    : "every referenced Secret key is there and usable: " + String.join(", ", mounted);
            // Certificates past or near their notAfter: said, nothing held (the pods already serve them; renewing fixes it).
            var expiry = plan.secretProblems();
            if (expiry.isEmpty()) {
                return cond(SECRETS_VALID, true, "AllUsable", usable);
            }
            boolean expired = expiry.stream().anyMatch(p -> SecretChecks.CERTIFICATE_EXPIRED.equals(p.reason()));
            String notes = expiry.stream().map(SecretChecks.SecretProblem::message).collect(Collectors.joining("; "));
            return expired
                    ? cond(SECRETS_VALID, false, SecretChecks.CERTIFICATE_EXPIRED, notes + "; renew it (nothing is held); " + usable)
                    : cond(SECRETS_VALID, true, SecretChecks.CERTIFICATE_EXPIRES_SOON, notes + "; " + usable);
        }
        var blocking = plan.blockingSecretProblems();
        return cond(SECRETS_VALID, false, blocking.get(0).reason(), blocking.stream()
                .map(SecretChecks.SecretProblem::message).collect(Collectors.joining("; ")) + "; " + HELD);
    }

    private static final String HELD = "the engine Deployment and its ruleset ConfigMaps are held as they are until it is fixed"
            + " (no new engine pod mounts it)";

    /** DurabilityReady: the relay runs and Kafka is there. */
    static Condition durabilityReady(FraudEngine fe, Observed observed, FraudEngineStatus s) {
        var kafka = fe.getSpec().durability.kafka;
        boolean relayUp = s.relayReplicas > 0 || fe.getSpec().durability.relay.minReplicas == 0;
        if (!kafka.hasExternal() && (observed.missingCrds().contains(Crd.STRIMZI_KAFKA) || observed.missingCrds().contains(Crd.STRIMZI_NODE_POOL)
                || observed.missingCrds().contains(Crd.STRIMZI_TOPIC))) {
            return cond(DURABILITY_READY, false, "StrimziNotInstalled",
                    "Strimzi CRDs (kafka.strimzi.io) are not installed: install Strimzi, or set spec.durability.kafka.external");
        }
        if (!kafka.hasExternal() && !strimziReady(observed)) {
            return cond(DURABILITY_READY, false, "KafkaNotReady", "Strimzi Kafka " + Names.kafka(fe) + " is not Ready yet");
        }
        if (!relayUp) {
            return PodTrouble.of(observed.relayPods())
                    .map(t -> cond(DURABILITY_READY, false, "Relay" + t.reason(), "no relay pod is ready: " + t.message()))
                    .orElseGet(() -> cond(DURABILITY_READY, false, "RelayNotReady", "no relay pod is ready yet"));
        }
        return cond(DURABILITY_READY, true, "Ready", "relay ready (" + s.relayReplicas + "), Kafka at " + KafkaCluster.bootstrapServers(fe));
    }

    /** Progressing: the engine rollout (a new configuration, or a change of size). */
    static Condition progressing(Deployment engine, FraudEngineStatus s, boolean rolledOut) {
        return rolledOut
                ? cond(PROGRESSING, false, "RolloutComplete", s.readyReplicas + "/" + s.replicas + " engine pods ready on the current configuration")
                : cond(PROGRESSING, true, engine == null ? "Creating" : scaling(engine) ? "Scaling" : "RollingOut",
                        "engine pods: " + progress(engine, s.replicas));
    }

    /**
     * Degraded: something requested is not in effect. A failed dependent comes first: it is the one an
     * SRE must act on (the API server refused what the operator applied).
     */
    static Condition degraded(EnginePlan plan, Observed observed, Condition velocity) {
        List<String> degraded = new ArrayList<>();
        String degradedReason = null;
        if (!observed.failures().isEmpty()) {
            degradedReason = DEPENDENT_FAILED;
            degraded.add(observed.failures().size() + " dependent(s) failed to reconcile: "
                    + observed.failures().stream().map(DependentFailure::describe).collect(Collectors.joining("; ")));
        }
        if (observed.missingCrds().contains(Crd.CERT_MANAGER_CERTIFICATE)) {
            // before the Secret it would have written: the cause, not the consequence
            degradedReason = degradedReason == null ? "CertManagerNotInstalled" : degradedReason;
            degraded.add("cert-manager is not installed (CRD " + Crd.CERT_MANAGER_CERTIFICATE.crdName + "): no Certificate for"
                    + " spec.auth.tls.issuerRef, so nothing writes Secret " + plan.engine().getSpec().auth.tls.secretName
                    + "; install cert-manager, or write the Secret yourself and remove issuerRef");
        }
        if (!plan.secretsUsable()) {
            degradedReason = degradedReason == null ? plan.blockingSecretProblems().get(0).reason() : degradedReason;
            degraded.add(plan.blockingSecretProblems().size() + " referenced Secret problem(s), the engine configuration is held (see SecretsValid)");
        }
        List<SecretChecks.SecretProblem> expired = plan.secretProblems().stream()
                .filter(p -> SecretChecks.CERTIFICATE_EXPIRED.equals(p.reason())).toList();
        if (!expired.isEmpty()) {
            // Nothing is held (the pods already serve it), but TLS with it fails: callers refuse an expired
            // server certificate; certificates chained to an expired CA may be refused (verifiers differ).
            degradedReason = degradedReason == null ? SecretChecks.CERTIFICATE_EXPIRED : degradedReason;
            degraded.add(expired.stream().map(SecretChecks.SecretProblem::message).collect(Collectors.joining("; "))
                    + ": TLS handshakes that rely on it fail (callers refuse an expired server certificate; certificates"
                    + " chained to an expired CA may be refused). Renew it; the pods re-read the Secret within a minute, no restart"
                    + " (runbook fraudengine-not-ready §4)");
        }
        if (observed.missingCrds().contains(Crd.KEDA_SCALED_OBJECT)) {
            degradedReason = degradedReason == null ? "KedaNotInstalled" : degradedReason;
            degraded.add("KEDA is not installed (CRD " + Crd.KEDA_SCALED_OBJECT.crdName + "): the relay is not autoscaled");
        }
        if (observed.missingCrds().contains(Crd.SERVICE_MONITOR) || observed.missingCrds().contains(Crd.PROMETHEUS_RULE)) {
            degradedReason = degradedReason == null ? "PrometheusOperatorNotInstalled" : degradedReason;
            degraded.add("prometheus-operator CRDs (monitoring.coreos.com) are not installed: no ServiceMonitor/PrometheusRule");
        }
        if (!plan.allRequestedServed()) {
            degradedReason = degradedReason == null ? "RulesetNotServed" : degradedReason;
            degraded.add("a requested ruleset version is not served (see RulesetsValid)");
        }
        if (REDUCED_REDUNDANCY.equals(velocity.getReason())) {
            degradedReason = degradedReason == null ? "VelocityStoreRedundancyReduced" : degradedReason;
            degraded.add(velocity.getMessage());
        }
        return degraded.isEmpty()
                ? cond(DEGRADED, false, "AsExpected", "everything requested is in effect")
                : cond(DEGRADED, true, degradedReason, String.join("; ", degraded));
    }

    /**
     * Ready: the engine answers with its velocity store and durability path. The most specific reason
     * comes first: with nothing valid to serve, missing pods are a consequence, not the cause. Pods count
     * as serving from the available minimum (what the PodDisruptionBudget keeps), so a scale-up or a
     * rollout, which never takes capacity away (maxUnavailable 0), does not flip Ready.
     */
    static Condition ready(EnginePlan plan, Observed observed, FraudEngineStatus s, Condition velocity, Condition durability,
                           boolean rolledOut) {
        FraudEngine fe = plan.engine();
        Deployment engine = observed.engine();
        int available = engine == null || engine.getStatus() == null ? 0 : nz(engine.getStatus().getAvailableReplicas());
        int minimum = minimumAvailable(s.replicas);
        if (!observed.failures().isEmpty()) {
            return cond(READY, false, DEPENDENT_FAILED, "not everything requested could be applied: "
                    + observed.failures().stream().map(DependentFailure::dependent).collect(Collectors.joining(", ")) + " failed (see Degraded)");
        }
        if (plan.rulesets().isEmpty()) {
            return cond(READY, false, "NoRulesetServed", "no valid ruleset to serve (see RulesetsValid); the engine runs no pods until one is");
        }
        if ((available < minimum || available == 0) && !plan.secretsUsable()) {
            // Held for a Secret: no pod is started with it, so the Secret is the cause, not the pods.
            return cond(READY, false, plan.blockingSecretProblems().get(0).reason(), "engine Deployment " + Names.engine(fe) + ": "
                    + available + " pods available, " + minimum + " needed; " + plan.blockingSecretProblems().get(0).message()
                    + " (see SecretsValid)");
        }
        if (available < minimum || available == 0) {
            // The pods say why (image, crash loop, scheduling); the Deployment only counts them.
            String counts = "engine Deployment " + Names.engine(fe) + ": " + available + " pods available, " + minimum
                    + " needed (" + s.readyReplicas + "/" + s.replicas + " ready)";
            return PodTrouble.of(observed.enginePods())
                    .map(t -> cond(READY, false, t.reason(), counts + "; " + t.message()))
                    .orElseGet(() -> cond(READY, false, "EngineNotAvailable", counts));
        }
        if (!isTrue(velocity) && !EXTERNAL.equals(velocity.getReason())) {
            return cond(READY, false, "VelocityStoreNotReady", velocity.getMessage());
        }
        if (!isTrue(durability)) {
            return cond(READY, false, "DurabilityNotReady", durability.getMessage());
        }
        if (!rolledOut) {
            return cond(READY, true, "RollingOut", "serving " + s.rulesets + " on " + available + " available pods (minimum " + minimum
                    + ") while the rollout completes: " + progress(engine, s.replicas));
        }
        return cond(READY, true, "Ready", "serving " + s.rulesets + " on " + s.readyReplicas + " pods"
                + (EXTERNAL.equals(velocity.getReason()) ? "; the external velocity store is not observed by the operator" : ""));
    }

    /**
     * VelocityStoreReady. Managed: True when redis-operator's pods serve (a ready Redis pod; for
     * replication also a master reported by redis-operator and a sentinel quorum), so Ready follows the
     * store's health, not just its declaration. External: Unknown, the operator does not connect to it.
     */
    static Condition velocityStore(FraudEngine fe, Observed observed) {
        var redis = fe.getSpec().velocity.redis;
        if (redis.hasExternal()) {
            return cond(VELOCITY_STORE_READY, null, EXTERNAL, "external Redis at " + redis.external.address
                    + " is not observed by the operator (external): engine pods become ready only after it answered once;"
                    + " later outages show in the engine's velocity metrics and the VigilAuthVelocityDegraded alert");
        }
        VelocitySpec.ManagedRedis m = redis.managedOrDefault();
        String name = Names.redis(fe);
        Crd needed = m.replication() ? Crd.REDIS_REPLICATION : Crd.REDIS;
        if (observed.missingCrds().contains(needed) || m.replication() && observed.missingCrds().contains(Crd.REDIS_SENTINEL)) {
            return cond(VELOCITY_STORE_READY, false, "RedisOperatorNotInstalled", "CRD " + needed.crdName
                    + " is not installed: install the OT redis-operator, or set spec.velocity.redis.external");
        }
        Observed.ManagedRedis r = observed.redis();
        String kind = m.replication() ? "RedisReplication" : "Redis";
        if (r.store() == null) {
            return cond(VELOCITY_STORE_READY, false, "Provisioning", "managed " + kind + " " + name + " is being declared to redis-operator");
        }
        String reported = r.storeStatus("state") == null ? "" : "; redis-operator reports " + r.storeStatus("state")
                + (r.storeStatus("reason") == null ? "" : " (" + r.storeStatus("reason") + ")");
        if (r.storePods() == null || m.replication() && r.sentinelPods() == null) {
            String sts = r.storePods() == null ? name : name + "-sentinel";
            return cond(VELOCITY_STORE_READY, false, "RedisNotDeployed", "redis-operator has not created StatefulSet " + sts
                    + " for " + kind + " " + name + " yet (is redis-operator running and watching this namespace?)" + reported);
        }
        int want = m.replication() ? m.sizeOrDefault() : 1;
        int ready = Observed.ManagedRedis.ready(r.storePods());
        if (ready == 0) {
            return cond(VELOCITY_STORE_READY, false, "RedisPodsNotReady", kind + " " + name + ": 0/" + want + " Redis pods ready" + reported);
        }
        if (!m.replication()) {
            return cond(VELOCITY_STORE_READY, true, "Ready", "Redis " + name + ": " + ready + "/" + want + " pod ready" + reported);
        }
        String master = r.storeStatus("masterNode");
        if (master == null) {
            return cond(VELOCITY_STORE_READY, false, "NoMaster", "RedisReplication " + name + ": " + ready + "/" + want
                    + " Redis pods ready but redis-operator reports no master (status.masterNode) yet");
        }
        int sentinels = Observed.ManagedRedis.ready(r.sentinelPods());
        int quorum = m.sentinels / 2 + 1;
        String pods = ready + "/" + want + " Redis pods ready, master " + master + ", " + sentinels + "/" + m.sentinels + " sentinels ready";
        if (sentinels < quorum) {
            return cond(VELOCITY_STORE_READY, false, "SentinelQuorumNotReady", "RedisReplication " + name + ": " + pods
                    + " (quorum " + quorum + "): clients cannot find the master");
        }
        if (ready < want || sentinels < m.sentinels) {
            return cond(VELOCITY_STORE_READY, true, REDUCED_REDUNDANCY, "managed Redis " + name + " serves with reduced redundancy: " + pods);
        }
        return cond(VELOCITY_STORE_READY, true, "Ready", "RedisReplication " + name + ": " + pods);
    }

    static Integer desiredReplicas(EnginePlan plan, Deployment engine) {
        if (plan.rulesets().isEmpty()) {
            return 0;
        }
        EngineSpec e = plan.engine().getSpec().engine;
        if (e.autoscaling != null) {
            return engine != null && engine.getSpec() != null && engine.getSpec().getReplicas() != null
                    ? engine.getSpec().getReplicas() : e.autoscaling.minReplicas;
        }
        return e.replicas != null ? e.replicas : EngineSpec.DEFAULT_REPLICAS;
    }

    static boolean rolledOut(Deployment d, int replicas) {
        if (d == null || d.getStatus() == null) {
            return false;
        }
        var st = d.getStatus();
        return st.getObservedGeneration() != null && st.getObservedGeneration() >= d.getMetadata().getGeneration()
                && nz(st.getUpdatedReplicas()) >= replicas && nz(st.getReplicas()) == nz(st.getUpdatedReplicas())
                && nz(st.getAvailableReplicas()) >= replicas;
    }

    /**
     * Pods that must be available for the engine to count as serving: the desired count less the one pod
     * the PodDisruptionBudget lets go, at least one. The Deployment's own Available condition is not used:
     * with maxUnavailable 0 it turns False on every scale-up until the new pod is ready.
     */
    static int minimumAvailable(int desired) {
        return Math.max(1, desired - 1);
    }

    /** A change of size only: no pod of an older configuration is left. */
    private static boolean scaling(Deployment d) {
        var st = d.getStatus();
        return st != null && nz(st.getReplicas()) == nz(st.getUpdatedReplicas());
    }

    private static String progress(Deployment d, int replicas) {
        var st = d == null ? null : d.getStatus();
        if (st == null) {
            return "0 of " + replicas + " created";
        }
        return nz(st.getUpdatedReplicas()) + " of " + replicas + " on the current configuration, " + nz(st.getAvailableReplicas())
                + " available, " + nz(st.getReplicas()) + " in total";
    }

    static boolean strimziReady(Observed o) {
        if (o.kafka() == null || o.kafka().getStatus() == null || o.kafka().getStatus().getConditions() == null) {
            return false;
        }
        return o.kafka().getStatus().getConditions().stream().anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    private static boolean isTrue(Condition c) {
        return "True".equals(c.getStatus());
    }

    private static int nz(Integer i) {
        return i == null ? 0 : i;
    }

    /** status null = Unknown (the operator cannot tell). */
    private static Condition cond(String type, Boolean status, String reason, String message) {
        String s = status == null ? "Unknown" : status ? "True" : "False";
        return new ConditionBuilder().withType(type).withStatus(s).withReason(reason).withMessage(message).build();
    }
}
