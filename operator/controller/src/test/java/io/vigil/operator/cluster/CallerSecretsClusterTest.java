package io.vigil.operator.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.certmanager.api.model.v1.Certificate;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.openshift.api.model.monitoring.v1.ServiceMonitor;
import io.javaoperatorsdk.operator.Operator;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vigil.operator.Fixtures;
import io.vigil.operator.TestCertificates;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.engine.Names;
import io.vigil.operator.support.OptionalCrds;
import io.vigil.testing.kube.LocalCluster;
import io.vigil.testing.kube.LocalKubernetes;
import io.vigil.testing.kube.TestNamespace;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The Secrets spec.auth and spec.personalData name, on the local control plane (real kube-apiserver;
 * kwok pods, which mount nothing, so the test asserts what the operator applies): a missing or
 * malformed one is a SecretsValid condition naming it and no engine pod is started or rolled with it;
 * creating or fixing the Secret (a watched event, no spec change) clears it and the engine rolls out.
 * With spec.auth.tls.issuerRef the operator renders a cert-manager Certificate (accepted by cert-manager's
 * own CRD schema); the test plays cert-manager (none runs here) by writing the Secret it would.
 */
@LocalKubernetes(crds = {"keda", "monitoring", "strimzi", "redis", "certmanager"})
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CallerSecretsClusterTest {

    static final Duration WAIT = Duration.ofSeconds(90);
    static final TestCertificates.Pem SERVER = TestCertificates.selfSigned("guarded-engine", "RSA");
    static final TestCertificates.Pem CALLERS_CA = TestCertificates.selfSigned("callers-ca", "RSA");

    private final KubernetesClient client;
    private final String ns;
    private Operator operator;

    CallerSecretsClusterTest(KubernetesClient client, TestNamespace namespace) {
        this.client = client;
        this.ns = namespace.name();
    }

    @BeforeAll
    void start() {
        System.setProperty("vigil.operator.recheck-seconds", "3");
        System.setProperty("vigil.operator.crd-cache-seconds", "1");
        TestOperator.installCrdsAndRulesets(client, ns);
        operator = TestOperator.start(client, ns, new SimpleMeterRegistry());
    }

    @AfterAll
    void stop() {
        operator.stop();
    }

    @Test
    void anUnusableSecretIsReportedAndHoldsTheEngineUntilItIsFixed() {
        client.resource(engine("guarded", """
                auth:
                  data: {mutualTls: true}
                  tls: {secretName: guarded-tls, clientCaSecretRef: {name: callers-ca, key: ca.crt}}
                personalData:
                  hashFields: [email]
                  hashKeySecretRef: {name: pii-key, key: key}
                """)).create();

        // Nothing there yet: the first Secret is named, and no engine Deployment is made to wait for it.
        FraudEngine fe = awaitCondition("guarded", "SecretsValid SecretMissing", c -> "SecretsValid".equals(c.getType()) && "SecretMissing".equals(c.getReason()));
        assertThat(condition(fe, "SecretsValid").getMessage()).startsWith("Secret guarded-tls (spec.auth.tls.secretName) does not exist; "
                + "Secret callers-ca (spec.auth.tls.clientCaSecretRef) does not exist; Secret pii-key (spec.personalData.hashKeySecretRef) does not exist");
        assertThat(condition(fe, "Ready").getReason()).isEqualTo("SecretMissing");
        assertThat(condition(fe, "Degraded").getReason()).isEqualTo("SecretMissing");
        assertThat(engineDeployment()).as("no engine Deployment while its Secrets are missing").isNull();

        // Created, one of them malformed: now that one, by key.
        create(secret("guarded-tls", Map.of("tls.crt", SERVER.certificate(), "tls.key", SERVER.keyPkcs1())));
        create(secret("callers-ca", Map.of("ca.crt", "-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n")));
        create(secret("pii-key", Map.of("key", "0123456789abcdef0123")));
        fe = awaitCondition("guarded", "SecretsValid SecretInvalid", c -> "SecretsValid".equals(c.getType()) && "SecretInvalid".equals(c.getReason()));
        assertThat(condition(fe, "SecretsValid").getMessage()).startsWith("Secret callers-ca key ca.crt (spec.auth.tls.clientCaSecretRef): malformed PEM");
        assertThat(engineDeployment()).isNull();

        // Fixed in place (no change to the FraudEngine): the watch brings it back, the engine is created and serves.
        client.resource(secret("callers-ca", Map.of("ca.crt", CALLERS_CA.certificate()))).update();
        fe = awaitCondition("guarded", "Ready", c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
        assertThat(condition(fe, "SecretsValid").getReason()).isEqualTo("AllUsable");
        assertThat(engineDeployment().getSpec().getTemplate().getSpec().getVolumes()).extracting(v -> v.getName())
                .contains("tls-server", "tls-client-ca", "personal-data-key");
        String servingHash = templateHash();

        // Broken later, together with a spec change: the change waits, the pods keep their configuration and keep serving.
        client.secrets().inNamespace(ns).withName("pii-key").delete();
        client.resources(FraudEngine.class).inNamespace(ns).withName("guarded").patch(PatchContext.of(PatchType.JSON_MERGE),
                "{\"spec\":{\"engine\":{\"jvmOptions\":\"-XX:+UseSerialGC -Xmx300m\"}}}");
        fe = awaitCondition("guarded", "SecretsValid SecretMissing for pii-key", c -> "SecretsValid".equals(c.getType())
                && "SecretMissing".equals(c.getReason()) && c.getMessage().startsWith("Secret pii-key "));
        assertThat(templateHash()).as("held").isEqualTo(servingHash);
        assertThat(condition(fe, "Ready").getStatus()).as("the pods of the configuration before still serve").isEqualTo("True");
        assertThat(condition(fe, "Degraded").getReason()).isEqualTo("SecretMissing");

        create(secret("pii-key", Map.of("key", "0123456789abcdef0123")));
        awaitCondition("guarded", "SecretsValid True again", c -> "SecretsValid".equals(c.getType()) && "True".equals(c.getStatus()));
        await("the held change rolled out", () -> servingHash.equals(templateHash()) ? null : templateHash());
        assertThat(engineDeployment().getSpec().getTemplate().getSpec().getContainers().get(0).getEnv())
                .anySatisfy(e -> assertThat(e.getValue()).startsWith("-XX:+UseSerialGC -Xmx300m"));
    }

    @Test
    void withAnIssuerTheOperatorAsksCertManagerForTheCertificateAndWaitsForIt() {
        create(secret("issued-callers-ca", Map.of("ca.crt", CALLERS_CA.certificate())));
        operator.stop();
        LocalCluster.uninstallCrds("certmanager");
        try {
            operator = TestOperator.start(client, ns, new SimpleMeterRegistry());
            client.resource(engine("issued", """
                    auth:
                      data: {mutualTls: true}
                      management: {tls: true}
                      tls:
                        secretName: issued-tls
                        clientCaSecretRef: {name: issued-callers-ca, key: ca.crt}
                        issuerRef: {name: payments-ca, kind: ClusterIssuer}
                    """)).create();
            // No cert-manager: said first, and the Secret it would write is missing.
            FraudEngine fe = awaitCondition("issued", "Degraded CertManagerNotInstalled",
                    c -> "Degraded".equals(c.getType()) && "CertManagerNotInstalled".equals(c.getReason()));
            assertThat(condition(fe, "Degraded").getMessage()).contains("certificates.cert-manager.io", "issued-tls");
            assertThat(condition(fe, "SecretsValid").getMessage()).startsWith("Secret issued-tls (spec.auth.tls.secretName) does not exist yet:"
                    + " cert-manager Certificate issued-engine-tls writes it once issued");
            assertThat(client.apps().deployments().inNamespace(ns).withName("issued-engine").get()).isNull();
        } finally {
            LocalCluster.installCrds("certmanager");
        }
        OptionalCrds.forget();

        // cert-manager there: the Certificate for the engine's Services (data, and management with its TLS),
        // into the Secret the pods mount.
        Certificate certificate = await("the engine's Certificate", () -> client.resources(Certificate.class).inNamespace(ns)
                .withName("issued-engine-tls").get());
        assertThat(certificate.getSpec().getSecretName()).isEqualTo("issued-tls");
        assertThat(certificate.getSpec().getDnsNames()).contains("issued-engine", "issued-engine." + ns + ".svc",
                "issued-engine-management", "issued-engine-management." + ns + ".svc");
        assertThat(certificate.getSpec().getIssuerRef().getKind()).isEqualTo("ClusterIssuer");
        assertThat(certificate.getMetadata().getOwnerReferences()).singleElement()
                .satisfies(r -> assertThat(r.getName()).isEqualTo("issued"));
        FraudEngine fe = awaitCondition("issued", "Degraded without CertManagerNotInstalled",
                c -> "Degraded".equals(c.getType()) && "SecretMissing".equals(c.getReason()));
        assertThat(condition(fe, "Ready").getReason()).isEqualTo("SecretMissing");

        // What cert-manager does once the issuer signed: a kubernetes.io/tls Secret (PKCS#8, as asked).
        TestCertificates.Pem issued = TestCertificates.selfSigned("issued-engine." + ns + ".svc", "EC");
        client.resource(new SecretBuilder().withNewMetadata().withName("issued-tls").withNamespace(ns).endMetadata()
                .withType("kubernetes.io/tls").withStringData(Map.of("tls.crt", issued.certificate(), "tls.key", issued.keyPkcs8(),
                        "ca.crt", issued.certificate())).build()).create();
        fe = awaitCondition("issued", "Ready", c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
        assertThat(condition(fe, "Degraded").getStatus()).isEqualTo("False");
        var pod = client.apps().deployments().inNamespace(ns).withName("issued-engine").get().getSpec().getTemplate().getSpec();
        assertThat(pod.getVolumes())
                .anySatisfy(v -> assertThat(v.getSecret() == null ? null : v.getSecret().getSecretName()).isEqualTo("issued-tls"));
        // HTTPS on the management port: the kubelet probes it so, and Prometheus scrapes the engine (not the
        // relay) with HTTPS, trusting the Secret's ca.crt, as stored by the API server (prometheus-operator's schema).
        assertThat(List.of(pod.getContainers().get(0).getReadinessProbe(), pod.getContainers().get(0).getLivenessProbe()))
                .allSatisfy(p -> assertThat(p.getHttpGet().getScheme()).isEqualTo("HTTPS"));
        var endpoints = client.resources(ServiceMonitor.class).inNamespace(ns).withName("issued").get().getSpec().getEndpoints();
        assertThat(endpoints).extracting(e -> e.getRelabelings().get(0).getRegex() + ":" + e.getScheme())
                .containsExactly("engine:https", "relay:null");
        assertThat(endpoints.get(0).getTlsConfig().getCa().getSecret().getName()).isEqualTo("issued-tls");
        assertThat(endpoints.get(0).getTlsConfig().getServerName()).isEqualTo("issued-engine-management." + ns + ".svc");
        assertThat(fe.getStatus().endpoints.management).startsWith("https://issued-engine-management.");
    }

    /**
     * Certificate expiry reaches status when it happens, with no event: once the FraudEngine has settled, the
     * operator's rescheduled reconcile alone turns SecretsValid to CertificateExpiresSoon at the 14-day line,
     * and Degraded to CertificateExpired at notAfter, without holding the engine (a later spec change rolls out).
     */
    @Test
    void certificateExpiryReachesStatusOnTimeWithoutAnEvent() {
        create(secret("timed-callers-ca", Map.of("ca.crt", CALLERS_CA.certificate())));
        client.resource(engine("timed", """
                auth:
                  data: {mutualTls: true}
                  tls: {secretName: timed-tls, clientCaSecretRef: {name: timed-callers-ca, key: ca.crt}}
                """)).create();

        // The 14-day line ahead: AllUsable while the engine settles, then, with nothing changed, CertificateExpiresSoon.
        // (AllUsable can only be this certificate's: one written before has crossed its line)
        settleBefore(crossing -> crossing.plus(14, ChronoUnit.DAYS), (f, crossing) -> "AllUsable".equals(condition(f, "SecretsValid").getReason()));
        FraudEngine fe = awaitCondition("timed", "SecretsValid CertificateExpiresSoon at the 14-day line",
                c -> "SecretsValid".equals(c.getType()) && "CertificateExpiresSoon".equals(c.getReason()));
        assertThat(condition(fe, "Degraded").getStatus()).isEqualTo("False");

        // notAfter ahead: expiring soon (not degraded) while it settles, then Degraded CertificateExpired.
        settleBefore(crossing -> crossing, (f, crossing) -> condition(f, "SecretsValid").getMessage().contains("expires at " + crossing)
                && "False".equals(condition(f, "Degraded").getStatus()));
        fe = awaitCondition("timed", "Degraded CertificateExpired at notAfter",
                c -> "Degraded".equals(c.getType()) && "True".equals(c.getStatus()) && "CertificateExpired".equals(c.getReason()));
        assertThat(condition(fe, "Degraded").getMessage()).startsWith("Secret timed-tls key tls.crt (spec.auth.tls.secretName): certificate"
                + " CN=timed-engine expired at ").contains("Renew it");
        assertThat(condition(fe, "SecretsValid").getReason()).isEqualTo("CertificateExpired");
        assertThat(condition(fe, "Ready").getStatus()).as("its pods still run").isEqualTo("True");

        String before = client.apps().deployments().inNamespace(ns).withName("timed-engine").get().getSpec().getTemplate()
                .getMetadata().getAnnotations().get(Names.CONFIG_HASH_ANNOTATION);
        client.resources(FraudEngine.class).inNamespace(ns).withName("timed").patch(PatchContext.of(PatchType.JSON_MERGE),
                "{\"spec\":{\"engine\":{\"jvmOptions\":\"-XX:+UseSerialGC -Xmx310m\"}}}");
        await("a spec change rolls out despite the expired certificate (nothing held)", () -> {
            String hash = client.apps().deployments().inNamespace(ns).withName("timed-engine").get().getSpec().getTemplate()
                    .getMetadata().getAnnotations().get(Names.CONFIG_HASH_ANNOTATION);
            return before.equals(hash) ? null : hash;
        });
    }

    /**
     * Writes Secret timed-tls with a certificate whose {@code notAfter(crossing)} puts the line under test at
     * {@code crossing}, and returns once the FraudEngine, Ready, matches {@code settled} (given the crossing) before that line: what
     * changes afterwards comes from the reschedule, not from the Secret's event or the rollout. A machine too
     * slow to settle in time gets a later line (no timing assumption, only a longer test).
     */
    private void settleBefore(java.util.function.UnaryOperator<Instant> notAfter, java.util.function.BiPredicate<FraudEngine, Instant> settled) {
        for (Duration horizon = Duration.ofSeconds(30); ; horizon = horizon.multipliedBy(2)) {
            Instant crossing = Instant.now().plus(horizon).truncatedTo(ChronoUnit.SECONDS);
            TestCertificates.Pem pem = TestCertificates.selfSigned("timed-engine", "EC", Instant.now().minus(1, ChronoUnit.HOURS),
                    notAfter.apply(crossing));
            client.resource(secret("timed-tls", Map.of("tls.crt", pem.certificate(), "tls.key", pem.keyPkcs8()))).createOr(r -> r.update());
            while (Instant.now().isBefore(crossing.minusSeconds(2))) {
                FraudEngine fe = client.resources(FraudEngine.class).inNamespace(ns).withName("timed").get();
                if (fe.getStatus() != null && fe.getStatus().conditions.stream().anyMatch(c -> "Ready".equals(c.getType())
                        && "True".equals(c.getStatus())) && settled.test(fe, crossing)) {
                    return;
                }
                sleep(Duration.ofMillis(250));
            }
            if (horizon.compareTo(Duration.ofMinutes(4)) > 0) {
                throw new AssertionError("FraudEngine timed did not settle before its certificate's line in 4 minutes");
            }
        }
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private Secret secret(String name, Map<String, String> data) {
        return new SecretBuilder().withNewMetadata().withName(name).withNamespace(ns).endMetadata().withStringData(data).build();
    }

    private void create(Secret s) {
        client.resource(s).create();
    }

    private Deployment engineDeployment() {
        return client.apps().deployments().inNamespace(ns).withName("guarded-engine").get();
    }

    private String templateHash() {
        return engineDeployment().getSpec().getTemplate().getMetadata().getAnnotations().get(Names.CONFIG_HASH_ANNOTATION);
    }

    private static Condition condition(FraudEngine fe, String type) {
        return fe.getStatus().conditions.stream().filter(c -> c.getType().equals(type)).findFirst().orElseThrow();
    }

    /** The FraudEngine once a condition of its current generation matches. */
    private FraudEngine awaitCondition(String name, String what, Predicate<Condition> matches) {
        return await(name + ": " + what, () -> {
            FraudEngine fe = client.resources(FraudEngine.class).inNamespace(ns).withName(name).get();
            return fe != null && fe.getStatus() != null && fe.getStatus().conditions.stream()
                    .anyMatch(c -> matches.test(c) && fe.getMetadata().getGeneration().equals(c.getObservedGeneration())) ? fe : null;
        });
    }

    private <T> T await(String what, Supplier<T> probe) {
        return TestOperator.await(what, WAIT, probe, () -> {
            StringBuilder status = new StringBuilder("status:");
            client.resources(FraudEngine.class).inNamespace(ns).list().getItems().forEach(fe -> status.append("\n").append(
                    fe.getMetadata().getName()).append(": ").append(fe.getStatus() == null ? "no status" : fe.getStatus().conditions));
            return status.toString();
        });
    }

    /** A FraudEngine of one engine pod, external stores, and the given spec.auth / spec.personalData (YAML lines, indented as under spec). */
    private FraudEngine engine(String name, String authAndPersonalData) {
        return Fixtures.SERIALIZATION.unmarshal("""
                apiVersion: vigil.io/v1alpha1
                kind: FraudEngine
                metadata: {name: %s, namespace: %s}
                spec:
                  rulesets: [{key: CARD_AUTH, version: 1}]
                  engine: {replicas: 1}
                  velocity: {redis: {external: {address: 'redis.example:6379'}}}
                  durability: {kafka: {external: {bootstrapServers: 'kafka.example:9092'}}, topic: {replicas: 1}}
                """.formatted(name, ns) + authAndPersonalData.indent(2), FraudEngine.class);
    }
}
