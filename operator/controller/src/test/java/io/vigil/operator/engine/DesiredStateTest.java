package io.vigil.operator.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.vigil.operator.Fixtures;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.api.v1alpha1.RulesetRef;
import io.vigil.operator.engine.desired.Wanted;
import io.vigil.operator.engine.desired.DesiredState;
import io.vigil.operator.engine.desired.EngineWorkload;
import io.vigil.operator.engine.desired.RelayWorkload;
import io.vigil.operator.engine.desired.VelocityStore;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Properties of the desired state that must hold for every spec (the golden files pin the details). */
class DesiredStateTest {

    static EnginePlan plan(FraudEngine fe) {
        return EnginePlanner.plan(fe, Fixtures.sampleRulesets(fe.getMetadata().getNamespace()));
    }

    @Test
    void everythingIsOwnedByTheFraudEngineAndLabelled() {
        for (String name : List.of("defaults", "external", "replication")) {
            FraudEngine fe = Fixtures.engine(name);
            for (HasMetadata o : DesiredState.all(plan(fe))) {
                assertThat(o.getMetadata().getOwnerReferences()).as(o.getKind() + " " + o.getMetadata().getName()).singleElement()
                        .satisfies(ref -> {
                            assertThat(ref.getUid()).isEqualTo(fe.getMetadata().getUid());
                            assertThat(ref.getController()).isTrue();
                        });
                assertThat(o.getMetadata().getNamespace()).isEqualTo(fe.getMetadata().getNamespace());
                assertThat(o.getMetadata().getLabels()).containsEntry(Names.LABEL_MANAGED_BY, Names.MANAGED_BY);
                // Adding the owner again (what the SDK does on apply) must not duplicate it.
                o.addOwnerReference(fe);
                assertThat(o.getMetadata().getOwnerReferences()).hasSize(1);
            }
        }
    }

    @Test
    void managedRedisRewritesItsAofAtAQuarterOfItsVolumeWithinBounds() {
        FraudEngine fe = Fixtures.engine("defaults");
        fe.getSpec().velocity.redis.managed = fe.getSpec().velocity.redis.managedOrDefault();
        java.util.function.Function<String, String> conf = storage -> {
            fe.getSpec().velocity.redis.managed.storage = storage;
            return io.vigil.operator.engine.desired.VelocityStore.config(fe).getData()
                    .get(io.vigil.operator.engine.desired.VelocityStore.CONFIG_KEY);
        };
        assertThat(conf.apply("1Gi")).contains("\nauto-aof-rewrite-min-size " + (256L << 20) + "\n");
        assertThat(conf.apply("100Mi")).contains("\nauto-aof-rewrite-min-size " + (64L << 20) + "\n");
        assertThat(conf.apply("20Gi")).contains("\nauto-aof-rewrite-min-size " + (512L << 20) + "\n");
    }

    @Test
    void managedRedisRequestsCpuUnlessTheSpecSetsItAndHasNoCpuLimit() {
        FraudEngine fe = Fixtures.engine("defaults");
        fe.getSpec().velocity.redis.managed = fe.getSpec().velocity.redis.managedOrDefault();
        // no request: a pod gets the node's smallest CPU weight, and Redis waited for a core on a busy node
        assertThat(redisResources(fe, "requests")).containsEntry("cpu", VelocityStore.DEFAULT_CPU_REQUEST);
        assertThat(redisResources(fe, "limits")).doesNotContainKey("cpu");
        fe.getSpec().velocity.redis.managed.resources = new ResourceRequirementsBuilder()
                .addToRequests("cpu", new Quantity("2")).build();
        assertThat(redisResources(fe, "requests")).containsEntry("cpu", "2");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String> redisResources(FraudEngine fe, String which) {
        Map<String, Object> spec = (Map<String, Object>) VelocityStore.standalone(fe).getAdditionalProperties().get("spec");
        Map<String, Object> kubernetesConfig = (Map<String, Object>) spec.get("kubernetesConfig");
        return ((Map<String, Map<String, String>>) kubernetesConfig.get("resources")).get(which);
    }

    @Test
    void externalRedisAndKafkaCreateNothingManaged() {
        List<String> kinds = DesiredState.all(plan(Fixtures.engine("external"))).stream().map(HasMetadata::getKind).toList();
        assertThat(kinds).doesNotContain("Redis", "RedisReplication", "RedisSentinel", "Kafka", "KafkaNodePool", "KafkaTopic",
                "PrometheusRule");
        assertThat(kinds).contains("HorizontalPodAutoscaler", "TriggerAuthentication", "ScaledObject", "ServiceMonitor", "Certificate");
        List<String> managed = DesiredState.all(plan(Fixtures.engine("defaults"))).stream().map(HasMetadata::getKind).toList();
        assertThat(managed).contains("Redis", "Kafka", "KafkaNodePool", "KafkaTopic", "PrometheusRule", "ServiceMonitor")
                .doesNotContain("TriggerAuthentication", "HorizontalPodAutoscaler");
    }

    @Test
    void managedRedisAndKafkaOnlyWhenTheSpecAsksForThem() {
        // What the schema now refuses (neither managed nor external), were it to reach the operator:
        // nothing is declared to redis-operator or Strimzi.
        FraudEngine fe = Fixtures.engine("defaults");
        fe.getSpec().velocity.redis.managed = null;
        fe.getSpec().durability.kafka.managed = null;
        List<String> kinds = DesiredState.all(plan(fe)).stream().map(HasMetadata::getKind).toList();
        assertThat(kinds).doesNotContain("Redis", "RedisReplication", "RedisSentinel", "Kafka", "KafkaNodePool", "KafkaTopic");
        assertThat(Wanted.redisStandalone(fe) || Wanted.redisReplication(fe) || Wanted.kafkaManaged(fe)).isFalse();
    }

    @Test
    void engineDeploymentRollsWithoutCapacityDipAndRunsRestricted() {
        Deployment d = EngineWorkload.deployment(plan(Fixtures.engine("defaults")));
        assertThat(d.getSpec().getStrategy().getRollingUpdate().getMaxUnavailable().getIntVal()).isZero();
        assertThat(d.getSpec().getReplicas()).isEqualTo(2);
        var pod = d.getSpec().getTemplate().getSpec();
        assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(pod.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
        var c = pod.getContainers().get(0);
        assertThat(c.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(c.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
        assertThat(c.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(c.getReadinessProbe().getHttpGet().getPort().getStrVal()).isEqualTo("management");
        assertThat(c.getPorts()).extracting(p -> p.getName() + ":" + p.getContainerPort()).containsExactly("data:8081", "management:9081");
        // Ruleset files land in the engine's directory layout.
        var items = pod.getVolumes().get(0).getProjected().getSources().stream()
                .flatMap(s -> s.getConfigMap().getItems().stream()).map(i -> i.getPath()).toList();
        assertThat(items).containsExactly("CARD_AUTH/v2/ruleset.json", "CARD_AUTH/active", "CARD_MONITORING/v1/ruleset.json", "CARD_MONITORING/active");
    }

    /**
     * The warm-up (up to ~145 s on a busy node: in-process, data port, until the JIT is quiet, ADR 0029) is
     * what readiness waits for; the startup and liveness probes must not, or a long warm-up would get the
     * pod restarted (and warm up again) instead of kept out of the Service.
     */
    @Test
    void onlyReadinessWaitsForTheWarmUp() {
        var c = EngineWorkload.deployment(plan(Fixtures.engine("defaults"))).getSpec().getTemplate().getSpec().getContainers().get(0);
        assertThat(c.getStartupProbe().getHttpGet().getPath()).isEqualTo("/q/health/started");
        assertThat(c.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/q/health/live");
        assertThat(c.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/q/health/ready");
    }

    @Test
    void autoscaledEngineAndRelayLeaveReplicasToTheirAutoscalers() {
        EnginePlan plan = plan(Fixtures.engine("external"));
        assertThat(EngineWorkload.deployment(plan).getSpec().getReplicas()).isNull();
        assertThat(RelayWorkload.deployment(plan.engine()).getSpec().getReplicas()).isNull();
        assertThat(RelayWorkload.deployment(Fixtures.engine("defaults")).getSpec().getReplicas()).isNull();
    }

    @Test
    void theEngineKeepsRetriesAnswersForTheSpecsIdempotencyWindow() {
        FraudEngine fe = Fixtures.engine("defaults");
        assertThat(engineEnv(fe, "VIGIL_VELOCITY_IDEMPOTENCY_WINDOW")).as("the default").containsExactly("10m");
        fe.getSpec().velocity.idempotencyWindow = "27h";
        assertThat(engineEnv(fe, "VIGIL_VELOCITY_IDEMPOTENCY_WINDOW")).containsExactly("27h");
    }

    private static List<String> engineEnv(FraudEngine fe, String name) {
        return EngineWorkload.deployment(plan(fe)).getSpec().getTemplate().getSpec().getContainers().get(0).getEnv().stream()
                .filter(e -> e.getName().equals(name)).map(e -> e.getValue()).toList();
    }

    @Test
    void relayRunsC1OnlyByDefaultAndTheSpecReplacesItsJvmOptions() {
        FraudEngine fe = Fixtures.engine("defaults");
        assertThat(relayJvmOptions(fe)).containsExactly("-XX:MaxRAMPercentage=75 -XX:TieredStopAtLevel=1");
        // The engine keeps its own options (C2): only the relay's are C1 only (ADR 0023).
        assertThat(EngineWorkload.deployment(plan(fe)).getSpec().getTemplate().getSpec().getContainers().get(0).getEnv())
                .filteredOn(e -> e.getName().equals("JAVA_TOOL_OPTIONS")).singleElement()
                .satisfies(e -> assertThat(e.getValue()).doesNotContain("TieredStopAtLevel"));

        fe.getSpec().durability.relay.jvmOptions = "-XX:MaxRAMPercentage=60 -XX:+UseSerialGC";
        assertThat(relayJvmOptions(fe)).containsExactly("-XX:MaxRAMPercentage=60 -XX:+UseSerialGC");
    }

    private static List<String> relayJvmOptions(FraudEngine fe) {
        return RelayWorkload.deployment(fe).getSpec().getTemplate().getSpec().getContainers().get(0).getEnv().stream()
                .filter(e -> e.getName().equals("JAVA_TOOL_OPTIONS")).map(e -> e.getValue()).toList();
    }

    @Test
    void podTemplateHashFollowsConfigAndRulesetsOnly() {
        FraudEngine fe = Fixtures.engine("defaults");
        String base = hash(fe);
        assertThat(hash(Fixtures.engine("defaults"))).as("deterministic").isEqualTo(base);

        FraudEngine bumped = Fixtures.engine("defaults");
        bumped.getSpec().rulesets.set(0, new RulesetRef("CARD_AUTH", 1));
        assertThat(hash(bumped)).as("ruleset version").isNotEqualTo(base);

        FraudEngine deadline = Fixtures.engine("defaults");
        deadline.getSpec().engine.deadline = "7ms";
        assertThat(hash(deadline)).as("engine config").isNotEqualTo(base);

        FraudEngine slo = Fixtures.engine("defaults");
        slo.getSpec().slo.p99Ms = 20.0;
        assertThat(hash(slo)).as("SLO does not touch the pods").isEqualTo(base);
    }

    @Test
    void rulesetConfigMapsAreImmutableAndNamedByContent() {
        EnginePlan plan = plan(Fixtures.engine("defaults"));
        for (ConfigMap cm : EngineWorkload.rulesetConfigMaps(plan).values()) {
            assertThat(cm.getImmutable()).isTrue();
            assertThat(cm.getData()).containsKeys("ruleset.json", "active");
        }
        FraudEngine bumped = Fixtures.engine("defaults");
        bumped.getSpec().rulesets.set(0, new RulesetRef("CARD_AUTH", 1));
        assertThat(EngineWorkload.rulesetConfigMaps(plan(bumped)).keySet())
                .hasSize(2)
                .doesNotContainAnyElementsOf(List.of(plan.rulesets().get(0).configMapName()))
                .contains(plan.rulesets().get(1).configMapName());
    }

    @Test
    void everyRendererWorksEvenWhenItsObjectIsNotWanted() {
        // The SDK renders a dependent to find what to delete when its precondition turned false.
        for (String name : List.of("defaults", "external", "replication")) {
            FraudEngine fe = Fixtures.engine(name);
            List<HasMetadata> all = List.of(
                    io.vigil.operator.engine.desired.EngineWorkload.horizontalPodAutoscaler(fe),
                    RelayWorkload.triggerAuthentication(fe), RelayWorkload.scaledObject(fe),
                    io.vigil.operator.engine.desired.VelocityStore.standalone(fe),
                    io.vigil.operator.engine.desired.VelocityStore.replication(fe),
                    io.vigil.operator.engine.desired.VelocityStore.sentinel(fe),
                    io.vigil.operator.engine.desired.KafkaCluster.kafka(fe), io.vigil.operator.engine.desired.KafkaCluster.nodePool(fe),
                    io.vigil.operator.engine.desired.KafkaCluster.topic(fe), io.vigil.operator.engine.desired.Monitoring.serviceMonitor(fe),
                    io.vigil.operator.engine.desired.Monitoring.prometheusRule(fe), io.vigil.operator.engine.desired.Monitoring.dashboard(fe),
                    io.vigil.operator.engine.desired.EngineCallerAuth.certificate(fe));
            assertThat(all).allSatisfy(o -> assertThat(o.getMetadata().getName()).startsWith(fe.getMetadata().getName()));
        }
    }

    private static String hash(FraudEngine fe) {
        return EngineWorkload.deployment(plan(fe)).getSpec().getTemplate().getMetadata().getAnnotations().get(Names.CONFIG_HASH_ANNOTATION);
    }
}
