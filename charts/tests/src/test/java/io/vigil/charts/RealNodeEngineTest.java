package io.vigil.charts;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vigil.testing.app.PackagedApp;
import io.vigil.testing.kafka.KafkaBroker;
import io.vigil.testing.kube.LocalCluster;
import io.vigil.testing.kube.LocalKubernetes;
import io.vigil.testing.kube.TestNamespace;
import io.vigil.testing.redis.RedisServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * What the operator renders, run for real (issue 21): on the local cluster's real node (containerd +
 * kubelet, ADR 0008) the engine and relay images built by {@code make images} run as the FraudEngine's
 * pods, with a real Redis and a real Kafka on the host reached through the node's address. The
 * packaged operator runs as a local process (as in ChartsOnClusterTest); the FraudEngine and its
 * FraudRulesets are applied with kubectl.
 *
 * <ul>
 *   <li>the pods land on the real node, not kwok, and become Ready through their own probes;</li>
 *   <li>a decision through the engine's Service (ClusterIP, via kube-proxy) is NORMAL with velocity
 *       results, and its event reaches Kafka (same decision_id);</li>
 *   <li>a deleted engine pod is replaced and the replacement serves;</li>
 *   <li>an image that does not exist, and an engine that exits at start, are named in Ready;</li>
 *   <li>a FraudLoadTest runs real k6 in a pod on the real node (the operator's own TestRun runner,
 *       ADR 0014) and its verdict comes from k6's results.</li>
 * </ul>
 */
@LocalKubernetes(realNode = true, crds = "k6")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RealNodeEngineTest {

    static final String TOPIC = "fraud.card.decisions.v1";
    /** Longest wait for one step (image import and JVM start on a busy machine take a minute or two). */
    static final Duration POD_START = Duration.ofMinutes(4);
    static final ObjectMapper JSON = new ObjectMapper();

    private final KubernetesClient client;
    private final String ns;
    private RedisServer redis;
    private KafkaBroker kafka;
    private PackagedApp operator;
    private Path operatorLog;
    private String runnerImage;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    RealNodeEngineTest(KubernetesClient client, TestNamespace namespace) {
        this.client = client;
        this.ns = namespace.name();
    }

    @BeforeAll
    void imagesStoresAndOperator() throws Exception {
        LocalCluster.importRepositoryImage("engine");
        LocalCluster.importRepositoryImage("relay");
        runnerImage = LocalCluster.importRepositoryImage("loadtest-runner");
        redis = RedisServer.builder().reachableFromPods().start();
        kafka = KafkaBroker.builder().reachableFromPods().start();
        kafka.createTopic(TOPIC, 1);

        Kube.applyVigilCrds();
        operatorLog = Files.createTempFile("vigil-operator-real-node", ".log");
        operator = ChartsOnClusterTest.operatorWatching(ns)
                // No k6-operator here: the operator runs the FraudLoadTests' TestRuns itself (ADR 0014).
                .env("VIGIL_LOADTEST_RUNNER", "jobs")
                .log(operatorLog)
                .start();
        Kube.kubectl(Repo.ROOT.resolve("environments/local/samples/rulesets").toString(), "-n", ns, "apply").assertOk();
    }

    @AfterAll
    void stopAll() throws Exception {
        try {
            // The pods go with the namespace; deleting the FraudEngines first frees the node sooner.
            Kube.kubectl(null, "-n", ns, "delete", "fraudloadtests,fraudengines", "--all", "--wait=false");
        } finally {
            if (operator != null) {
                operator.close();
            }
            if (kafka != null) {
                kafka.close();
            }
            if (redis != null) {
                redis.close();
            }
        }
    }

    @Test
    void theFraudEngineServesFromItsOwnPodsOnTheRealNode() throws Exception {
        apply(fraudEngine("real", ""));
        awaitReady("real");

        for (String component : List.of("engine", "relay")) {
            List<Pod> pods = pods("real", component);
            assertThat(pods).as(component + " pods").isNotEmpty().allSatisfy(p -> {
                assertThat(p.getSpec().getNodeName()).as(p.getMetadata().getName() + " runs on the real node").isEqualTo(LocalCluster.REAL_NODE);
                assertThat(p.getStatus().getContainerStatuses()).allSatisfy(c -> {
                    assertThat(c.getReady()).as("ready through its readiness probe").isTrue();
                    assertThat(c.getContainerID()).startsWith("containerd://");
                });
            });
        }

        warmUp("real");
        String decisionId = decideThroughService("real", "real-node-1");
        assertThat(decisionEvent(decisionId)).as("the decision event in Kafka").contains(decisionId);

        // The engine pod deleted: the Deployment's replacement serves.
        Pod first = pods("real", "engine").getFirst();
        client.pods().resource(first).delete();
        await("a replacement engine pod Ready", () -> pods("real", "engine").stream()
                .anyMatch(p -> !p.getMetadata().getName().equals(first.getMetadata().getName()) && ready(p)));
        awaitReady("real");
        Pod replacement = pods("real", "engine").stream().filter(RealNodeEngineTest::ready).findFirst().orElseThrow();
        assertThat(replacement.getSpec().getNodeName()).isEqualTo(LocalCluster.REAL_NODE);
        warmUp("real");
        String second = decideThroughService("real", "real-node-2");
        assertThat(decisionEvent(second)).contains(second);
    }

    @Test
    void anImageThatDoesNotExistIsNamedInReady() throws Exception {
        String image = "localhost/vigil/engine:does-not-exist";
        apply(fraudEngine("missing-image", "image: " + image));
        Map<String, Object> ready = awaitCondition("missing-image", "Ready",
                c -> "False".equals(c.get("status")) && "ImagePullFailed".equals(c.get("reason")));
        assertThat((String) ready.get("message")).contains(image);
        Kube.kubectl(null, "-n", ns, "delete", "fraudengine", "missing-image", "--wait=false").assertOk();
    }

    @Test
    void anEngineThatExitsAtStartIsCrashLoopingWithItsLastMessage() throws Exception {
        // The JVM refuses an unknown option and exits 1 before the engine starts; its last log lines
        // are the termination message (FallbackToLogsOnError).
        apply(fraudEngine("crashing", "jvmOptions: \"-XX:+VigilNoSuchOption\""));
        Map<String, Object> ready = awaitCondition("crashing", "Ready",
                c -> "False".equals(c.get("status")) && "CrashLooping".equals(c.get("reason")));
        assertThat((String) ready.get("message")).contains("VigilNoSuchOption", "last exit code 1");
        Kube.kubectl(null, "-n", ns, "delete", "fraudengine", "crashing", "--wait=false").assertOk();
    }

    /**
     * Part 3 of issue 21: real k6 in pods on the real node against the engine's Service, and verdicts
     * from k6's own results. A few seconds at 20/s each (CI's budget): thresholds the engine holds on a
     * busy machine pass; an impossible p99 fails with the threshold named; an engine with no pod
     * serving fails (every request failed), not as a pass.
     */
    @Test
    @SuppressWarnings("unchecked")
    void aFraudLoadTestRunsRealK6InAPodAndItsVerdictComesFromTheResults() throws Exception {
        apply(fraudEngine("k6-target", ""));
        apply(fraudEngine("k6-down", "image: localhost/vigil/engine:does-not-exist"));
        awaitReady("k6-target");
        warmUp("k6-target");
        apply(fraudLoadTest("holds", "k6-target", "{p50Ms: 2000, p95Ms: 3000, p99Ms: 5000, errorRate: 0.2}"));
        apply(fraudLoadTest("impossible", "k6-target", "{p99Ms: 0.01}"));
        apply(fraudLoadTest("down", "k6-down", "{p99Ms: 5000, errorRate: 0.2}"));

        Map<String, Object> holds = awaitVerdict("holds");
        assertThat(holds.get("verdict")).as("holds: " + holds).isEqualTo("Passed");
        assertThat(holds.get("runnersSucceeded")).as("holds: " + holds).isEqualTo(1);
        String log = runnerLog("holds");
        assertThat(log).as("k6's summary of holds").contains("against http://k6-target-engine." + ns + ".svc:8081: PASSED");
        // Requests really answered: the overall row counts them (20/s for 5 s, give or take the edges).
        java.util.regex.Matcher overall = java.util.regex.Pattern.compile("overall\\s+(\\d+) req").matcher(log);
        assertThat(overall.find()).as(log).isTrue();
        assertThat(Integer.parseInt(overall.group(1))).as(log).isGreaterThanOrEqualTo(50);

        Map<String, Object> impossible = awaitVerdict("impossible");
        assertThat(impossible.get("verdict")).as("impossible: " + impossible).isEqualTo("Failed");
        assertThat((List<String>) impossible.get("failedThresholds")).as("impossible: " + impossible)
                .anySatisfy(t -> assertThat(t).contains("p(99)<=0.01"));
        assertThat(conditionReason(impossible, "Completed")).isEqualTo("ThresholdsFailed");
        assertThat(runnerLog("impossible")).contains(": FAILED");

        Map<String, Object> down = awaitVerdict("down");
        assertThat(down.get("verdict")).as("down: " + down).isEqualTo("Failed");
        // k6's setup cannot reach the engine: every request failed, and the summary names the threshold.
        assertThat((List<String>) down.get("failedThresholds")).as("down: " + down)
                .anySatisfy(t -> assertThat(t).startsWith("http_req_failed"));
        assertThat(runnerLog("down")).contains("engine not reachable at http://k6-down-engine." + ns + ".svc:8081");
    }

    String fraudLoadTest(String name, String engine, String thresholds) {
        return """
                apiVersion: vigil.io/v1alpha1
                kind: FraudLoadTest
                metadata:
                  name: %s
                spec:
                  target: {fraudEngine: %s}
                  scenario: constant-arrival-rate
                  rate: 20
                  duration: 5s
                  thresholds: %s
                  runner:
                    image: %s
                    resources: {requests: {cpu: 50m, memory: 64Mi}, limits: {memory: 256Mi}}
                    scheduling:
                      nodeSelector: {vigil.io/node: real}
                      tolerations: [{key: vigil.io/real-node, operator: Exists, effect: NoSchedule}]
                """.formatted(name, engine, thresholds, runnerImage);
    }

    @SuppressWarnings("unchecked")
    Map<String, Object> awaitVerdict(String loadTest) throws Exception {
        Object[] last = new Object[1];
        await("FraudLoadTest " + loadTest + " verdict", () -> {
            GenericKubernetesResource flt = client.genericKubernetesResources("vigil.io/v1alpha1", "FraudLoadTest")
                    .inNamespace(ns).withName(loadTest).get();
            last[0] = flt == null ? null : flt.getAdditionalProperties().get("status");
            return last[0] instanceof Map<?, ?> status && status.get("verdict") != null;
        }, () -> "last status: " + last[0]);
        Map<String, Object> status = (Map<String, Object>) last[0];
        // k6 ran for real, in a pod on the real node.
        Pod runner = client.pods().inNamespace(ns).withLabel("k6_cr", status.get("testRun").toString()).list().getItems().getFirst();
        assertThat(runner.getSpec().getNodeName()).as(runner.getMetadata().getName()).isEqualTo(LocalCluster.REAL_NODE);
        assertThat(runner.getStatus().getContainerStatuses().getFirst().getContainerID()).startsWith("containerd://");
        return status;
    }

    String runnerLog(String loadTest) {
        Pod runner = client.pods().inNamespace(ns).withLabel("k6_cr", loadTest + "-g1").list().getItems().getFirst();
        return client.pods().inNamespace(ns).withName(runner.getMetadata().getName()).getLog();
    }

    @SuppressWarnings("unchecked")
    static String conditionReason(Map<String, Object> status, String type) {
        return ((List<Map<String, Object>>) status.get("conditions")).stream().filter(c -> type.equals(c.get("type")))
                .map(c -> (String) c.get("reason")).findFirst().orElse(null);
    }

    /** The FraudEngine a user would write for this cluster: external Redis/Kafka by host address, the real node. */
    String fraudEngine(String name, String engineLine) {
        String redisAddress = redis.podUri().substring("redis://".length());
        return """
                apiVersion: vigil.io/v1alpha1
                kind: FraudEngine
                metadata:
                  name: %s
                spec:
                  rulesets:
                    - {key: CARD_AUTH, version: 2}
                    - {key: CARD_MONITORING, version: 1}
                  engine:
                    replicas: 1
                    # The test machine is shared and busy: a longer deadline than the default 5 ms, so a
                    # slow moment is not mistaken for an unreachable velocity store.
                    deadline: 50ms
                    resources: {requests: {cpu: 100m, memory: 256Mi}, limits: {memory: 768Mi}}
                    %s
                  velocity:
                    redis: {external: {address: "%s"}}
                  durability:
                    relay:
                      resources: {requests: {cpu: 50m, memory: 192Mi}, limits: {memory: 512Mi}}
                    kafka: {external: {bootstrapServers: "%s"}}
                    topic: {name: %s}
                  scheduling:
                    nodeSelector: {vigil.io/node: real}
                    tolerations: [{key: vigil.io/real-node, operator: Exists, effect: NoSchedule}]
                  observability:
                    serviceMonitor: {enabled: false}
                    prometheusRule: {enabled: false}
                """.formatted(name, engineLine, redisAddress, kafka.podBootstrapServers(), TOPIC);
    }

    void apply(String yaml) throws Exception {
        Path file = Files.createTempFile("fraudengine", ".yaml");
        Files.writeString(file, yaml);
        Kube.kubectl(file.toString(), "-n", ns, "apply").assertOk();
    }

    String decideThroughService(String engine, String transactionId) throws Exception {
        String clusterIp = client.services().inNamespace(ns).withName(engine + "-engine").get().getSpec().getClusterIP();
        String body = """
                {"transaction_id":"%s","card_hash":"c-%s","amount":23.40,"currency":"EUR","merchant_id":"m-grocery-001",
                 "merchant_category_code":"5411","card_present":true,"country_code":"DE","card_bin":"411111"}"""
                .formatted(transactionId, transactionId);
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://" + clusterIp + ":8081/v1/evaluate/auth?explain=true"))
                .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        JsonNode answer = JSON.readTree(response.body());
        assertThat(answer.path("engine_mode").asText()).as(response.body()).isEqualTo("NORMAL");
        assertThat(answer.path("decision").asText()).as(response.body()).isEqualTo("APPROVE");
        assertThat(answer.path("velocity_results").isArray() && !answer.path("velocity_results").isEmpty())
                .as("velocity results in " + response.body()).isTrue();
        assertThat(answer.path("velocity_results").get(0).path("available").asBoolean()).as(response.body()).isTrue();
        return answer.path("decision_id").asText();
    }

    /**
     * A just-started JVM spends its first requests' deadline on class loading and JIT (DEADLINE_EXCEEDED,
     * as `make run` shows without its warm-up): 40 requests first, their answers not judged.
     */
    void warmUp(String engine) throws Exception {
        String clusterIp = client.services().inNamespace(ns).withName(engine + "-engine").get().getSpec().getClusterIP();
        for (int i = 0; i < 40; i++) {
            String body = "{\"transaction_id\":\"warmup-" + UUID.randomUUID() + "\",\"card_hash\":\"c-warmup-" + i
                    + "\",\"amount\":" + i + ".5,\"merchant_category_code\":\"5411\",\"card_present\":true}";
            http.send(HttpRequest.newBuilder(URI.create("http://" + clusterIp + ":8081/v1/evaluate/auth"))
                    .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.discarding());
        }
    }

    String decisionEvent(String decisionId) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "real-node-test-" + UUID.randomUUID());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
            consumer.subscribe(List.of(TOPIC));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (System.nanoTime() < deadline) {
                for (var record : consumer.poll(Duration.ofSeconds(1))) {
                    if (record.value() != null && record.value().contains(decisionId)) {
                        return record.value();
                    }
                }
            }
        }
        throw new AssertionError("no event with decision_id " + decisionId + " in " + TOPIC + " within 120 s");
    }

    List<Pod> pods(String engine, String component) {
        return client.pods().inNamespace(ns).withLabel("app.kubernetes.io/instance", engine)
                .withLabel("app.kubernetes.io/component", component).list().getItems().stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null).toList();
    }

    static boolean ready(Pod p) {
        return p.getStatus() != null && p.getStatus().getConditions() != null && p.getStatus().getConditions().stream()
                .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    void awaitReady(String engine) throws Exception {
        awaitCondition(engine, "Ready", c -> "True".equals(c.get("status")));
    }

    @SuppressWarnings("unchecked")
    Map<String, Object> awaitCondition(String engine, String type, java.util.function.Predicate<Map<String, Object>> wanted) throws Exception {
        Object[] found = new Object[1];
        await("FraudEngine " + engine + " condition " + type, () -> {
            GenericKubernetesResource fe = client.genericKubernetesResources(ChartsOnClusterTest.FRAUD_ENGINE).inNamespace(ns).withName(engine).get();
            if (fe == null || !(fe.getAdditionalProperties().get("status") instanceof Map<?, ?> status)
                    || !(status.get("conditions") instanceof List<?> conditions)) {
                return false;
            }
            for (Object o : conditions) {
                Map<String, Object> c = (Map<String, Object>) o;
                if (type.equals(c.get("type"))) {
                    found[0] = c;
                    return wanted.test(c);
                }
            }
            return false;
        }, () -> "last " + type + ": " + found[0]);
        return (Map<String, Object>) found[0];
    }

    void await(String what, java.util.function.BooleanSupplier condition) throws Exception {
        await(what, condition, () -> "");
    }

    /**
     * Waits up to {@link #POD_START}, saying every 30 s what it waits for. It fails at once when the
     * operator exited or gave up on the FraudEngine (an uncaught reconcile error: nothing would change
     * until the next event), and its message holds what explains a wait that fails: the FraudEngine's
     * status, the pods, the namespace's events and the operator log's tail.
     */
    void await(String what, java.util.function.BooleanSupplier condition, Supplier<String> detail) throws Exception {
        long start = System.nanoTime();
        long deadline = start + POD_START.toNanos();
        long nextProgress = start + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) {
                return;
            }
            if (!operator.isRunning()) {
                throw new AssertionError("operator process exited while waiting for " + what + diagnostics());
            }
            String gaveUp = operatorGaveUp();
            if (gaveUp != null) {
                throw new AssertionError("the operator gave up reconciling (" + gaveUp + ") while waiting for " + what + diagnostics());
            }
            if (System.nanoTime() > nextProgress) {
                System.err.printf("[real-node] %ds: still waiting for %s (%s)%n",
                        TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start), what, detail.get());
                nextProgress += TimeUnit.SECONDS.toNanos(30);
            }
            Thread.sleep(1000);
        }
        throw new AssertionError("timed out after " + POD_START.toSeconds() + " s waiting for " + what + " (" + detail.get() + ")" + diagnostics());
    }

    /** The operator log's "Exhausted retries" line for a FraudEngine of this namespace, or null. */
    String operatorGaveUp() throws Exception {
        return Files.readAllLines(operatorLog).stream()
                .filter(l -> l.contains("Exhausted retries") && l.contains("namespace='" + ns + "'"))
                .findFirst().orElse(null);
    }

    String diagnostics() throws Exception {
        return "\nFraudEngines:\n" + Kube.kubectl(null, "-n", ns, "get", "fraudengines", "-o",
                        "custom-columns=NAME:.metadata.name,CONDITIONS:.status.conditions[*].type,STATUS:.status.conditions[*].status,REASONS:.status.conditions[*].reason").stdout()
                + "\npods:\n" + Kube.kubectl(null, "-n", ns, "get", "pods", "-o", "wide").stdout()
                + "\nevents:\n" + tail(Kube.kubectl(null, "-n", ns, "get", "events", "--sort-by=.lastTimestamp").stdout(), 30)
                + "\noperator log (errors):\n" + tail(String.join("\n", Files.readAllLines(operatorLog).stream()
                        .filter(l -> l.contains(" ERROR ") || l.startsWith("Caused by")).toList()), 10)
                + "\noperator log tail:\n" + ChartsOnClusterTest.tail(operatorLog);
    }

    static String tail(String text, int lines) {
        List<String> all = text.lines().toList();
        return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    }
}
