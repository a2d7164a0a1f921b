package io.vigil.operator.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.javaoperatorsdk.operator.Operator;
import io.vigil.operator.Fixtures;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.api.v1alpha1.FraudRuleset;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vigil.operator.engine.DependentFailureReporter;
import io.vigil.operator.engine.Names;
import io.vigil.operator.support.OptionalCrds;
import io.vigil.testing.kube.LocalCluster;
import io.vigil.testing.kube.LocalKubernetes;
import io.vigil.testing.kube.TestNamespace;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The operator against the local control plane (real kube-apiserver, etcd, controller-manager; kwok
 * pods). The reconcilers run in this JVM on the java-operator-sdk, restricted to the test namespace,
 * so the steps can stop and restart "the operator". Steps build on each other (one namespace, one
 * operator) to keep the suite short on a shared 2-core machine.
 */
@LocalKubernetes(crds = {"keda", "monitoring", "strimzi", "redis"})
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FraudEngineClusterTest {

    static final Duration WAIT = Duration.ofSeconds(90);
    static KubernetesClient client;
    static String ns;
    static Operator operator;
    /** The FraudEngine reconciler's meters (in the operator: the Prometheus registry behind /q/metrics). */
    static final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    @BeforeAll
    static void setUp(KubernetesClient kube, TestNamespace namespace) throws IOException {
        client = kube;
        ns = namespace.name();
        System.setProperty("vigil.operator.recheck-seconds", "3");
        System.setProperty("vigil.operator.crd-cache-seconds", "1");
        // The CRDs under test are the committed ones: what users install.
        TestOperator.installCrdsAndRulesets(client, ns);
        startOperator();
    }

    @AfterAll
    static void tearDown() {
        if (operator != null) {
            operator.stop();
        }
    }

    static void startOperator() {
        startOperator(client, false);
    }

    /**
     * @param ownClient whether the operator has a client of its own (closed when it stops), as an
     *     operator process has: fabric8 remembers every kind its client discovered, so an operator on the
     *     tests' shared client would not see a kind that has gone.
     */
    static void startOperator(KubernetesClient operatorClient, boolean ownClient) {
        operator = TestOperator.start(operatorClient, ns, meters, ownClient);
    }

    @Test
    @Order(1)
    void rulesetsAreValidatedIntoTheirStatus() {
        client.resource(Fixtures.invalidCardAuthV3()).inNamespace(ns).create();
        awaitTrue("ruleset statuses", () -> Stream.of("card-auth-v1", "card-auth-v2", "card-auth-v3")
                .allMatch(n -> ruleset(n).getStatus() != null && ruleset(n).getStatus().valid != null));
        assertThat(ruleset("card-auth-v2").getStatus().valid).isTrue();
        assertThat(ruleset("card-auth-v2").getStatus().checksum).hasSize(64);
        var invalid = ruleset("card-auth-v3").getStatus();
        assertThat(invalid.valid).isFalse();
        assertThat(invalid.errors).extracting(e -> e.path).containsExactly("spec.document.rules[0].condition.op");
        assertThat(invalid.observedGeneration).isEqualTo(ruleset("card-auth-v3").getMetadata().getGeneration());
    }

    @Test
    @Order(2)
    void schemaAndCelRulesRefuseBadObjects() {
        assertThatThrownBy(() -> client.resource(engine("bad-slo", 1, "slo: {p50Ms: 9, p95Ms: 5, p99Ms: 10}")).create())
                .isInstanceOf(KubernetesClientException.class)
                .hasMessageContaining("slo latencies must be ordered: p50Ms <= p95Ms <= p99Ms");
        assertThatThrownBy(() -> client.resource(engine("bad-relay", 1,
                "durability: {relay: {minReplicas: 5, maxReplicas: 2}}")).create())
                .hasMessageContaining("durability.relay.minReplicas must not exceed maxReplicas");
        assertThatThrownBy(() -> client.resource(engine("bad-redis", 1,
                "velocity: {redis: {managed: {}, external: {address: 'r:6379'}}}")).create())
                .hasMessageContaining("set exactly one of velocity.redis.managed");
        // Nothing managed unless asked for: a spec naming neither a managed nor an external store is refused,
        // and so is one that leaves the store out.
        assertThatThrownBy(() -> client.resource(engine("no-redis", 1, "velocity: {redis: {}}")).create())
                .hasMessageContaining("set exactly one of velocity.redis.managed");
        assertThatThrownBy(() -> client.resource(engine("no-kafka", 1, "durability: {kafka: {}, topic: {replicas: 1}}")).create())
                .hasMessageContaining("set exactly one of durability.kafka.managed");
        assertThatThrownBy(() -> client.resource(Fixtures.SERIALIZATION.unmarshal("""
                apiVersion: vigil.io/v1alpha1
                kind: FraudEngine
                metadata: {name: no-store}
                spec:
                  rulesets: [{key: CARD_AUTH, version: 1}]
                  velocity: {pool: {maxConnections: 8}}
                  durability: {kafka: {external: {bootstrapServers: 'kafka.example:9092'}}}
                """, io.fabric8.kubernetes.api.model.GenericKubernetesResource.class)).inNamespace(ns).create())
                .hasMessageContaining("spec.velocity.redis: Required value");
        // No spec, or no ruleset: nothing to run, refused (it once got a managed Redis, a Kafka and engine pods).
        assertThatThrownBy(() -> client.resource(Fixtures.SERIALIZATION.unmarshal("""
                apiVersion: vigil.io/v1alpha1
                kind: FraudEngine
                metadata: {name: no-spec}
                """, io.fabric8.kubernetes.api.model.GenericKubernetesResource.class)).inNamespace(ns).create())
                .hasMessageContaining("spec: Required value");
        assertThatThrownBy(() -> client.resource(Fixtures.SERIALIZATION.unmarshal("""
                apiVersion: vigil.io/v1alpha1
                kind: FraudEngine
                metadata: {name: no-rulesets}
                spec:
                  rulesets: []
                  velocity: {redis: {external: {address: 'redis.example:6379'}}}
                  durability: {kafka: {external: {bootstrapServers: 'kafka.example:9092'}}}
                """, io.fabric8.kubernetes.api.model.GenericKubernetesResource.class)).inNamespace(ns).create())
                .hasMessageContaining("should have at least 1 items");
        assertThat(client.resources(FraudEngine.class).inNamespace(ns).list().getItems()).isEmpty();
        FraudEngine badKey = engine("bad-key", 1, "");
        badKey.getSpec().rulesets.get(0).key = "card_auth";
        assertThatThrownBy(() -> client.resource(badKey).create()).hasMessageContaining("spec.rulesets[0].key");
        FraudRuleset v1 = ruleset("card-auth-v1");
        assertThatThrownBy(() -> client.resources(FraudRuleset.class).inNamespace(ns).withName("card-auth-v1")
                .edit(r -> {
                    r.getSpec().version = 7;
                    return r;
                }))
                .hasMessageContaining("version is immutable");
        assertThat(ruleset("card-auth-v1").getSpec().version).isEqualTo(v1.getSpec().version);
    }

    @Test
    @Order(3)
    void externalEngineGetsEveryDependentAndBecomesReady() {
        client.resource(engine("edge", 1, "")).create();
        FraudEngine fe = awaitCondition("edge", "Ready", "True");
        assertThat(fe.getStatus().observedGeneration).isEqualTo(fe.getMetadata().getGeneration());
        assertThat(fe.getStatus().conditions).allSatisfy(c -> assertThat(c.getObservedGeneration()).isEqualTo(fe.getMetadata().getGeneration()));
        assertThat(fe.getStatus().activeRulesets).extracting(a -> a.key + ":v" + a.version + ":" + a.checksum)
                .containsExactly("CARD_AUTH:v1:" + ruleset("card-auth-v1").getStatus().checksum);
        assertThat(fe.getStatus().readyReplicas).isEqualTo(2);

        List<HasMetadata> owned = owned("edge");
        assertThat(owned).extracting(o -> o.getKind() + "/" + o.getMetadata().getName()).contains(
                "Deployment/edge-engine", "Deployment/edge-relay", "Service/edge-engine", "Service/edge-engine-management",
                "Service/edge-relay-management", "PodDisruptionBudget/edge-engine", "NetworkPolicy/edge-engine", "NetworkPolicy/edge-relay",
                "ServiceAccount/edge-engine", "ScaledObject/edge-relay", "ServiceMonitor/edge", "PrometheusRule/edge-slo",
                "ConfigMap/edge-dashboard", "ConfigMap/" + fe.getStatus().activeRulesets.get(0).configMap);
        assertThat(owned).allSatisfy(o -> assertThat(o.getMetadata().getOwnerReferences())
                .singleElement().satisfies(r -> assertThat(r.getUid()).isEqualTo(fe.getMetadata().getUid())));
        // External Redis and Kafka: nothing managed.
        assertThat(generic("redis.redis.opstreelabs.in/v1beta2", "Redis")).isEmpty();
        assertThat(generic("kafka.strimzi.io/v1beta2", "Kafka")).isEmpty();
        // The relay's replicas belong to KEDA's HPA: the operator's field manager does not own them.
        Deployment relay = client.apps().deployments().inNamespace(ns).withName("edge-relay").get();
        assertThat(relay.getMetadata().getManagedFields()).filteredOn(m -> "Apply".equals(m.getOperation())).isNotEmpty()
                .allSatisfy(m -> assertThat(((Map<?, ?>) m.getFieldsV1().getAdditionalProperties().get("f:spec")).containsKey("f:replicas")).isFalse());
    }

    @Test
    @Order(4)
    void rulesetBumpRollsTheEngineAndReportsTheNewChecksum() {
        String oldHash = templateHash("edge");
        patchRulesetVersion("edge", 2);
        FraudEngine fe = await("CARD_AUTH v2 active and rolled out", () -> {
            FraudEngine e = engine("edge");
            return e.getStatus() != null && "CARD_AUTH:v2".equals(e.getStatus().rulesets)
                    && "False".equals(condition(e, "Progressing").getStatus()) && "True".equals(condition(e, "Ready").getStatus()) ? e : null;
        });
        assertThat(fe.getStatus().activeRulesets.get(0).checksum).isEqualTo(ruleset("card-auth-v2").getStatus().checksum);
        assertThat(templateHash("edge")).isNotEqualTo(oldHash);
        List<ReplicaSet> rs = client.apps().replicaSets().inNamespace(ns).withLabel(Names.LABEL_INSTANCE, "edge")
                .withLabel(Names.LABEL_COMPONENT, "engine").list().getItems();
        assertThat(rs).as("one ReplicaSet per configuration").hasSize(2);
        // Only the served version's ConfigMap remains.
        awaitTrue("old ruleset ConfigMap removed", () -> rulesetConfigMaps("edge").size() == 1);
        assertThat(rulesetConfigMaps("edge").get(0).getMetadata().getName()).isEqualTo(fe.getStatus().activeRulesets.get(0).configMap);
    }

    @Test
    @Order(5)
    void invalidRulesetIsReportedAndTheEngineKeepsTheOldVersion() {
        String hash = templateHash("edge");
        patchRulesetVersion("edge", 3);
        FraudEngine fe = awaitCondition("edge", "RulesetsValid", "False");
        assertThat(condition(fe, "RulesetsValid").getReason()).isEqualTo("RulesetInvalid");
        assertThat(condition(fe, "RulesetsValid").getMessage()).contains("card-auth-v3", "rules[0].condition.op");
        assertThat(condition(fe, "Degraded").getStatus()).isEqualTo("True");
        assertThat(fe.getStatus().rulesets).isEqualTo("CARD_AUTH:v2");
        assertThat(templateHash("edge")).isEqualTo(hash);
        patchRulesetVersion("edge", 2);
        awaitCondition("edge", "RulesetsValid", "True");
    }

    @Test
    @Order(6)
    void managedRedisAndKafkaAreDeclaredToTheirOperators() {
        client.resource(engine("core", 2, """
                velocity: {redis: {managed: {mode: replication, size: 3}}}
                durability: {kafka: {managed: {replicas: 3}}}
                observability: {prometheusRule: {enabled: false}}""")).create();
        FraudEngine fe = awaitCondition("core", "DurabilityReady", "False");
        assertThat(condition(fe, "DurabilityReady").getReason()).isEqualTo("KafkaNotReady");
        awaitTrue("managed objects", () -> generic("redis.redis.opstreelabs.in/v1beta2", "RedisReplication").size() == 1
                && generic("redis.redis.opstreelabs.in/v1beta2", "RedisSentinel").size() == 1
                && generic("kafka.strimzi.io/v1beta2", "Kafka").size() == 1
                && generic("kafka.strimzi.io/v1beta2", "KafkaNodePool").size() == 1
                && generic("kafka.strimzi.io/v1beta2", "KafkaTopic").size() == 1);
        assertThat(generic("kafka.strimzi.io/v1beta2", "KafkaTopic").get(0).getMetadata().getOwnerReferences().get(0).getName()).isEqualTo("core");
        assertThat(client.genericKubernetesResources("monitoring.coreos.com/v1", "PrometheusRule").inNamespace(ns).withName("core-slo").get())
                .as("switched off").isNull();
    }

    @Test
    @Order(7)
    void managedRedisHealthIsObservedAndGatesReady() {
        // No redis-operator runs here, so nothing has made the Redis pods yet: declared is not ready.
        FraudEngine fe = awaitReason("core", "VelocityStoreReady", "RedisNotDeployed");
        assertThat(condition(fe, "Ready").getStatus()).isEqualTo("False");
        assertThat(condition(fe, "VelocityStoreReady").getMessage()).contains("StatefulSet core-redis");

        // The test plays redis-operator: the StatefulSets it makes for the RedisReplication and the
        // RedisSentinel (named after them, with the CR's labels copied); kwok marks their pods ready.
        List<GenericKubernetesResource> all = generic(REDIS_API, "RedisReplication");
        GenericKubernetesResource replication = all.stream()
                .filter(r -> "core-redis".equals(r.getMetadata().getName())).findFirst()
                .orElseThrow(() -> new AssertionError("RedisReplications: " + all.stream().map(r -> r.getKind() + "/" + r.getMetadata().getName()).toList()
                        + "; Redis: " + generic(REDIS_API, "Redis").stream().map(r -> r.getKind() + "/" + r.getMetadata().getName()).toList()));
        redisStatefulSet(replication, "core-redis", 3);
        redisStatefulSet(replication, "core-redis-sentinel", 3);
        awaitReason("core", "VelocityStoreReady", "NoMaster");
        // redis-operator reports the elected master in the RedisReplication status.
        patchStatus(replication, "{\"status\":{\"masterNode\":\"core-redis-0\"}}");
        fe = awaitReason("core", "VelocityStoreReady", "Ready");
        assertThat(condition(fe, "VelocityStoreReady").getMessage()).contains("3/3 Redis pods ready, master core-redis-0, 3/3 sentinels ready");
        // ... and Strimzi reports its Kafka Ready: now the whole engine is.
        GenericKubernetesResource kafka = generic("kafka.strimzi.io/v1beta2", "Kafka").stream()
                .filter(k -> "core-kafka".equals(k.getMetadata().getName())).findFirst().orElseThrow();
        patchStatus(kafka, "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}");
        awaitCondition("core", "Ready", "True");

        // One Redis pod stops being ready: still serving, with less redundancy (Degraded says so).
        setPodReady("core-redis-2", false);
        fe = awaitReason("core", "VelocityStoreReady", "ReducedRedundancy");
        assertThat(condition(fe, "Degraded").getReason()).isEqualTo("VelocityStoreRedundancyReduced");
        assertThat(condition(fe, "Ready").getStatus()).isEqualTo("True");
        // Every Redis pod down: the velocity store is not ready, and neither is the engine.
        setPodReady("core-redis-0", false);
        setPodReady("core-redis-1", false);
        fe = awaitReason("core", "VelocityStoreReady", "RedisPodsNotReady");
        assertThat(condition(fe, "Ready").getStatus()).isEqualTo("False");
        assertThat(condition(fe, "Ready").getReason()).isEqualTo("VelocityStoreNotReady");
        // Back up: Ready again.
        for (String pod : List.of("core-redis-0", "core-redis-1", "core-redis-2")) {
            setPodReady(pod, true);
        }
        awaitReason("core", "VelocityStoreReady", "Ready");
        awaitCondition("core", "Ready", "True");
        // All along the operator kept the same RedisReplication (it once deleted it on every pass, taking it
        // for the standalone Redis of the same name).
        assertThat(generic(REDIS_API, "RedisReplication")).singleElement()
                .satisfies(r -> assertThat(r.getMetadata().getUid()).isEqualTo(replication.getMetadata().getUid()));
    }

    @Test
    @Order(8)
    void aDependentTheApiServerRefusesIsReportedUntilItIsApplied() {
        // The API server's own admission (a ValidatingAdmissionPolicy, as a policy engine or a webhook
        // would) refuses every NetworkPolicy in this namespace.
        String policy = "vigil-test-freeze-netpol-" + ns;
        client.resource(Fixtures.SERIALIZATION.unmarshal("""
                apiVersion: admissionregistration.k8s.io/v1
                kind: ValidatingAdmissionPolicy
                metadata: {name: %s}
                spec:
                  failurePolicy: Fail
                  matchConstraints:
                    resourceRules: [{apiGroups: [networking.k8s.io], apiVersions: ['*'], operations: [CREATE, UPDATE], resources: [networkpolicies]}]
                  validations: [{expression: 'false', message: 'NetworkPolicies are frozen in this namespace'}]
                """.formatted(policy), GenericKubernetesResource.class)).create();
        client.resource(Fixtures.SERIALIZATION.unmarshal("""
                apiVersion: admissionregistration.k8s.io/v1
                kind: ValidatingAdmissionPolicyBinding
                metadata: {name: %s}
                spec:
                  policyName: %s
                  validationActions: [Deny]
                  matchResources: {namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: %s}}}
                """.formatted(policy, policy, ns), GenericKubernetesResource.class)).create();
        try {
            awaitTrue("the policy is enforced", this::networkPolicyRefused);
            client.resource(engine("frozen", 1, "")).create();
            FraudEngine fe = awaitReason("frozen", "Degraded", "DependentFailed");
            Condition degraded = condition(fe, "Degraded");
            assertThat(degraded.getMessage()).contains("engine-networkpolicy: ", "NetworkPolicies are frozen in this namespace");
            assertThat(degraded.getObservedGeneration()).isEqualTo(fe.getMetadata().getGeneration());
            assertThat(condition(fe, "Ready").getStatus()).isEqualTo("False");
            assertThat(condition(fe, "Ready").getReason()).isEqualTo("DependentFailed");
            assertThat(client.apps().deployments().inNamespace(ns).withName("frozen-engine").get()).as("the rest is reconciled").isNotNull();
            Event warning = await("Warning event", () -> event("frozen", "DependentFailed"));
            assertThat(warning.getType()).isEqualTo("Warning");
            assertThat(warning.getMessage()).matches("(engine|relay)-networkpolicy: .*").contains("NetworkPolicies are frozen");
            assertThat(meters.find(DependentFailureReporter.METRIC).tags("fraudengine", "frozen", "dependent", "engine-networkpolicy")
                    .counter()).isNotNull().satisfies(c -> assertThat(c.count()).isGreaterThanOrEqualTo(1));
        } finally {
            client.genericKubernetesResources("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicyBinding").withName(policy).delete();
            client.genericKubernetesResources("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy").withName(policy).delete();
        }
        // Fixed: the next recheck applies it, and the conditions clear.
        FraudEngine fe = awaitCondition("frozen", "Degraded", "False");
        assertThat(condition(fe, "Degraded").getReason()).isEqualTo("AsExpected");
        awaitCondition("frozen", "Ready", "True");
        assertThat(client.network().v1().networkPolicies().inNamespace(ns).withName("frozen-engine").get()).isNotNull();
        assertThat(await("Normal event", () -> event("frozen", "DependentRecovered")).getMessage()).matches("(engine|relay)-networkpolicy: .*");
        client.resources(FraudEngine.class).inNamespace(ns).withName("frozen").delete();
    }

    @Test
    @Order(9)
    void operatorRestartMidReconcileConvergesWithoutDuplicates() {
        operator.stop();
        client.resource(engine("restart", 1, "")).create();
        startOperator();
        awaitTrue("reconcile started", () -> !owned("restart").isEmpty());
        operator.stop(); // mid-reconcile: some dependents exist, others not yet
        startOperator();
        FraudEngine fe = awaitCondition("restart", "Ready", "True");
        List<String> names = owned("restart").stream().map(o -> o.getKind() + "/" + o.getMetadata().getName()).toList();
        assertThat(names).doesNotHaveDuplicates();
        assertThat(names.stream().filter(n -> n.startsWith("Deployment/"))).containsExactlyInAnyOrder("Deployment/restart-engine", "Deployment/restart-relay");
        assertThat(rulesetConfigMaps("restart")).hasSize(1);
        assertThat(fe.getStatus().readyReplicas).isEqualTo(2);
    }

    @Test
    @Order(10)
    void deletingTheEngineGarbageCollectsWhatItOwned() {
        client.resources(FraudEngine.class).inNamespace(ns).withName("restart").delete();
        awaitTrue("owned objects collected", () -> owned("restart").isEmpty());
    }

    @Test
    @Order(11)
    void missingKedaIsAConditionAndTheRestStillReconciles() {
        operator.stop();
        LocalCluster.uninstallCrds("keda");
        try {
            // A client that has never seen KEDA's kinds: the operator process started on a cluster without them.
            startOperator(LocalCluster.newClient(), true);
            client.resource(engine("nokeda", 1, "")).create();
            FraudEngine fe = awaitCondition("nokeda", "Degraded", "True");
            assertThat(condition(fe, "Degraded").getReason()).isEqualTo("KedaNotInstalled");
            assertThat(condition(fe, "Degraded").getMessage()).contains("scaledobjects.keda.sh");
            awaitCondition("nokeda", "Ready", "True");
            assertThat(client.apps().deployments().inNamespace(ns).withName("nokeda-relay").get()).isNotNull();
        } finally {
            LocalCluster.installCrds("keda");
        }
        OptionalCrds.forget();
        awaitTrue("ScaledObject once KEDA is installed",
                () -> client.genericKubernetesResources("keda.sh/v1alpha1", "ScaledObject").inNamespace(ns).withName("nokeda-relay").get() != null);
        awaitCondition("nokeda", "Degraded", "False");
    }

    @Test
    @Order(12)
    void scaleUpKeepsReadyTrueAndProgressingShowsIt() {
        FraudEngine before = awaitCondition("edge", "Ready", "True");
        assertThat(before.getStatus().replicas).isEqualTo(2);
        client.resources(FraudEngine.class).inNamespace(ns).withName("edge")
                .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"engine\":{\"replicas\":3}}}");
        long generation = before.getMetadata().getGeneration() + 1;
        // Every Ready the operator writes until the third pod serves: none may be False.
        List<String> seen = new java.util.ArrayList<>();
        boolean progressingSeen = false;
        FraudEngine done = null;
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (done == null && System.nanoTime() < deadline) {
            FraudEngine fe = engine("edge");
            Condition ready = condition(fe, "Ready");
            seen.add(ready.getStatus() + "/" + ready.getReason() + "@" + ready.getObservedGeneration());
            Condition progressing = condition(fe, "Progressing");
            if (progressing.getObservedGeneration() == generation && "True".equals(progressing.getStatus())) {
                progressingSeen = true;
            }
            if (ready.getObservedGeneration() == generation && "False".equals(progressing.getStatus())
                    && progressing.getObservedGeneration() == generation && fe.getStatus().readyReplicas == 3) {
                done = fe;
            }
            sleep(100);
        }
        assertThat(done).as("scaled to 3 within " + WAIT + "; Ready seen: " + seen + "\n" + diagnostics()).isNotNull();
        assertThat(seen).as("Ready during the scale-up").allSatisfy(r -> assertThat(r).startsWith("True/"));
        assertThat(progressingSeen).as("Progressing=True showed the scale-up").isTrue();
        assertThat(condition(done, "Ready").getReason()).isEqualTo("Ready");
    }

    @Test
    @Order(13)
    void anEngineWithNothingToServeSaysSoFirstAndRunsNoPods() {
        client.resource(engine("empty", 42, "")).create(); // no CARD_AUTH v42 here, and nothing served before
        FraudEngine fe = await("first status of empty", () -> {
            FraudEngine e = engine("empty");
            return e != null && e.getStatus() != null && !e.getStatus().conditions.isEmpty() ? e : null;
        });
        assertThat(condition(fe, "Ready").getReason()).as("the first reason shown").isEqualTo("NoRulesetServed");
        assertThat(condition(fe, "RulesetsValid").getReason()).isEqualTo("RulesetNotFound");
        awaitTrue("engine Deployment at 0 replicas", () -> {
            Deployment d = client.apps().deployments().inNamespace(ns).withName("empty-engine").get();
            return d != null && d.getSpec().getReplicas() == 0;
        });
        assertThat(client.pods().inNamespace(ns).withLabel(Names.LABEL_INSTANCE, "empty").withLabel(Names.LABEL_COMPONENT, Names.ENGINE)
                .list().getItems()).as("engine pods").isEmpty();
        client.resources(FraudEngine.class).inNamespace(ns).withName("empty").delete();
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted");
        }
    }

    // ---- helpers ----

    static FraudEngine engine(String name, int authVersion, String extraSpec) {
        String spec = """
                apiVersion: vigil.io/v1alpha1
                kind: FraudEngine
                metadata: {name: %s, namespace: %s}
                spec:
                  rulesets: [{key: CARD_AUTH, version: %d}]
                  velocity: {redis: {external: {address: 'redis.example:6379'}}}
                  durability: {kafka: {external: {bootstrapServers: 'kafka.example:9092'}}, topic: {replicas: 1}}
                """.formatted(name, ns, authVersion);
        if (!extraSpec.isBlank()) {
            // Sections given in extraSpec replace the external defaults above (no duplicate keys in the YAML).
            spec = spec.replace("  velocity: {redis: {external: {address: 'redis.example:6379'}}}\n", extraSpec.contains("velocity:") ? "" : "  velocity: {redis: {external: {address: 'redis.example:6379'}}}\n");
            spec = spec.replace("  durability: {kafka: {external: {bootstrapServers: 'kafka.example:9092'}}, topic: {replicas: 1}}\n",
                    extraSpec.contains("durability:") ? "" : "  durability: {kafka: {external: {bootstrapServers: 'kafka.example:9092'}}, topic: {replicas: 1}}\n");
            spec += extraSpec.lines().map(l -> "  " + l).reduce("", (a, b) -> a + b + "\n");
        }
        return Fixtures.SERIALIZATION.unmarshal(spec, FraudEngine.class);
    }

    static FraudEngine engine(String name) {
        return client.resources(FraudEngine.class).inNamespace(ns).withName(name).get();
    }

    static FraudRuleset ruleset(String name) {
        return client.resources(FraudRuleset.class).inNamespace(ns).withName(name).get();
    }

    static void patchRulesetVersion(String engine, int version) {
        client.resources(FraudEngine.class).inNamespace(ns).withName(engine).patch(PatchContext.of(PatchType.JSON_MERGE),
                "{\"spec\":{\"rulesets\":[{\"key\":\"CARD_AUTH\",\"version\":" + version + "}]}}");
    }

    static final String REDIS_API = "redis.redis.opstreelabs.in/v1beta2";

    /** What redis-operator creates for one of its resources: a StatefulSet named after it, carrying its labels. */
    static void redisStatefulSet(GenericKubernetesResource owner, String name, int replicas) {
        Map<String, String> selector = Map.of("app", name);
        Map<String, String> labels = new java.util.HashMap<>(owner.getMetadata().getLabels());
        labels.putAll(selector);
        client.apps().statefulSets().inNamespace(ns).resource(new StatefulSetBuilder()
                .withNewMetadata().withName(name).withLabels(labels)
                .addNewOwnerReference().withApiVersion(REDIS_API).withKind(owner.getKind()).withName(owner.getMetadata().getName())
                .withUid(owner.getMetadata().getUid()).withController(true).endOwnerReference().endMetadata()
                .withNewSpec().withReplicas(replicas).withServiceName(name).withPodManagementPolicy("Parallel")
                .withNewSelector().withMatchLabels(selector).endSelector()
                .withNewTemplate().withNewMetadata().withLabels(selector).endMetadata()
                .withNewSpec().addNewContainer().withName("redis").withImage("quay.io/opstree/redis:v7.0.15").endContainer().endSpec()
                .endTemplate().endSpec().build()).create();
    }

    /** What another operator does to its own object (a merge patch: the FraudEngine operator re-applies the spec meanwhile). */
    static void patchStatus(GenericKubernetesResource r, String json) {
        client.resource(r).subresource("status").patch(PatchContext.of(PatchType.JSON_MERGE), json);
    }

    /** kwok runs no containers: a pod's readiness is whatever its status says, so the test sets it. */
    static void setPodReady(String pod, boolean ready) {
        String status = ready ? "True" : "False";
        client.pods().inNamespace(ns).withName(pod).editStatus(p -> {
            p.getStatus().getConditions().stream().filter(c -> "Ready".equals(c.getType()) || "ContainersReady".equals(c.getType()))
                    .forEach(c -> c.setStatus(status));
            p.getStatus().getContainerStatuses().forEach(c -> c.setReady(ready));
            return p;
        });
    }

    /** Whether a NetworkPolicy would be refused (server-side dry run: nothing is stored). */
    boolean networkPolicyRefused() {
        try {
            client.network().v1().networkPolicies().inNamespace(ns).resource(new io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder()
                    .withNewMetadata().withName("probe").endMetadata().withNewSpec().withNewPodSelector().endPodSelector().endSpec().build())
                    .dryRun().create();
            return false;
        } catch (KubernetesClientException e) {
            return e.getMessage().contains("NetworkPolicies are frozen");
        }
    }

    /** The newest Event with this reason about the FraudEngine, or null. */
    static Event event(String engine, String reason) {
        return client.v1().events().inNamespace(ns).list().getItems().stream()
                .filter(e -> engine.equals(e.getInvolvedObject().getName()) && "FraudEngine".equals(e.getInvolvedObject().getKind())
                        && reason.equals(e.getReason()))
                .reduce((a, b) -> b).orElse(null);
    }

    static FraudEngine awaitReason(String name, String type, String reason) {
        return await(name + " " + type + " reason " + reason, () -> {
            FraudEngine fe = engine(name);
            return fe != null && fe.getStatus() != null && fe.getStatus().conditions.stream()
                    .anyMatch(c -> c.getType().equals(type) && reason.equals(c.getReason())
                            && fe.getMetadata().getGeneration().equals(c.getObservedGeneration())) ? fe : null;
        });
    }

    static Condition condition(FraudEngine fe, String type) {
        return fe.getStatus().conditions.stream().filter(c -> c.getType().equals(type)).findFirst().orElseThrow();
    }

    static FraudEngine awaitCondition(String name, String type, String status) {
        return await(name + " " + type + "=" + status, () -> {
            FraudEngine fe = engine(name);
            return fe != null && fe.getStatus() != null && fe.getStatus().conditions.stream()
                    .anyMatch(c -> c.getType().equals(type) && c.getStatus().equals(status)
                            && fe.getMetadata().getGeneration().equals(c.getObservedGeneration())) ? fe : null;
        });
    }

    static String templateHash(String engine) {
        return client.apps().deployments().inNamespace(ns).withName(engine + "-engine").get()
                .getSpec().getTemplate().getMetadata().getAnnotations().get(Names.CONFIG_HASH_ANNOTATION);
    }

    static List<ConfigMap> rulesetConfigMaps(String engine) {
        return client.configMaps().inNamespace(ns).withLabel(Names.LABEL_INSTANCE, engine).withLabel(Names.LABEL_COMPONENT, Names.RULESET)
                .list().getItems();
    }

    static List<GenericKubernetesResource> generic(String apiVersion, String kind) {
        return client.genericKubernetesResources(apiVersion, kind).inNamespace(ns).list().getItems();
    }

    /** Everything labelled as managed for this engine, of the kinds the operator creates. */
    static List<HasMetadata> owned(String engine) {
        Map<String, String> labels = Map.of(Names.LABEL_INSTANCE, engine, Names.LABEL_MANAGED_BY, Names.MANAGED_BY);
        Stream<HasMetadata> typed = Stream.of(
                client.apps().deployments().inNamespace(ns).withLabels(labels).list().getItems(),
                client.services().inNamespace(ns).withLabels(labels).list().getItems(),
                client.configMaps().inNamespace(ns).withLabels(labels).list().getItems(),
                client.serviceAccounts().inNamespace(ns).withLabels(labels).list().getItems(),
                client.policy().v1().podDisruptionBudget().inNamespace(ns).withLabels(labels).list().getItems(),
                client.network().v1().networkPolicies().inNamespace(ns).withLabels(labels).list().getItems()).flatMap(List::stream);
        Stream<HasMetadata> generic = Stream.of(
                        List.of("keda.sh/v1alpha1", "ScaledObject"), List.of("monitoring.coreos.com/v1", "ServiceMonitor"),
                        List.of("monitoring.coreos.com/v1", "PrometheusRule"))
                .filter(gk -> crdInstalled(gk.get(1)))
                .flatMap(gk -> client.genericKubernetesResources(gk.get(0), gk.get(1)).inNamespace(ns).withLabels(labels).list().getItems().stream());
        return Stream.concat(typed, generic).toList();
    }

    static boolean crdInstalled(String kind) {
        String name = switch (kind) {
            case "ScaledObject" -> "scaledobjects.keda.sh";
            case "ServiceMonitor" -> "servicemonitors.monitoring.coreos.com";
            default -> "prometheusrules.monitoring.coreos.com";
        };
        return client.apiextensions().v1().customResourceDefinitions().withName(name).get() != null;
    }

    /** What the cluster looked like, for timeout messages: engines' conditions, pods' readiness, nodes. */
    static String diagnostics() {
        StringBuilder sb = new StringBuilder();
        try {
            for (FraudEngine fe : client.resources(FraudEngine.class).inNamespace(ns).list().getItems()) {
                sb.append("FraudEngine ").append(fe.getMetadata().getName()).append(" generation ").append(fe.getMetadata().getGeneration()).append('\n');
                if (fe.getStatus() != null) {
                    fe.getStatus().conditions.forEach(c -> sb.append("  ").append(c.getType()).append('=').append(c.getStatus())
                            .append(" (").append(c.getReason()).append(", gen ").append(c.getObservedGeneration()).append(") ")
                            .append(c.getMessage()).append('\n'));
                }
            }
            client.pods().inNamespace(ns).list().getItems().forEach(p -> sb.append("pod ").append(p.getMetadata().getName()).append(' ')
                    .append(p.getStatus().getConditions().stream().map(c -> c.getType() + "=" + c.getStatus()).toList()).append('\n'));
            client.nodes().list().getItems().forEach(n -> sb.append("node ").append(n.getMetadata().getName()).append(' ')
                    .append(n.getStatus().getConditions().stream().filter(c -> c.getType().equals("Ready"))
                            .map(c -> "Ready=" + c.getStatus() + " since " + c.getLastTransitionTime()).toList()).append('\n'));
        } catch (RuntimeException e) {
            sb.append("(diagnostics failed: ").append(e).append(")");
        }
        return sb.toString();
    }

    static void awaitTrue(String what, BooleanSupplier done) {
        await(what, () -> done.getAsBoolean() ? Boolean.TRUE : null);
    }

    /** Polls until {@code probe} answers non-null; fails after {@link #WAIT} with what was awaited. */
    static <T> T await(String what, java.util.function.Supplier<T> probe) {
        return TestOperator.await(what, WAIT, probe, FraudEngineClusterTest::diagnostics);
    }
}
