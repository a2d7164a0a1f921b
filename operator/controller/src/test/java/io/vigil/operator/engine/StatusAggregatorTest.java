package io.vigil.operator.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.strimzi.api.kafka.model.kafka.Kafka;
import io.strimzi.api.kafka.model.kafka.KafkaBuilder;
import io.vigil.operator.Fixtures;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.api.v1alpha1.FraudEngineStatus;
import io.vigil.operator.support.OptionalCrds.Crd;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class StatusAggregatorTest {

    static final Instant T0 = Instant.parse("2026-11-21T10:00:00Z");

    static Deployment deployment(int replicas, int ready, int updated, boolean available) {
        return new DeploymentBuilder().withNewMetadata().withName("x").withGeneration(1L).endMetadata()
                .withNewSpec().withReplicas(replicas).endSpec()
                .withNewStatus().withObservedGeneration(1L).withReplicas(replicas).withReadyReplicas(ready)
                .withAvailableReplicas(ready).withUpdatedReplicas(updated)
                .addNewCondition().withType("Available").withStatus(available ? "True" : "False").endCondition()
                .endStatus().build();
    }

    static FraudEngineStatus aggregate(FraudEngine fe, Deployment engine, Set<Crd> missing, Instant now) {
        return aggregate(fe, engine, null, Observed.ManagedRedis.NONE, missing, List.of(), now);
    }

    static FraudEngineStatus aggregate(FraudEngine fe, Deployment engine, Kafka kafka, Observed.ManagedRedis redis, Set<Crd> missing,
                                       List<DependentFailure> failures, Instant now) {
        EnginePlan plan = EnginePlanner.plan(fe, Fixtures.sampleRulesets(fe.getMetadata().getNamespace()));
        return StatusAggregator.aggregate(plan, new Observed(engine, deployment(1, 1, 1, true), kafka, redis, missing, failures), now);
    }

    /** A StatefulSet as redis-operator leaves it: {@code ready} of {@code replicas} pods ready. */
    static StatefulSet statefulSet(String name, int replicas, int ready) {
        return new StatefulSetBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewSpec().withReplicas(replicas).endSpec()
                .withNewStatus().withReplicas(replicas).withReadyReplicas(ready).endStatus().build();
    }

    /** The redis-operator custom resource with the given status fields (none: no status yet). */
    static GenericKubernetesResource redisResource(String kind, String name, Map<String, Object> status) {
        GenericKubernetesResource r = new GenericKubernetesResourceBuilder().withApiVersion("redis.redis.opstreelabs.in/v1beta2").withKind(kind)
                .withNewMetadata().withName(name).endMetadata().build();
        if (!status.isEmpty()) {
            r.setAdditionalProperty("status", status);
        }
        return r;
    }

    static Kafka readyKafka() {
        return new KafkaBuilder().withNewMetadata().withName("core-kafka").endMetadata()
                .withNewStatus().addNewCondition().withType("Ready").withStatus("True").endCondition().endStatus().build();
    }

    static Condition cond(FraudEngineStatus s, String type) {
        return s.conditions.stream().filter(c -> c.getType().equals(type)).findFirst().orElseThrow();
    }

    @Test
    void externalEngineWithAvailablePodsIsReady() {
        FraudEngine fe = Fixtures.engine("external");
        FraudEngineStatus s = aggregate(fe, deployment(3, 3, 3, true), EnumSet.noneOf(Crd.class), T0);
        assertThat(s.conditions).extracting(Condition::getType).containsExactly(
                "Ready", "RulesetsValid", "SecretsValid", "VelocityStoreReady", "DurabilityReady", "Progressing", "Degraded");
        assertThat(s.conditions).allSatisfy(c -> assertThat(c.getObservedGeneration()).isEqualTo(3L));
        assertThat(cond(s, "Ready").getStatus()).isEqualTo("True");
        assertThat(cond(s, "Progressing").getStatus()).isEqualTo("False");
        assertThat(cond(s, "Degraded").getStatus()).isEqualTo("False");
        assertThat(s.observedGeneration).isEqualTo(3L);
        assertThat(s.readyReplicas).isEqualTo(3);
        assertThat(s.rulesets).isEqualTo("CARD_AUTH:v1");
        assertThat(s.activeRulesets).singleElement().satisfies(a -> assertThat(a.checksum).hasSize(64));
        assertThat(s.endpoints.data).as("mutual TLS: HTTPS only").isEqualTo("https://edge-engine.payments.svc:8081");
        assertThat(s.endpoints.management).as("management TLS: HTTPS only").isEqualTo("https://edge-engine-management.payments.svc:9081");
        assertThat(aggregate(Fixtures.engine("defaults"), deployment(1, 1, 1, true), EnumSet.noneOf(Crd.class), T0).endpoints.data)
                .startsWith("http://");
    }

    @Test
    void externalRedisIsReportedAsNotObservedNotAsHealthy() {
        FraudEngineStatus s = aggregate(Fixtures.engine("external"), deployment(3, 3, 3, true), EnumSet.noneOf(Crd.class), T0);
        assertThat(cond(s, "VelocityStoreReady").getStatus()).isEqualTo("Unknown");
        assertThat(cond(s, "VelocityStoreReady").getReason()).isEqualTo("External");
        assertThat(cond(s, "VelocityStoreReady").getMessage()).contains("not observed by the operator (external)");
        assertThat(cond(s, "Ready").getStatus()).as("the operator cannot tell, so it does not block Ready").isEqualTo("True");
        assertThat(cond(s, "Ready").getMessage()).contains("external velocity store is not observed");
    }

    @Test
    void failedDependentIsNamedWithTheApiErrorAndBlocksReady() {
        FraudEngine fe = Fixtures.engine("external");
        List<DependentFailure> failures = DependentFailure.of(Map.of(
                "engine-networkpolicy", new KubernetesClientException(new StatusBuilder().withCode(403).withReason("Forbidden")
                        .withMessage("networkpolicies.networking.k8s.io \"edge-engine\" is forbidden: ValidatingAdmissionPolicy 'freeze' denied request")
                        .build()),
                "servicemonitor", new KubernetesClientException(new StatusBuilder().withCode(404).withReason("NotFound")
                        .withMessage("the server could not find the requested resource").build())));
        FraudEngineStatus s = aggregate(fe, deployment(3, 3, 3, true), null, Observed.ManagedRedis.NONE, EnumSet.noneOf(Crd.class), failures, T0);
        Condition degraded = cond(s, "Degraded");
        assertThat(degraded.getStatus()).isEqualTo("True");
        assertThat(degraded.getReason()).isEqualTo("DependentFailed");
        assertThat(degraded.getMessage()).isEqualTo("2 dependent(s) failed to reconcile: "
                + "engine-networkpolicy: 403 Forbidden: networkpolicies.networking.k8s.io \"edge-engine\" is forbidden: ValidatingAdmissionPolicy 'freeze' denied request; "
                + "servicemonitor: 404 NotFound: the server could not find the requested resource");
        assertThat(degraded.getObservedGeneration()).isEqualTo(3L);
        Condition ready = cond(s, "Ready");
        assertThat(ready.getStatus()).as("the engine pods are Available, yet something requested is not applied").isEqualTo("False");
        assertThat(ready.getReason()).isEqualTo("DependentFailed");
        assertThat(ready.getMessage()).contains("engine-networkpolicy, servicemonitor failed");

        // Recovery: the next reconciliation applies everything; both conditions flip back and move their transition time.
        fe.setStatus(s);
        FraudEngineStatus recovered = aggregate(fe, deployment(3, 3, 3, true), EnumSet.noneOf(Crd.class), T0.plusSeconds(60));
        assertThat(cond(recovered, "Degraded").getStatus()).isEqualTo("False");
        assertThat(cond(recovered, "Degraded").getLastTransitionTime()).isEqualTo("2026-11-21T10:01:00Z");
        assertThat(cond(recovered, "Ready").getReason()).isEqualTo("Ready");
    }

    @Test
    void managedStandaloneRedisFollowsItsPodReadiness() {
        FraudEngine fe = Fixtures.engine("defaults"); // managed standalone Redis "fraud-redis", managed Kafka
        Deployment engine = deployment(2, 2, 2, true);
        var none = EnumSet.noneOf(Crd.class);

        FraudEngineStatus declaring = aggregate(fe, engine, readyKafka(), Observed.ManagedRedis.NONE, none, List.of(), T0);
        assertThat(cond(declaring, "VelocityStoreReady").getReason()).isEqualTo("Provisioning");

        var cr = redisResource("Redis", "fraud-redis", Map.of());
        FraudEngineStatus noOperator = aggregate(fe, engine, readyKafka(), new Observed.ManagedRedis(cr, null, null), none, List.of(), T0);
        assertThat(cond(noOperator, "VelocityStoreReady").getReason()).isEqualTo("RedisNotDeployed");
        assertThat(cond(noOperator, "VelocityStoreReady").getMessage()).contains("StatefulSet fraud-redis", "is redis-operator running");

        var initializing = redisResource("Redis", "fraud-redis", Map.of("state", "Initializing", "reason", "Redis is initializing"));
        FraudEngineStatus podDown = aggregate(fe, engine, readyKafka(),
                new Observed.ManagedRedis(initializing, statefulSet("fraud-redis", 1, 0), null), none, List.of(), T0);
        assertThat(cond(podDown, "VelocityStoreReady").getStatus()).isEqualTo("False");
        assertThat(cond(podDown, "VelocityStoreReady").getReason()).isEqualTo("RedisPodsNotReady");
        assertThat(cond(podDown, "VelocityStoreReady").getMessage())
                .isEqualTo("Redis fraud-redis: 0/1 Redis pods ready; redis-operator reports Initializing (Redis is initializing)");
        assertThat(cond(podDown, "Ready").getStatus()).isEqualTo("False");
        assertThat(cond(podDown, "Ready").getReason()).isEqualTo("VelocityStoreNotReady");

        var ready = redisResource("Redis", "fraud-redis", Map.of("state", "Ready"));
        FraudEngineStatus up = aggregate(fe, engine, readyKafka(),
                new Observed.ManagedRedis(ready, statefulSet("fraud-redis", 1, 1), null), none, List.of(), T0);
        assertThat(cond(up, "VelocityStoreReady").getStatus()).isEqualTo("True");
        assertThat(cond(up, "VelocityStoreReady").getReason()).isEqualTo("Ready");
        assertThat(cond(up, "Ready").getStatus()).isEqualTo("True");
    }

    @Test
    void managedReplicationNeedsAMasterAndASentinelQuorum() {
        FraudEngine fe = Fixtures.engine("replication"); // "core-redis", size 3, 3 sentinels
        Deployment engine = deployment(4, 4, 4, true);
        var none = EnumSet.noneOf(Crd.class);
        var noMaster = redisResource("RedisReplication", "core-redis", Map.of());
        var withMaster = redisResource("RedisReplication", "core-redis", Map.of("masterNode", "core-redis-0"));

        FraudEngineStatus noSentinels = aggregate(fe, engine, readyKafka(),
                new Observed.ManagedRedis(withMaster, statefulSet("core-redis", 3, 3), null), none, List.of(), T0);
        assertThat(cond(noSentinels, "VelocityStoreReady").getReason()).isEqualTo("RedisNotDeployed");
        assertThat(cond(noSentinels, "VelocityStoreReady").getMessage()).contains("StatefulSet core-redis-sentinel");

        FraudEngineStatus masterless = aggregate(fe, engine, readyKafka(),
                new Observed.ManagedRedis(noMaster, statefulSet("core-redis", 3, 3), statefulSet("core-redis-sentinel", 3, 3)), none, List.of(), T0);
        assertThat(cond(masterless, "VelocityStoreReady").getReason()).isEqualTo("NoMaster");
        assertThat(cond(masterless, "Ready").getStatus()).isEqualTo("False");

        FraudEngineStatus noQuorum = aggregate(fe, engine, readyKafka(),
                new Observed.ManagedRedis(withMaster, statefulSet("core-redis", 3, 3), statefulSet("core-redis-sentinel", 3, 1)), none, List.of(), T0);
        assertThat(cond(noQuorum, "VelocityStoreReady").getReason()).isEqualTo("SentinelQuorumNotReady");
        assertThat(cond(noQuorum, "VelocityStoreReady").getMessage()).contains("1/3 sentinels ready", "quorum 2");

        FraudEngineStatus reduced = aggregate(fe, engine, readyKafka(),
                new Observed.ManagedRedis(withMaster, statefulSet("core-redis", 3, 2), statefulSet("core-redis-sentinel", 3, 3)), none, List.of(), T0);
        assertThat(cond(reduced, "VelocityStoreReady").getStatus()).isEqualTo("True");
        assertThat(cond(reduced, "VelocityStoreReady").getReason()).isEqualTo("ReducedRedundancy");
        assertThat(cond(reduced, "Degraded").getReason()).isEqualTo("VelocityStoreRedundancyReduced");
        assertThat(cond(reduced, "Degraded").getMessage()).contains("2/3 Redis pods ready, master core-redis-0, 3/3 sentinels ready");
        assertThat(cond(reduced, "Ready").getStatus()).isEqualTo("True");

        FraudEngineStatus full = aggregate(fe, engine, readyKafka(),
                new Observed.ManagedRedis(withMaster, statefulSet("core-redis", 3, 3), statefulSet("core-redis-sentinel", 3, 3)), none, List.of(), T0);
        assertThat(cond(full, "VelocityStoreReady").getReason()).isEqualTo("Ready");
        assertThat(cond(full, "Degraded").getStatus()).isEqualTo("False");
        assertThat(cond(full, "Ready").getStatus()).isEqualTo("True");
    }

    @Test
    void missingKedaDegradesWithAClearMessageButStaysReady() {
        FraudEngine fe = Fixtures.engine("external");
        FraudEngineStatus s = aggregate(fe, deployment(3, 3, 3, true), EnumSet.of(Crd.KEDA_SCALED_OBJECT), T0);
        assertThat(cond(s, "Degraded").getStatus()).isEqualTo("True");
        assertThat(cond(s, "Degraded").getReason()).isEqualTo("KedaNotInstalled");
        assertThat(cond(s, "Degraded").getMessage()).contains("scaledobjects.keda.sh", "not autoscaled");
        assertThat(cond(s, "Ready").getStatus()).isEqualTo("True");
    }

    @Test
    void missingRedisOperatorOrStrimziBlocksReadiness() {
        FraudEngine fe = Fixtures.engine("defaults");
        FraudEngineStatus s = aggregate(fe, deployment(2, 2, 2, true), EnumSet.of(Crd.REDIS, Crd.STRIMZI_KAFKA), T0);
        assertThat(cond(s, "VelocityStoreReady").getReason()).isEqualTo("RedisOperatorNotInstalled");
        assertThat(cond(s, "DurabilityReady").getReason()).isEqualTo("StrimziNotInstalled");
        assertThat(cond(s, "Ready").getStatus()).isEqualTo("False");
        assertThat(cond(s, "Ready").getReason()).isEqualTo("VelocityStoreNotReady");
    }

    @Test
    void rolloutIsProgressingAndTransitionTimesMoveOnlyOnChange() {
        FraudEngine fe = Fixtures.engine("external");
        FraudEngineStatus rolling = aggregate(fe, deployment(3, 3, 1, true), EnumSet.noneOf(Crd.class), T0);
        assertThat(cond(rolling, "Progressing").getStatus()).isEqualTo("True");
        assertThat(cond(rolling, "Ready").getReason()).isEqualTo("RollingOut");

        fe.setStatus(rolling);
        FraudEngineStatus done = aggregate(fe, deployment(3, 3, 3, true), EnumSet.noneOf(Crd.class), T0.plusSeconds(90));
        assertThat(cond(done, "Progressing").getLastTransitionTime()).isEqualTo("2026-11-21T10:01:30Z");
        assertThat(cond(done, "Ready").getLastTransitionTime()).as("Ready stayed True").isEqualTo("2026-11-21T10:00:00Z");
    }

    @Test
    void unavailableEngineIsNotReady() {
        FraudEngineStatus s = aggregate(Fixtures.engine("external"), null, EnumSet.noneOf(Crd.class), T0);
        assertThat(cond(s, "Ready").getReason()).isEqualTo("EngineNotAvailable");
        assertThat(cond(s, "Progressing").getReason()).isEqualTo("Creating");
    }

    /** The engine Deployment as the API server reports it during a scale-up from 2 to {@code replicas}. */
    static Deployment scalingUp(int replicas, int available) {
        return new DeploymentBuilder().withNewMetadata().withName("x").withGeneration(2L).endMetadata()
                .withNewSpec().withReplicas(replicas).endSpec()
                .withNewStatus().withObservedGeneration(2L).withReplicas(replicas).withUpdatedReplicas(replicas)
                .withReadyReplicas(available).withAvailableReplicas(available)
                // maxUnavailable 0: the Deployment's own Available is False until the new pod is ready.
                .addNewCondition().withType("Available").withStatus("False").withReason("MinimumReplicasUnavailable").endCondition()
                .endStatus().build();
    }

    @Test
    void scaleUpKeepsReadyWhileTheAvailableMinimumServes() {
        FraudEngine fe = Fixtures.engine("external");
        fe.getSpec().engine.autoscaling = null;
        fe.getSpec().engine.replicas = 3;
        FraudEngineStatus s = aggregate(fe, scalingUp(3, 2), EnumSet.noneOf(Crd.class), T0);
        assertThat(cond(s, "Ready").getStatus()).isEqualTo("True");
        assertThat(cond(s, "Ready").getReason()).isEqualTo("RollingOut");
        assertThat(cond(s, "Progressing").getStatus()).isEqualTo("True");
        assertThat(cond(s, "Progressing").getReason()).isEqualTo("Scaling");
        assertThat(cond(s, "Progressing").getMessage()).contains("3 of 3 on the current configuration, 2 available");

        // Below the minimum (3 wanted, 1 may be missing): not serving as asked.
        FraudEngineStatus low = aggregate(fe, scalingUp(3, 1), EnumSet.noneOf(Crd.class), T0);
        assertThat(cond(low, "Ready").getStatus()).isEqualTo("False");
        assertThat(cond(low, "Ready").getReason()).isEqualTo("EngineNotAvailable");
        assertThat(cond(low, "Ready").getMessage()).contains("1 pods available, 2 needed");
    }

    @Test
    void nothingToServeIsTheReasonShownAndRunsNoPods() {
        FraudEngine fe = Fixtures.engine("external");
        fe.getSpec().rulesets.get(0).version = 99; // no such FraudRuleset, and nothing served before
        EnginePlan plan = EnginePlanner.plan(fe, Fixtures.sampleRulesets(fe.getMetadata().getNamespace()));
        assertThat(plan.rulesets()).isEmpty();
        FraudEngineStatus s = aggregate(fe, null, EnumSet.noneOf(Crd.class), T0);
        assertThat(cond(s, "Ready").getReason()).isEqualTo("NoRulesetServed");
        assertThat(cond(s, "RulesetsValid").getReason()).isEqualTo("RulesetNotFound");
        assertThat(s.replicas).isZero();
        assertThat(io.vigil.operator.engine.desired.EngineWorkload.deployment(plan).getSpec().getReplicas()).isZero();
    }

    @Test
    void anUnusableSecretIsItsOwnConditionAndTheCauseOfNoPods() {
        FraudEngine fe = SecretChecksTest.engine();
        var secrets = SecretChecksTest.good();
        secrets.remove("pii-key");
        var problems = SecretChecks.check(io.vigil.operator.engine.desired.EngineCallerAuth.secrets(fe), secrets::get);
        EnginePlan plan = EnginePlanner.plan(fe, Fixtures.sampleRulesets(fe.getMetadata().getNamespace()), problems);
        Observed none = new Observed(null, deployment(1, 1, 1, true), null, Observed.ManagedRedis.NONE, EnumSet.noneOf(Crd.class), List.of());
        FraudEngineStatus s = StatusAggregator.aggregate(plan, none, T0);
        assertThat(cond(s, "SecretsValid").getStatus()).isEqualTo("False");
        assertThat(cond(s, "SecretsValid").getReason()).isEqualTo("SecretMissing");
        assertThat(cond(s, "SecretsValid").getMessage()).startsWith("Secret pii-key (spec.personalData.hashKeySecretRef) does not exist; ")
                .endsWith("held as they are until it is fixed (no new engine pod mounts it)");
        assertThat(cond(s, "Ready").getReason()).as("no engine pods because of the Secret: the Secret is the cause").isEqualTo("SecretMissing");
        assertThat(cond(s, "Degraded").getReason()).isEqualTo("SecretMissing");

        // Pods of the configuration before keep serving: Ready, but Degraded says the spec is not in effect.
        Observed serving = new Observed(deployment(2, 2, 2, true), deployment(1, 1, 1, true), null, Observed.ManagedRedis.NONE,
                EnumSet.noneOf(Crd.class), List.of());
        s = StatusAggregator.aggregate(plan, serving, T0);
        assertThat(cond(s, "Ready").getStatus()).isEqualTo("True");
        assertThat(cond(s, "Degraded").getStatus()).isEqualTo("True");
        assertThat(cond(s, "Degraded").getMessage()).contains("1 referenced Secret problem(s), the engine configuration is held (see SecretsValid)");

        EnginePlan fixed = EnginePlanner.plan(fe, Fixtures.sampleRulesets(fe.getMetadata().getNamespace()),
                SecretChecks.check(io.vigil.operator.engine.desired.EngineCallerAuth.secrets(fe), SecretChecksTest.good()::get));
        s = StatusAggregator.aggregate(fixed, serving, T0);
        assertThat(cond(s, "SecretsValid").getStatus()).isEqualTo("True");
        assertThat(cond(s, "SecretsValid").getReason()).isEqualTo("AllUsable");
        assertThat(cond(s, "SecretsValid").getMessage()).contains("engine-tls/tls.crt", "engine-tls/tls.key", "pii-key/key");
        assertThat(cond(s, "Degraded").getStatus()).isEqualTo("False");
    }

    @Test
    void certManagerMissingIsSaidBeforeTheSecretItWouldHaveWritten() {
        FraudEngine fe = Fixtures.engine("external"); // spec.auth.tls.issuerRef: a ClusterIssuer
        FraudEngineStatus s = aggregate(fe, deployment(3, 3, 3, true), EnumSet.of(Crd.CERT_MANAGER_CERTIFICATE), T0);
        assertThat(cond(s, "Degraded").getReason()).isEqualTo("CertManagerNotInstalled");
        assertThat(cond(s, "Degraded").getMessage()).contains("certificates.cert-manager.io", "Secret edge-engine-tls");
        assertThat(cond(s, "Ready").getStatus()).as("the pods that run keep serving").isEqualTo("True");
    }

    /** Expiry is said in SecretsValid but holds nothing: the pods already serve the certificate, renewing it is the fix. */
    @Test
    void certificatesExpiringOrExpiredAreSaidInSecretsValidWithoutHoldingTheEngine() {
        FraudEngine fe = SecretChecksTest.engine();
        var secrets = SecretChecksTest.expiringAt2030();
        var problems = SecretChecks.check(io.vigil.operator.engine.desired.EngineCallerAuth.secrets(fe), secrets::get, SecretChecksTest.NOW);
        EnginePlan plan = EnginePlanner.plan(fe, Fixtures.sampleRulesets(fe.getMetadata().getNamespace()), problems);
        assertThat(plan.secretsUsable()).isTrue();
        Condition soon = StatusAggregator.secretsValid(plan);
        assertThat(soon.getStatus()).isEqualTo("True");
        assertThat(soon.getReason()).isEqualTo("CertificateExpiresSoon");
        assertThat(soon.getMessage()).startsWith("Secret engine-tls key tls.crt (spec.auth.tls.secretName): certificate CN=vigil-engine.payments.svc"
                + " expires at 2030-01-10T00:00:00Z (within 14 days); every referenced Secret key is there and usable: ");

        secrets.put("callers-ca", SecretChecksTest.secret("callers-ca", Map.of("ca.crt", SecretChecksTest.OLD_CA.certificate())));
        plan = EnginePlanner.plan(fe, Fixtures.sampleRulesets(fe.getMetadata().getNamespace()),
                SecretChecks.check(io.vigil.operator.engine.desired.EngineCallerAuth.secrets(fe), secrets::get, SecretChecksTest.NOW));
        assertThat(plan.secretsUsable()).as("nothing held for an expired certificate").isTrue();
        Condition expired = StatusAggregator.secretsValid(plan);
        assertThat(expired.getStatus()).isEqualTo("False");
        assertThat(expired.getReason()).isEqualTo("CertificateExpired");
        assertThat(expired.getMessage()).contains("certificate CN=old-callers-ca expired at 2029-12-31T00:00:00Z; renew it (nothing is held)");
    }
    /** An expired certificate makes Degraded True with its own reason, and holds nothing; a valid one degrades nothing. */
    @Test
    void anExpiredCertificateDegradesTheEngineWithoutHoldingIt() {
        FraudEngine fe = SecretChecksTest.engine();
        Observed serving = new Observed(deployment(3, 3, 3, true), deployment(1, 1, 1, true), null, Observed.ManagedRedis.NONE,
                EnumSet.noneOf(Crd.class), List.of());
        var secrets = SecretChecksTest.expiringAt2030();
        var mounted = io.vigil.operator.engine.desired.EngineCallerAuth.secrets(fe);
        var rulesets = Fixtures.sampleRulesets(fe.getMetadata().getNamespace());

        FraudEngineStatus valid = StatusAggregator.aggregate(EnginePlanner.plan(fe, rulesets,
                SecretChecks.check(mounted, secrets::get, SecretChecksTest.NOW.minus(30, ChronoUnit.DAYS))), serving, T0);
        assertThat(cond(valid, "Degraded").getStatus()).isEqualTo("False");
        assertThat(cond(valid, "SecretsValid").getReason()).isEqualTo("AllUsable");

        FraudEngineStatus soon = StatusAggregator.aggregate(EnginePlanner.plan(fe, rulesets,
                SecretChecks.check(mounted, secrets::get, SecretChecksTest.NOW)), serving, T0);
        assertThat(cond(soon, "Degraded").getStatus()).as("expiring soon is a warning, not degraded").isEqualTo("False");

        // the day after the server certificate's notAfter (2030-01-10)
        EnginePlan expired = EnginePlanner.plan(fe, rulesets, SecretChecks.check(mounted, secrets::get, SecretChecksTest.NOW.plus(10, ChronoUnit.DAYS)));
        FraudEngineStatus s = StatusAggregator.aggregate(expired, serving, T0);
        assertThat(expired.secretsUsable()).isTrue();
        assertThat(cond(s, "Degraded").getStatus()).isEqualTo("True");
        assertThat(cond(s, "Degraded").getReason()).isEqualTo("CertificateExpired");
        assertThat(cond(s, "Degraded").getMessage()).isEqualTo("Secret engine-tls key tls.crt (spec.auth.tls.secretName): certificate"
                + " CN=vigil-engine.payments.svc expired at 2030-01-10T00:00:00Z: TLS handshakes that rely on it fail (callers refuse an"
                + " expired server certificate; certificates chained to an expired CA may be refused). Renew it; the pods re-read the"
                + " Secret within a minute, no restart (runbook fraudengine-not-ready §4)");
        assertThat(cond(s, "SecretsValid").getReason()).isEqualTo("CertificateExpired");
        assertThat(cond(s, "Ready").getStatus()).as("the pods still run; nothing held").isEqualTo("True");
    }
}
