package io.vigil.charts;

import static org.assertj.core.api.Assertions.assertThat;

import io.vigil.testing.app.PackagedApp;
import io.vigil.testing.kafka.KafkaBroker;
import io.vigil.testing.redis.RedisServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every metric the SLO rules and the dashboards read is exported by the running engine and relay:
 * the packaged engine and relay run as processes against a real redis-server and a real Kafka broker,
 * serve some traffic (including a rejected request and a rejected ruleset version, whose meters only
 * exist once that happened), and their /q/metrics pages are compared with the names in the PromQL.
 * A renamed meter makes this fail instead of leaving an alert that can never fire. The engine gets a
 * TLS configuration named {@code management} (a certificate made here with the JDK's keytool, as the
 * operator mounts one with spec.auth.management.tls), so its certificate-expiry gauge exists; it is not
 * bound to the management port here, which PackagedApp probes over HTTP (ManagementTlsTest covers HTTPS).
 */
class MetricNamesTest {
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{[^}]*})?\\s");
    /** Series Prometheus makes itself, not the applications. */
    private static final Set<String> PROMETHEUS_OWN = Set.of("up");
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    static RedisServer redis;
    static KafkaBroker kafka;
    static Path work;
    static PackagedApp engine;
    static PackagedApp relay;
    static int enginePort;
    static int engineManagement;
    static int relayManagement;

    @BeforeAll
    static void start() throws Exception {
        work = Files.createTempDirectory("vigil-metric-names");
        redis = RedisServer.start();
        kafka = KafkaBroker.start();
        kafka.createTopic("fraud.card.decisions.v1", 1);
        Path rulesets = work.resolve("rulesets");
        copyTree(Repo.ROOT.resolve("engine/rulesets"), rulesets);

        // Launched as make run launches them (PackagedApp: the shared settings), started once ready.
        // C1 only: this test is about names, not speed, and starts faster on a loaded 2-core machine.
        engine = PackagedApp.engine()
                .jvmOptions("-Xmx256m", "-XX:TieredStopAtLevel=1")
                .property("vigil.rulesets.dir", rulesets)
                .property("vigil.rulesets.poll-interval", "200ms")
                .property("quarkus.redis.hosts", redis.uri())
                .property("quarkus.redis.outbox.hosts", redis.uri())
                // generous deadline: this test is about names, not speed, on a loaded 2-core machine
                .property("vigil.engine.deadline", "2s")
                .property("quarkus.tls.management.key-store.p12.path", managementKeyStore())
                .property("quarkus.tls.management.key-store.p12.password", "changeit")
                .log(work.resolve("engine.log"))
                .start();
        relay = PackagedApp.relay()
                .jvmOptions("-XX:TieredStopAtLevel=1")
                .property("quarkus.redis.hosts", redis.uri())
                .property("vigil.relay.bootstrap-servers", kafka.bootstrapServers())
                .log(work.resolve("relay.log"))
                .start();
        enginePort = engine.httpPort();
        engineManagement = engine.managementPort();
        relayManagement = relay.managementPort();

        for (int i = 0; i < 20; i++) {
            post("/v1/evaluate/auth", "{\"transaction_id\":\"names-" + i + "\",\"card_hash\":\"c" + (i % 3)
                    + "\",\"amount\":" + (10 + i) + ",\"currency\":\"EUR\",\"country_code\":\"FR\",\"merchant_category_code\":\"5411\"}");
        }
        post("/v1/evaluate/monitoring", "{\"transaction_id\":\"names-m\",\"decision\":\"APPROVE\",\"amount\":5}");
        assertThat(post("/v1/evaluate/auth", "{\"amount\":1}").statusCode()).isEqualTo(400);
        // A version that does not validate: counted as a load failure, the active one keeps serving.
        Path bad = rulesets.resolve("CARD_AUTH/v99/ruleset.yaml");
        Files.createDirectories(bad.getParent());
        Files.writeString(bad, "ruleset_key: CARD_AUTH\nruleset_version: 99\nexecution_mode: FIRST_MATCH\nrules:\n"
                + "  - rule_id: broken\n    condition: {field: amount, op: neq, value: 1}\n    action: DECLINE\n");
        Files.writeString(rulesets.resolve("CARD_AUTH/active"), "99\n");
        await(() -> scrape(engineManagement).containsKey("vigil_ruleset_load_failures_total"), "ruleset load failure counted");
        // The relay has seen the stream once the events were published to Kafka.
        await(() -> scrape(relayManagement).keySet().stream().anyMatch(k -> k.equals("vigil_relay_published_total")), "relay metrics");
    }

    @AfterAll
    static void stop() {
        if (relay != null) {
            relay.close();
        }
        if (engine != null) {
            engine.close();
        }
        if (kafka != null) {
            kafka.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void everyMetricTheRulesAndDashboardsReadIsExported() {
        Set<String> exported = new TreeSet<>(scrape(engineManagement).keySet());
        exported.addAll(scrape(relayManagement).keySet());

        Map<String, String> used = new TreeMap<>();
        String rules = Repo.renderRules();
        SloRules.rules(SloRules.parseYaml(rules)).forEach(r -> SloRules.metricNames(r.path("expr").asText())
                .forEach(n -> used.putIfAbsent(n, "rule " + r.path("record").asText(r.path("alert").asText()))));
        for (Dashboards.Expr e : Dashboards.expressions()) {
            SloRules.metricNames(e.substituted()).forEach(n -> used.putIfAbsent(n, e.dashboard() + " " + e.where()));
        }
        PROMETHEUS_OWN.forEach(used::remove);

        assertThat(used).as("metric names found in the PromQL").hasSizeGreaterThan(30);
        Map<String, String> missing = new LinkedHashMap<>(used);
        missing.keySet().removeAll(exported);
        assertThat(missing).as("metrics read by rules/dashboards but exported by neither engine nor relay").isEmpty();
    }

    @Test
    void theLatencyObjectivesAreBucketBoundariesOfTheEngineHistogram() {
        Map<String, List<String>> engine = scrape(engineManagement);
        List<String> buckets = engine.get("vigil_evaluate_seconds_bucket");
        assertThat(buckets).isNotNull();
        // the local rendering's objectives (2 / 5 / 10 ms) as the rules spell them in their le matchers
        String rules = Repo.renderRules();
        Matcher m = Pattern.compile("vigil_evaluate_seconds_bucket\\{[^}]*le=\"([^\"]+)\"").matcher(rules);
        Set<String> les = new TreeSet<>();
        while (m.find()) {
            les.add(m.group(1));
        }
        assertThat(les).containsExactlyInAnyOrder("0.005", "0.01");
        for (String le : les) {
            assertThat(buckets).as("le=%s exported", le).anyMatch(labels -> labels.contains("le=\"" + le + "\""));
        }
        assertThat(buckets).anyMatch(labels -> labels.contains("le=\"0.002\""));
    }

    @Test
    void theNameExtractorFindsMetricsNotFunctionsLabelsOrRecordingRules() {
        assertThat(SloRules.metricNames("sum by (le, mode) (rate(vigil_a_bucket{job=\"x\",le=\"0.01\"}[5m])) "
                + "/ on (namespace) vigil:rec:ratio{namespace=\"n\"} + absent(up{job=\"y\"} == 1) or vector(0) > 0.5"))
                .containsExactlyInAnyOrder("vigil_a_bucket", "up");
    }

    // ------------------------------------------------------------------ helpers

    /** Metric name to the label sets of its samples. */
    static Map<String, List<String>> scrape(int port) {
        Map<String, List<String>> out = new TreeMap<>();
        for (String line : get(port, "/q/metrics").body().split("\n")) {
            Matcher m = SAMPLE.matcher(line);
            if (!line.startsWith("#") && m.find()) {
                out.computeIfAbsent(m.group(1), k -> new ArrayList<>()).add(m.group(2) == null ? "" : m.group(2));
            }
        }
        return out;
    }

    static HttpResponse<String> get(int port, String path) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static HttpResponse<String> post(String path, String body) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + enginePort + path)).timeout(Duration.ofSeconds(10))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Polls until true; bounded (90 s: JVM start-ups on a loaded 2-core machine). */
    static void await(java.util.function.BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (System.nanoTime() < deadline) {
            for (PackagedApp p : List.of(engine, relay)) {
                assertThat(p.isRunning()).as("process exited while waiting for " + what).isTrue();
            }
            if (condition.getAsBoolean()) {
                return;
            }
            try {
                Thread.sleep(250);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        throw new AssertionError("timed out waiting for " + what);
    }

    /** A self-signed certificate for 127.0.0.1 in a PKCS#12 key store, made with the JDK's keytool. */
    static Path managementKeyStore() throws IOException, InterruptedException {
        Path keystore = work.resolve("management.p12");
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        Process p = new ProcessBuilder(keytool.toString(), "-genkeypair", "-alias", "engine", "-keyalg", "EC", "-groupname", "secp256r1",
                "-dname", "CN=127.0.0.1", "-ext", "san=ip:127.0.0.1,dns:localhost", "-validity", "2", "-storetype", "PKCS12",
                "-keystore", keystore.toString(), "-storepass", "changeit").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as("keytool: " + out).isZero();
        return keystore;
    }

    static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
    }

}
