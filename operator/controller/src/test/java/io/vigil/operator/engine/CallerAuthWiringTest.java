package io.vigil.operator.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.vigil.operator.Fixtures;
import io.vigil.operator.api.v1alpha1.AuthSpec;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.api.v1alpha1.SecretKeyRef;
import io.vigil.operator.engine.desired.EngineWorkload;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** spec.auth and spec.personalData reach the engine pod as its settings and mounted Secrets (ADR 0013). */
class CallerAuthWiringTest {

    private static PodSpec pod(FraudEngine fe) {
        return EngineWorkload.deployment(DesiredStateTest.plan(fe)).getSpec().getTemplate().getSpec();
    }

    private static Map<String, String> env(Container c) {
        return c.getEnv().stream().filter(e -> e.getValue() != null).collect(Collectors.toMap(EnvVar::getName, EnvVar::getValue));
    }

    @Test
    void offByDefault() {
        PodSpec pod = pod(Fixtures.engine("defaults"));
        Map<String, String> env = env(pod.getContainers().get(0));
        assertThat(env.keySet()).noneMatch(k -> k.startsWith("VIGIL_AUTH_") || k.startsWith("VIGIL_OUTBOX_PERSONAL_DATA_"));
        assertThat(env.get("JAVA_TOOL_OPTIONS")).doesNotContain("quarkus.tls");
        assertThat(pod.getVolumes()).extracting(Volume::getName).containsExactly("rulesets", "tmp");
        assertThat(io.vigil.operator.engine.desired.Monitoring.serviceMonitor(Fixtures.engine("defaults")).getSpec().getEndpoints().get(0)
                .getAuthorization()).isNull();
    }

    @Test
    void jwtOnBothPortsAndMutualTlsAreWiredWithTheirSecretsMounted() {
        FraudEngine fe = Fixtures.engine("defaults");
        AuthSpec a = fe.getSpec().auth;
        a.data.jwt = true;
        a.data.requiredScope = "vigil.evaluate";
        a.data.mutualTls = true;
        a.data.allowedSubjects = List.of("spiffe://acme/ns/payments/sa/switch", "CN=switch-b,O=Acme");
        a.management.jwt = true;
        a.management.metricsTokenSecretRef = new SecretKeyRef("scrape", "token");
        a.jwt = new AuthSpec.Jwt();
        a.jwt.issuer = "https://issuer.acme";
        a.jwt.audience = List.of("vigil-engine", "fraud");
        a.jwt.jwksSecretRef = new SecretKeyRef("issuer-keys", "jwks.json");
        a.tls = new AuthSpec.Tls();
        a.tls.secretName = "engine-tls";
        a.tls.clientCaSecretRef = new SecretKeyRef("callers-ca", "ca.crt");
        PodSpec pod = pod(fe);
        Container c = pod.getContainers().get(0);
        Map<String, String> env = env(c);
        assertThat(env).containsEntry("VIGIL_AUTH_DATA_JWT_ENABLED", "true")
                .containsEntry("VIGIL_AUTH_DATA_REQUIRED_SCOPE", "vigil.evaluate")
                .containsEntry("VIGIL_AUTH_JWT_ISSUER", "https://issuer.acme")
                .containsEntry("VIGIL_AUTH_JWT_AUDIENCE", "vigil-engine,fraud")
                .containsEntry("VIGIL_AUTH_JWT_JWKS_FILE", "/etc/vigil/auth/jwks/jwks.json")
                .containsEntry("VIGIL_AUTH_MANAGEMENT_JWT_ENABLED", "true")
                .containsEntry("VIGIL_AUTH_MANAGEMENT_METRICS_TOKEN_FILE", "/etc/vigil/auth/metrics/token")
                .containsEntry("VIGIL_AUTH_DATA_CLIENT_CERTIFICATE_REQUIRED", "true")
                .containsEntry("VIGIL_AUTH_DATA_ALLOWED_SUBJECTS", "spiffe://acme/ns/payments/sa/switch,CN=switch-b\\,O=Acme")
                .doesNotContainKey("VIGIL_AUTH_JWT_JWKS_URL");
        // Quarkus's named TLS configuration only takes system properties (checked on the packaged engine)
        assertThat(env.get("JAVA_TOOL_OPTIONS")).startsWith(fe.getSpec().engine.jvmOptions)
                .contains(" -Dquarkus.http.ssl-port=8081", " -Dquarkus.http.insecure-requests=disabled",
                        " -Dquarkus.http.tls-configuration-name=data",
                        " -Dquarkus.tls.data.key-store.pem.0.cert=/etc/vigil/tls/server/tls.crt",
                        " -Dquarkus.tls.data.trust-store.pem.certs=/etc/vigil/tls/client-ca/ca.crt");
        assertThat(pod.getVolumes()).extracting(Volume::getName)
                .contains("auth-jwks", "auth-metrics-token", "tls-server", "tls-client-ca");
        Volume jwks = pod.getVolumes().stream().filter(v -> v.getName().equals("auth-jwks")).findFirst().orElseThrow();
        assertThat(jwks.getSecret().getSecretName()).isEqualTo("issuer-keys");
        assertThat(jwks.getSecret().getItems()).singleElement().satisfies(i -> {
            assertThat(i.getKey()).isEqualTo("jwks.json");
            assertThat(i.getPath()).isEqualTo("jwks.json");
        });
        assertThat(c.getVolumeMounts()).anySatisfy(m -> {
            assertThat(m.getName()).isEqualTo("tls-server");
            assertThat(m.getMountPath()).isEqualTo("/etc/vigil/tls/server");
            assertThat(m.getReadOnly()).isTrue();
        });
        // the data port keeps its name and number: HTTPS there, plain HTTP (disabled) moved aside
        assertThat(c.getPorts()).extracting(p -> p.getName() + ":" + p.getContainerPort()).contains("data:8081");
        // Prometheus scrapes with the metrics credential
        var endpoint = io.vigil.operator.engine.desired.Monitoring.serviceMonitor(fe).getSpec().getEndpoints().get(0);
        assertThat(endpoint.getAuthorization().getType()).isEqualTo("Bearer");
        assertThat(endpoint.getAuthorization().getCredentials().getName()).isEqualTo("scrape");
        assertThat(endpoint.getAuthorization().getCredentials().getKey()).isEqualTo("token");
    }

    @Test
    void aJwksUrlNeedsNoVolumeAndPersonalDataMountsItsKey() {
        FraudEngine fe = Fixtures.engine("defaults");
        fe.getSpec().auth.data.jwt = true;
        fe.getSpec().auth.jwt = new AuthSpec.Jwt();
        fe.getSpec().auth.jwt.issuer = "https://issuer.acme";
        fe.getSpec().auth.jwt.audience = List.of("vigil-engine");
        fe.getSpec().auth.jwt.jwksUrl = "https://issuer.acme/jwks";
        fe.getSpec().personalData.hashFields = List.of("email", "phone");
        fe.getSpec().personalData.dropFields = List.of("ip_address");
        fe.getSpec().personalData.hashKeySecretRef = new SecretKeyRef("pii-key", "key");
        PodSpec pod = pod(fe);
        assertThat(env(pod.getContainers().get(0))).containsEntry("VIGIL_AUTH_JWT_JWKS_URL", "https://issuer.acme/jwks")
                .containsEntry("VIGIL_OUTBOX_PERSONAL_DATA_HASH_FIELDS", "email,phone")
                .containsEntry("VIGIL_OUTBOX_PERSONAL_DATA_DROP_FIELDS", "ip_address")
                .containsEntry("VIGIL_OUTBOX_PERSONAL_DATA_HASH_KEY_FILE", "/etc/vigil/personal-data/key")
                .doesNotContainKey("VIGIL_AUTH_JWT_JWKS_FILE");
        assertThat(pod.getVolumes()).extracting(Volume::getName).containsExactly("rulesets", "tmp", "personal-data-key");
    }

    @Test
    void managementTlsServesHttpsWithTheEngineCertificateAndProbesAndScrapesFollow() {
        FraudEngine fe = Fixtures.engine("defaults");
        AuthSpec a = fe.getSpec().auth;
        a.management.tls = true;
        a.tls = new AuthSpec.Tls();
        a.tls.secretName = "engine-tls";
        a.tls.issuerRef = new AuthSpec.IssuerRef();
        a.tls.issuerRef.name = "payments-ca";
        fe.getSpec().observability.serviceMonitor.enabled = true;
        PodSpec pod = pod(fe);
        Container c = pod.getContainers().get(0);
        // its own named TLS configuration, the same certificate files; the data port stays plain HTTP
        assertThat(env(c).get("JAVA_TOOL_OPTIONS")).contains(" -Dquarkus.management.tls-configuration-name=management",
                        " -Dquarkus.tls.management.key-store.pem.0.cert=/etc/vigil/tls/server/tls.crt",
                        " -Dquarkus.tls.management.key-store.pem.0.key=/etc/vigil/tls/server/tls.key",
                        " -Dquarkus.tls.management.reload-period=1m")
                .doesNotContain("quarkus.tls.data", "quarkus.http.ssl-port", "insecure-requests");
        assertThat(List.of(c.getStartupProbe(), c.getLivenessProbe(), c.getReadinessProbe()))
                .allSatisfy(p -> assertThat(p.getHttpGet().getScheme()).isEqualTo("HTTPS"));
        // the certificate, its key and the CA the scrape trusts; no client CA (no client certificates asked)
        Volume server = pod.getVolumes().stream().filter(v -> v.getName().equals("tls-server")).findFirst().orElseThrow();
        assertThat(server.getSecret().getItems()).extracting(i -> i.getKey()).containsExactly("tls.crt", "tls.key", "ca.crt");
        assertThat(pod.getVolumes()).extracting(Volume::getName).doesNotContain("tls-client-ca");

        // cert-manager's Certificate names the management Service too: Prometheus checks that name
        var certificate = io.vigil.operator.engine.desired.EngineCallerAuth.certificate(fe);
        String ns = fe.getMetadata().getNamespace();
        String management = io.vigil.operator.engine.Names.engineManagement(fe);
        assertThat(certificate.getSpec().getDnsNames()).contains(io.vigil.operator.engine.Names.engine(fe) + "." + ns + ".svc",
                management, management + "." + ns + ".svc", management + "." + ns + ".svc.cluster.local");

        var endpoints = io.vigil.operator.engine.desired.Monitoring.serviceMonitor(fe).getSpec().getEndpoints();
        assertThat(endpoints).hasSize(2);
        assertThat(endpoints.get(0).getRelabelings().get(0).getRegex()).isEqualTo("engine");
        assertThat(endpoints.get(0).getScheme()).isEqualTo("https");
        assertThat(endpoints.get(0).getTlsConfig().getCa().getSecret().getName()).isEqualTo("engine-tls");
        assertThat(endpoints.get(0).getTlsConfig().getCa().getSecret().getKey()).isEqualTo("ca.crt");
        assertThat(endpoints.get(0).getTlsConfig().getServerName()).isEqualTo(management + "." + ns + ".svc");
        // the relay's management port is plain HTTP
        assertThat(endpoints.get(1).getRelabelings().get(0).getRegex()).isEqualTo("relay");
        assertThat(endpoints.get(1).getScheme()).isNull();
        assertThat(endpoints.get(1).getTlsConfig()).isNull();
    }

    @Test
    void theMetricsTokenGoesToTheEngineOnlyNeverToTheRelay() {
        FraudEngine fe = Fixtures.engine("defaults");
        fe.getSpec().auth.management.jwt = true;
        fe.getSpec().auth.management.metricsTokenSecretRef = new SecretKeyRef("scrape", "token");
        var endpoints = io.vigil.operator.engine.desired.Monitoring.serviceMonitor(fe).getSpec().getEndpoints();
        assertThat(endpoints.get(0).getAuthorization().getCredentials().getName()).isEqualTo("scrape");
        assertThat(endpoints.get(0).getScheme()).isNull();
        assertThat(endpoints.get(1).getAuthorization()).isNull();
    }
}
