package io.vigil.operator.loadtest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.api.v1alpha1.FraudLoadTest;
import io.vigil.operator.api.v1alpha1.FraudLoadTestSpec;
import io.vigil.operator.api.v1alpha1.FraudLoadTestStatus;
import io.vigil.testing.kube.LocalCluster;
import io.vigil.testing.kube.LocalKubernetes;
import io.vigil.testing.kube.TestNamespace;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The FraudLoadTest reconciler against the local control plane with the k6-operator's TestRun CRD
 * installed. No k6-operator and no kubelet run here, so the test plays their parts: it moves the
 * TestRun's stage and creates the runner Jobs and Pods with the labels the k6-operator uses, then sets
 * their statuses through the status subresource. The Jobs are {@code managedBy} an external controller,
 * so the Job controller leaves them (and their statuses) alone.
 */
@LocalKubernetes(crds = "k6")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FraudLoadTestClusterTest {

    private final KubernetesClient client;
    private final String ns;
    private final FraudLoadTestReconciler reconciler = new FraudLoadTestReconciler();

    FraudLoadTestClusterTest(KubernetesClient client, TestNamespace namespace) {
        this.client = client;
        this.ns = namespace.name();
    }

    @BeforeAll
    void vigilCrds() throws IOException {
        for (String f : List.of("fraudengines.vigil.io-v1.yml", "fraudloadtests.vigil.io-v1.yml")) {
            try (InputStream in = Files.newInputStream(LoadTests.repoRoot().resolve("crds").resolve(f))) {
                CustomResourceDefinition crd = client.apiextensions().v1().customResourceDefinitions().load(in).item();
                LocalCluster.applyCrd(client, crd);
            }
        }
        K6Crd.forget();
        FraudEngine fe = LoadTests.engine(ns);
        fe.getMetadata().setUid(null);
        fe.getMetadata().setGeneration(null);
        fe.getSpec().rulesets = List.of(ruleset("CARD_AUTH", 2));
        // The schema wants the stores named; no operator reconciles the engine here, so nothing is made of them.
        fe.getSpec().velocity.redis.external = new io.vigil.operator.api.v1alpha1.VelocitySpec.ExternalRedis();
        fe.getSpec().velocity.redis.external.address = "redis.example:6379";
        fe.getSpec().durability.kafka.external = new io.vigil.operator.api.v1alpha1.DurabilitySpec.ExternalKafka();
        fe.getSpec().durability.kafka.external.bootstrapServers = "kafka.example:9092";
        client.resource(fe).create();
    }

    private static io.vigil.operator.api.v1alpha1.RulesetRef ruleset(String key, int version) {
        var r = new io.vigil.operator.api.v1alpha1.RulesetRef();
        r.key = key;
        r.version = version;
        return r;
    }

    @Test
    void runsEachGenerationAsItsOwnTestRunWithTheVerdictFromTheRunnerJobs() {
        FraudLoadTest flt = LoadTests.fixture("constant-arrival-rate");
        flt.getMetadata().setNamespace(ns);
        flt.getMetadata().setUid(null);
        flt.getMetadata().setGeneration(null);
        flt.getMetadata().setName("nightly");
        flt.getSpec().parallelism = 2;
        flt = client.resource(flt).create();

        // 1. Rendered and created: script ConfigMap and TestRun of generation 1; no verdict yet.
        FraudLoadTestStatus s = reconcile("nightly");
        assertThat(s.testRun).isEqualTo("nightly-g1");
        assertThat(s.stage).isEqualTo(FraudLoadTestReconciler.STAGE_PENDING);
        assertThat(s.verdict).isNull();
        assertThat(client.configMaps().inNamespace(ns).withName("nightly-k6-scripts").get().getData())
                .containsOnlyKeys(LoadTestScripts.FILES);
        GenericKubernetesResource tr = testRun("nightly-g1");
        assertThat(tr).isNotNull();
        assertThat(tr.getMetadata().getOwnerReferences()).singleElement()
                .satisfies(o -> assertThat(o.getUid()).isEqualTo(client.resources(FraudLoadTest.class).inNamespace(ns)
                        .withName("nightly").get().getMetadata().getUid()));
        // The k6 CRD's schema kept every field the planner rendered (a pruned field would be silently lost);
        // the API server only adds the CRD's defaults (quiet, paused, runner.disabled).
        FraudLoadTest stored = client.resources(FraudLoadTest.class).inNamespace(ns).withName("nightly").get();
        GenericKubernetesResource planned = LoadTestPlanner.plan(stored, client.resources(FraudEngine.class).inNamespace(ns)
                .withName("fraud").get()).testRun();
        JsonNode storedSpec = jsonTree(tr.getAdditionalProperties().get("spec"));
        JsonNode plannedSpec = jsonTree(planned.getAdditionalProperties().get("spec"));
        assertThat(only(storedSpec, plannedSpec)).isEqualTo(plannedSpec);
        assertThat(LoadTestPlannerGoldenTest.env(new LoadTestPlan("nightly-g1", null, tr, List.of())))
                .containsEntry("BASE_URL", "http://fraud-engine." + ns + ".svc:8081").containsEntry("RATE", "2000");

        // 2. Running: one runner done, one active → stage from the TestRun, still no verdict.
        setStage("nightly-g1", "started");
        Job r1 = runnerJob("nightly-g1", 1);
        Job r2 = runnerJob("nightly-g1", 2);
        succeed(r1);
        s = reconcile("nightly");
        assertThat(s.stage).isEqualTo("started");
        assertThat(s.verdict).isNull();
        assertThat(s.runnersSucceeded).isEqualTo(1);
        assertThat(s.message).isEqualTo("1 of 2 runner(s) finished (stage started)");

        // 3. Mixed: the second runner failed its thresholds (k6 exit 99). The TestRun says "finished"
        //    anyway; the verdict is Failed, with the thresholds from the runner's termination message.
        fail(r2);
        terminatedPod("nightly-g1", 2, 99, "{\"passed\":false,\"failed\":[\"http_req_duration{scenario:constant}: p(99)<=10\"]}");
        setStage("nightly-g1", "finished");
        s = reconcile("nightly");
        assertThat(s.stage).isEqualTo("finished");
        assertThat(s.verdict).isEqualTo(RunVerdict.FAILED);
        assertThat(s.runnersFailed).isEqualTo(1);
        assertThat(s.failedThresholds).containsExactly("http_req_duration{scenario:constant}: p(99)<=10");
        assertThat(s.startedAt).isNotNull();
        assertThat(s.finishedAt).isNotNull();
        assertThat(s.conditions).anySatisfy(c -> {
            assertThat(c.getType()).isEqualTo(FraudLoadTestReconciler.CONDITION_COMPLETED);
            assertThat(c.getReason()).isEqualTo("ThresholdsFailed");
        });
        // The verdict of a generation is final: another reconcile changes nothing.
        assertThat(reconcileControl("nightly").isNoUpdate()).isTrue();

        // 4. Run again (spec.rerun): generation 2 is a new TestRun; generation 1's TestRun is deleted.
        client.resources(FraudLoadTest.class).inNamespace(ns).withName("nightly").edit(f -> {
            f.getSpec().rerun = 1;
            return f;
        });
        s = reconcile("nightly");
        assertThat(s.testRun).isEqualTo("nightly-g2");
        assertThat(s.verdict).as("a new run starts without the old verdict").isNull();
        assertThat(testRun("nightly-g2")).isNotNull();
        assertThat(testRun("nightly-g1")).as("the older generation's TestRun").isNull();

        // 5. Both runners of generation 2 succeed → Passed, decided from the runners while the k6-operator
        //    still says started; the stage keeps following the TestRun to its end.
        setStage("nightly-g2", "started");
        succeed(runnerJob("nightly-g2", 1));
        succeed(runnerJob("nightly-g2", 2));
        terminatedPod("nightly-g2", 1, 0, "{\"passed\":true,\"failed\":[]}");
        terminatedPod("nightly-g2", 2, 0, "{\"passed\":true,\"failed\":[]}");
        s = reconcile("nightly");
        assertThat(s.verdict).isEqualTo(RunVerdict.PASSED);
        assertThat(s.stage).isEqualTo("started");
        assertThat(s.runnersSucceeded).isEqualTo(2);
        assertThat(s.failedThresholds).isNull();
        assertThat(s.observedGeneration).isEqualTo(2L);
        assertThat(reconcileControl("nightly").getScheduleDelay()).as("polls until the TestRun ends").isPresent();
        setStage("nightly-g2", "finished");
        s = reconcile("nightly");
        assertThat(s.stage).isEqualTo("finished");
        assertThat(s.verdict).as("the verdict stays").isEqualTo(RunVerdict.PASSED);
        assertThat(reconcileControl("nightly").isNoUpdate()).isTrue();
        assertThat(reconcileControl("nightly").getScheduleDelay()).as("nothing left to follow").isEmpty();
    }

    /**
     * An engine with JWT and mutual TLS on its data port: a FraudLoadTest without credentials says which it
     * must give (its own reason); with them, the TestRun stored by the API server (k6's schema) keeps the
     * mounted Secrets and the HTTPS target.
     */
    @Test
    @SuppressWarnings("unchecked")
    void anEngineWithCallerAuthenticationNeedsTheRunnersCredentialsAndGetsThem() {
        FraudEngine guarded = client.resources(FraudEngine.class).inNamespace(ns).withName("fraud").get();
        guarded.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder().withName("guarded").withNamespace(ns).build());
        guarded.setStatus(null);
        guarded.getSpec().auth.data.jwt = true;
        guarded.getSpec().auth.data.mutualTls = true;
        guarded.getSpec().auth.jwt = new io.vigil.operator.api.v1alpha1.AuthSpec.Jwt();
        guarded.getSpec().auth.jwt.issuer = "https://issuer.example";
        guarded.getSpec().auth.jwt.audience = List.of("vigil-engine");
        guarded.getSpec().auth.jwt.jwksUrl = "https://issuer.example/jwks.json";
        guarded.getSpec().auth.tls = new io.vigil.operator.api.v1alpha1.AuthSpec.Tls();
        guarded.getSpec().auth.tls.secretName = "guarded-tls";
        guarded.getSpec().auth.tls.clientCaSecretRef = new io.vigil.operator.api.v1alpha1.SecretKeyRef("callers-ca", "ca.crt");
        client.resource(guarded).create();

        createLoadTest("smoke", "guarded-smoke", "guarded");
        FraudLoadTestStatus s = reconcile("guarded-smoke");
        assertThat(s.testRun).isNull();
        assertThat(s.conditions).singleElement().satisfies(c -> {
            assertThat(c.getStatus()).isEqualTo("False");
            assertThat(c.getReason()).isEqualTo("CallerCredentialsMissing");
            assertThat(c.getMessage()).contains("spec.runner.tokensSecretRef: required", "spec.runner.clientCertificate: required",
                    "spec.auth.data.jwt", "spec.auth.data.mutualTls");
        });

        client.resources(FraudLoadTest.class).inNamespace(ns).withName("guarded-smoke").edit(f -> {
            f.getSpec().runner = new FraudLoadTestSpec.Runner();
            f.getSpec().runner.tokensSecretRef = new io.vigil.operator.api.v1alpha1.SecretKeyRef("loadtest-tokens", "tokens");
            f.getSpec().runner.clientCertificate = new FraudLoadTestSpec.ClientCertificate();
            f.getSpec().runner.clientCertificate.secretName = "loadtest-client";
            return f;
        });
        s = reconcile("guarded-smoke");
        assertThat(s.testRun).isEqualTo("guarded-smoke-g2");
        assertThat(client.resources(FraudLoadTest.class).inNamespace(ns).withName("guarded-smoke").get().getSpec().runner.clientCertificate
                .serverCaKey).as("the CRD's default").isEqualTo("ca.crt");
        Map<String, Object> runner = (Map<String, Object>) ((Map<String, Object>) testRun("guarded-smoke-g2").getAdditionalProperties()
                .get("spec")).get("runner");
        assertThat(LoadTests.yaml(runner.get("volumes"))).contains("secretName: loadtest-tokens", "secretName: loadtest-client");
        assertThat(LoadTests.yaml(runner.get("env"))).contains("value: https://guarded-engine." + ns + ".svc:8081",
                "name: SSL_CERT_FILE", "name: CLIENT_CERT", "name: TOKENS_FILE");
    }

    @Test
    void aMissingTargetIsAConditionNotARun() {
        createLoadTest("soak", "orphan", "no-such-engine");
        FraudLoadTestStatus s = reconcile("orphan");
        assertThat(s.verdict).isNull();
        assertThat(s.testRun).isNull();
        assertThat(s.conditions).singleElement().satisfies(c -> {
            assertThat(c.getType()).isEqualTo(FraudLoadTestReconciler.CONDITION_READY_TO_RUN);
            assertThat(c.getStatus()).isEqualTo("False");
            assertThat(c.getReason()).isEqualTo("InvalidTarget");
            assertThat(c.getMessage()).contains("no-such-engine");
        });
        assertThat(client.genericKubernetesResources(LoadTestPlanner.TEST_RUNS).inNamespace(ns)
                .withLabel(LoadTestPlanner.LABEL_LOAD_TEST, "orphan").list().getItems()).isEmpty();
    }

    /** The parts of {@code actual} that {@code shape} has (objects recursively; arrays and values as they are). */
    private static JsonNode only(JsonNode actual, JsonNode shape) {
        if (!actual.isObject() || !shape.isObject()) {
            return actual;
        }
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        shape.fieldNames().forEachRemaining(k -> {
            if (actual.has(k)) {
                out.set(k, only(actual.get(k), shape.get(k)));
            }
        });
        return out;
    }

    private static JsonNode jsonTree(Object o) {
        try {
            var mapper = new com.fasterxml.jackson.databind.ObjectMapper();
            return mapper.readTree(LoadTests.SERIALIZATION.asJson(o));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    // ---- the reconciler, called as the operator SDK would, its status patch applied ----------------

    /** A FraudLoadTest fixture created in the test's namespace under its own name, against {@code engine}. */
    private void createLoadTest(String fixture, String name, String engine) {
        FraudLoadTest flt = LoadTests.fixture(fixture);
        flt.getMetadata().setNamespace(ns);
        flt.getMetadata().setUid(null);
        flt.getMetadata().setGeneration(null);
        flt.getMetadata().setName(name);
        flt.getSpec().target.fraudEngine = engine;
        client.resource(flt).create();
    }

    private FraudLoadTestStatus reconcile(String name) {
        UpdateControl<FraudLoadTest> control = reconcileControl(name);
        if (control.isPatchStatus()) {
            FraudLoadTestStatus status = control.getResource().orElseThrow().getStatus();
            client.resources(FraudLoadTest.class).inNamespace(ns).withName(name).editStatus(f -> {
                f.setStatus(status);
                return f;
            });
        }
        return client.resources(FraudLoadTest.class).inNamespace(ns).withName(name).get().getStatus();
    }

    @SuppressWarnings("unchecked")
    private UpdateControl<FraudLoadTest> reconcileControl(String name) {
        FraudLoadTest current = client.resources(FraudLoadTest.class).inNamespace(ns).withName(name).get();
        Context<FraudLoadTest> context = (Context<FraudLoadTest>) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {Context.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getClient")) {
                        return client;
                    }
                    throw new UnsupportedOperationException("Context." + method.getName() + " is not used by the reconciler");
                });
        return reconciler.reconcile(current, context);
    }

    // ---- what the k6-operator and the kubelet would do ---------------------------------------------

    private GenericKubernetesResource testRun(String name) {
        return client.genericKubernetesResources(LoadTestPlanner.TEST_RUNS).inNamespace(ns).withName(name).get();
    }

    private void setStage(String testRun, String stage) {
        GenericKubernetesResource tr = testRun(testRun);
        tr.setAdditionalProperty("status", Map.of("stage", stage));
        client.genericKubernetesResources(LoadTestPlanner.TEST_RUNS).inNamespace(ns).resource(tr).updateStatus();
    }

    private static Map<String, String> runnerLabels(String testRun) {
        return Map.of("app", "k6", "k6_cr", testRun, "runner", "true");
    }

    private Job runnerJob(String testRun, int n) {
        Job job = new JobBuilder().withNewMetadata().withName(testRun + "-" + n).withLabels(runnerLabels(testRun)).endMetadata()
                .withNewSpec().withManagedBy("vigil.io/test-plays-k6-operator").withBackoffLimit(0)
                .withNewTemplate().withNewMetadata().withLabels(runnerLabels(testRun)).endMetadata()
                .withNewSpec().withRestartPolicy("Never")
                .addNewContainer().withName("k6").withImage(LoadTestPlanner.DEFAULT_IMAGE).endContainer()
                .endSpec().endTemplate().endSpec().build();
        return client.batch().v1().jobs().inNamespace(ns).resource(job).create();
    }

    private static String now() {
        return Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    }

    private void succeed(Job job) {
        String t = now();
        Job j = client.batch().v1().jobs().inNamespace(ns).withName(job.getMetadata().getName()).get();
        j.setStatus(new io.fabric8.kubernetes.api.model.batch.v1.JobStatusBuilder().withStartTime(t).withCompletionTime(t)
                .withSucceeded(1).withFailed(0).withActive(0)
                .addNewCondition().withType("SuccessCriteriaMet").withStatus("True").withLastTransitionTime(t).endCondition()
                .addNewCondition().withType("Complete").withStatus("True").withLastTransitionTime(t).endCondition()
                .build());
        client.batch().v1().jobs().inNamespace(ns).resource(j).updateStatus();
    }

    private void fail(Job job) {
        String t = now();
        Job j = client.batch().v1().jobs().inNamespace(ns).withName(job.getMetadata().getName()).get();
        j.setStatus(new io.fabric8.kubernetes.api.model.batch.v1.JobStatusBuilder().withStartTime(t)
                .withSucceeded(0).withFailed(1).withActive(0)
                .addNewCondition().withType("FailureTarget").withStatus("True").withReason("BackoffLimitExceeded")
                .withLastTransitionTime(t).endCondition()
                .addNewCondition().withType("Failed").withStatus("True").withReason("BackoffLimitExceeded")
                .withLastTransitionTime(t).endCondition()
                .build());
        client.batch().v1().jobs().inNamespace(ns).resource(j).updateStatus();
    }

    /** A runner pod bound to a node no kubelet (nor kwok) serves, so the status the test sets stays. */
    private void terminatedPod(String testRun, int n, int exitCode, String message) {
        Pod pod = new PodBuilder().withNewMetadata().withName(testRun + "-" + n + "-runner").withLabels(runnerLabels(testRun))
                .endMetadata()
                .withNewSpec().withNodeName("no-kubelet-here").withRestartPolicy("Never")
                .addNewContainer().withName("k6").withImage(LoadTestPlanner.DEFAULT_IMAGE).endContainer().endSpec().build();
        pod = client.pods().inNamespace(ns).resource(pod).create();
        pod.setStatus(new io.fabric8.kubernetes.api.model.PodStatusBuilder().withPhase("Failed")
                .withContainerStatuses(new ContainerStatusBuilder().withName("k6").withImage(LoadTestPlanner.DEFAULT_IMAGE)
                        .withImageID("").withReady(false).withRestartCount(0)
                        .withNewState().withNewTerminated().withExitCode(exitCode).withReason("Error").withMessage(message)
                        .withStartedAt(now()).withFinishedAt(now()).endTerminated().endState().build())
                .build());
        client.pods().inNamespace(ns).resource(pod).updateStatus();
    }
}
