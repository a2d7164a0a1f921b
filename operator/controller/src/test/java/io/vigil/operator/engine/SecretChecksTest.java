package io.vigil.operator.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.vigil.operator.Fixtures;
import io.vigil.operator.TestCertificates;
import io.vigil.operator.api.v1alpha1.AuthSpec;
import io.vigil.operator.api.v1alpha1.FraudEngine;
import io.vigil.operator.api.v1alpha1.SecretKeyRef;
import io.vigil.operator.engine.SecretChecks.SecretProblem;
import io.vigil.operator.engine.desired.EngineCallerAuth;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The Secrets spec.auth and spec.personalData name, checked as the engine will read them. */
class SecretChecksTest {

    static final TestCertificates.Pem SERVER = TestCertificates.selfSigned("vigil-engine.payments.svc", "RSA");
    static final TestCertificates.Pem CA = TestCertificates.selfSigned("callers-ca", "EC");
    static final String JWKS = """
            {"keys":[{"kty":"EC","crv":"P-256","kid":"k1","use":"sig",
              "x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}]}""";

    /** Every Secret kind referenced: JWKS, metrics token, TLS pair and client CA, hashing key. */
    static FraudEngine engine() {
        FraudEngine fe = Fixtures.engine("external");
        AuthSpec a = fe.getSpec().auth;
        a.data.jwt = true;
        a.data.mutualTls = true;
        a.management.jwt = true;
        a.management.metricsTokenSecretRef = new SecretKeyRef("scrape", "token");
        a.jwt = new AuthSpec.Jwt();
        a.jwt.issuer = "https://issuer.acme";
        a.jwt.audience = List.of("vigil-engine");
        a.jwt.jwksSecretRef = new SecretKeyRef("issuer-keys", "jwks.json");
        a.tls = new AuthSpec.Tls();
        a.tls.secretName = "engine-tls";
        a.tls.clientCaSecretRef = new SecretKeyRef("callers-ca", "ca.crt");
        fe.getSpec().personalData.hashFields = List.of("email");
        fe.getSpec().personalData.hashKeySecretRef = new SecretKeyRef("pii-key", "key");
        return fe;
    }

    static Secret secret(String name, Map<String, String> data) {
        Map<String, String> encoded = new HashMap<>();
        data.forEach((k, v) -> encoded.put(k, Base64.getEncoder().encodeToString(v.getBytes(StandardCharsets.UTF_8))));
        return new SecretBuilder().withNewMetadata().withName(name).endMetadata().withData(encoded).build();
    }

    static Map<String, Secret> good() {
        Map<String, Secret> s = new HashMap<>();
        s.put("issuer-keys", secret("issuer-keys", Map.of("jwks.json", JWKS)));
        s.put("scrape", secret("scrape", Map.of("token", "s3cret-scrape-token\n")));
        // ca.crt: what the ServiceMonitor's HTTPS scrape of the management port trusts (cert-manager's CA issuers write it)
        s.put("engine-tls", secret("engine-tls", Map.of("tls.crt", SERVER.certificate() + CA.certificate(), "tls.key", SERVER.keyPkcs1(),
                "ca.crt", CA.certificate())));
        s.put("callers-ca", secret("callers-ca", Map.of("ca.crt", CA.certificate())));
        s.put("pii-key", secret("pii-key", Map.of("key", "0123456789abcdef")));
        return s;
    }

    static List<SecretProblem> check(Map<String, Secret> secrets) {
        return SecretChecks.check(EngineCallerAuth.secrets(engine()), secrets::get);
    }

    @Test
    void usableSecretsHaveNoProblem() {
        assertThat(check(good())).isEmpty();
        Map<String, Secret> pkcs8 = good();
        pkcs8.put("engine-tls", secret("engine-tls", Map.of("tls.crt", SERVER.certificate(), "tls.key", SERVER.keyPkcs8(), "ca.crt", CA.certificate())));
        assertThat(check(pkcs8)).as("a PKCS#8 key").isEmpty();
        assertThat(SecretChecks.check(EngineCallerAuth.secrets(Fixtures.engine("defaults")), n -> null)).as("nothing referenced").isEmpty();
    }

    @Test
    void aMissingSecretIsNamedOnceWithTheFieldThatNamesIt() {
        Map<String, Secret> s = good();
        s.remove("engine-tls");
        assertThat(check(s)).singleElement().satisfies(p -> {
            assertThat(p.reason()).isEqualTo("SecretMissing");
            assertThat(p.message()).isEqualTo("Secret engine-tls (spec.auth.tls.secretName) does not exist");
        });
    }

    @Test
    void aMissingKeyNamesTheKeysThereAre() {
        Map<String, Secret> s = good();
        s.put("callers-ca", secret("callers-ca", Map.of("tls.crt", CA.certificate())));
        assertThat(check(s)).singleElement().satisfies(p -> {
            assertThat(p.reason()).isEqualTo("SecretKeyMissing");
            assertThat(p.message()).isEqualTo("Secret callers-ca (spec.auth.tls.clientCaSecretRef) has no key ca.crt (its keys: [tls.crt])");
        });
    }

    @Test
    void unusableContentIsInvalidWithWhy() {
        Map<String, Secret> s = good();
        s.put("issuer-keys", secret("issuer-keys", Map.of("jwks.json", "{\"keys\":[{\"kty\":\"oct\",\"k\":\"c2VjcmV0\"}]}")));
        s.put("scrape", secret("scrape", Map.of("token", "  \n")));
        s.put("callers-ca", secret("callers-ca", Map.of("ca.crt", "not a certificate")));
        s.put("pii-key", secret("pii-key", Map.of("key", "short")));
        assertThat(check(s)).allSatisfy(p -> assertThat(p.reason()).isEqualTo("SecretInvalid"))
                .extracting(SecretProblem::message).containsExactly(
                        "Secret issuer-keys key jwks.json (spec.auth.jwt.jwksSecretRef): the JWKS holds no public signature key"
                                + " (symmetric and encryption keys are not used)",
                        "Secret scrape key token (spec.auth.management.metricsTokenSecretRef): the metrics token is empty",
                        "Secret callers-ca key ca.crt (spec.auth.tls.clientCaSecretRef): no PEM certificate (-----BEGIN CERTIFICATE-----) in it",
                        "Secret pii-key key key (spec.personalData.hashKeySecretRef): holds 5 bytes; a hashing key needs at least 16");
        s.put("issuer-keys", secret("issuer-keys", Map.of("jwks.json", "{\"keys\": [")));
        assertThat(check(s).get(0).message()).startsWith("Secret issuer-keys key jwks.json (spec.auth.jwt.jwksSecretRef): ");
    }

    @Test
    void aKeyOfAnotherCertificateOrABrokenPemIsInvalid() {
        Map<String, Secret> s = good();
        s.put("engine-tls", secret("engine-tls", Map.of("tls.crt", SERVER.certificate(), "tls.key", CA.keyPkcs8(), "ca.crt", CA.certificate())));
        assertThat(check(s)).singleElement().satisfies(p -> {
            assertThat(p.reason()).isEqualTo("SecretInvalid");
            assertThat(p.message()).startsWith("Secret engine-tls key tls.key (spec.auth.tls.secretName): the private key (EC) does not belong to"
                    + " the certificate CN=vigil-engine.payments.svc");
        });
        TestCertificates.Pem other = TestCertificates.selfSigned("other", "RSA");
        s.put("engine-tls", secret("engine-tls", Map.of("tls.crt", SERVER.certificate(), "tls.key", other.keyPkcs1(), "ca.crt", CA.certificate())));
        assertThat(check(s)).singleElement().satisfies(p -> assertThat(p.message())
                .endsWith("the private key does not belong to the certificate CN=vigil-engine.payments.svc in tls.crt"));
        String broken = SERVER.certificate().replace("\n-----END", "!!\n-----END").replaceFirst("\n[A-Za-z0-9+/]", "\n%");
        s.put("engine-tls", secret("engine-tls", Map.of("tls.crt", broken, "tls.key", "", "ca.crt", CA.certificate())));
        assertThat(check(s)).extracting(SecretProblem::reason, SecretProblem::message).containsExactly(
                org.assertj.core.groups.Tuple.tuple("SecretInvalid", check(s).get(0).message()),
                org.assertj.core.groups.Tuple.tuple("SecretInvalid",
                        "Secret engine-tls key tls.key (spec.auth.tls.secretName): no PEM private key (-----BEGIN [RSA |EC ]PRIVATE KEY-----) in it"));
        assertThat(check(s).get(0).message()).startsWith("Secret engine-tls key tls.crt (spec.auth.tls.secretName): malformed PEM");
    }

    /** With HTTPS on the management port Prometheus trusts ca.crt of the engine's TLS Secret: checked before it scrapes. */
    @Test
    void anHttpsScrapeNeedsTheCaInTheTlsSecret() {
        Map<String, Secret> s = good();
        s.put("engine-tls", secret("engine-tls", Map.of("tls.crt", SERVER.certificate(), "tls.key", SERVER.keyPkcs1())));
        assertThat(check(s)).singleElement().satisfies(p -> {
            assertThat(p.reason()).isEqualTo(SecretChecks.SECRET_KEY_MISSING);
            assertThat(p.message()).isEqualTo("Secret engine-tls (spec.auth.tls.secretName (ca.crt for the ServiceMonitor's HTTPS scrape))"
                    + " has no key ca.crt (its keys: [tls.crt, tls.key])");
        });
        FraudEngine noMonitor = engine();
        noMonitor.getSpec().observability.serviceMonitor.enabled = false;
        assertThat(SecretChecks.check(EngineCallerAuth.secrets(noMonitor), s::get)).as("no ServiceMonitor, no CA needed").isEmpty();
    }

    static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");
    static final TestCertificates.Pem EXPIRING_SERVER = TestCertificates.selfSigned("vigil-engine.payments.svc", "EC",
            NOW.minus(300, ChronoUnit.DAYS), NOW.plus(9, ChronoUnit.DAYS));
    static final TestCertificates.Pem OLD_CA = TestCertificates.selfSigned("old-callers-ca", "EC", NOW.minus(800, ChronoUnit.DAYS),
            NOW.minus(1, ChronoUnit.DAYS));
    static final TestCertificates.Pem NEW_CA = TestCertificates.selfSigned("new-callers-ca", "EC", NOW.minus(10, ChronoUnit.DAYS),
            NOW.plus(700, ChronoUnit.DAYS));

    /** The Secrets of {@link #good()} with certificates dated around {@link #NOW}: the server's expires in 9 days. */
    static Map<String, Secret> expiringAt2030() {
        Map<String, Secret> s = good();
        s.put("engine-tls", secret("engine-tls", Map.of("tls.crt", EXPIRING_SERVER.certificate(), "tls.key", EXPIRING_SERVER.keyPkcs8(),
                "ca.crt", NEW_CA.certificate())));
        // a CA bundle during a rotation: the old CA expired, the new one good; judged by the latest
        s.put("callers-ca", secret("callers-ca", Map.of("ca.crt", OLD_CA.certificate() + NEW_CA.certificate())));
        return s;
    }

    @Test
    void aCertificateNearItsEndIsSaidButDoesNotMakeTheSecretUnusable() {
        Map<String, Secret> s = expiringAt2030();
        assertThat(SecretChecks.check(EngineCallerAuth.secrets(engine()), s::get, NOW)).singleElement().satisfies(p -> {
            assertThat(p.reason()).isEqualTo(SecretChecks.CERTIFICATE_EXPIRES_SOON);
            assertThat(p.blocking()).isFalse();
            assertThat(p.message()).isEqualTo("Secret engine-tls key tls.crt (spec.auth.tls.secretName): certificate CN=vigil-engine.payments.svc"
                    + " expires at 2030-01-10T00:00:00Z (within 14 days)");
        });
        assertThat(SecretChecks.check(EngineCallerAuth.secrets(engine()), s::get, NOW.minus(30, ChronoUnit.DAYS)))
                .as("a month earlier: nothing to say").isEmpty();
    }

    @Test
    void anExpiredCertificateIsSaidWithItsDate() {
        Map<String, Secret> s = expiringAt2030();
        s.put("callers-ca", secret("callers-ca", Map.of("ca.crt", OLD_CA.certificate())));
        assertThat(SecretChecks.check(EngineCallerAuth.secrets(engine()), s::get, NOW))
                .extracting(SecretProblem::reason, SecretProblem::message).containsExactly(
                        org.assertj.core.groups.Tuple.tuple(SecretChecks.CERTIFICATE_EXPIRES_SOON, "Secret engine-tls key tls.crt"
                                + " (spec.auth.tls.secretName): certificate CN=vigil-engine.payments.svc expires at 2030-01-10T00:00:00Z (within 14 days)"),
                        org.assertj.core.groups.Tuple.tuple(SecretChecks.CERTIFICATE_EXPIRED, "Secret callers-ca key ca.crt"
                                + " (spec.auth.tls.clientCaSecretRef): certificate CN=old-callers-ca expired at 2029-12-31T00:00:00Z"));
    }
    /**
     * The reconcile is rescheduled for the moment the verdict changes by itself: the deciding certificate's
     * 14-day line, then its notAfter (a CA bundle by its latest certificate), computed from notAfter.
     */
    @Test
    void theNextExpiryChangeComesFromTheDecidingCertificatesNotAfter() {
        Map<String, Secret> s = expiringAt2030();
        var mounted = EngineCallerAuth.secrets(engine());
        Instant serverNotAfter = Instant.parse("2030-01-10T00:00:00Z");
        assertThat(SecretChecks.nextExpiryChange(mounted, s::get, NOW)).as("within 14 days: its notAfter is next").contains(serverNotAfter);
        assertThat(SecretChecks.nextExpiryChange(mounted, s::get, NOW.minus(30, ChronoUnit.DAYS)))
                .as("a month earlier: the 14-day line").contains(serverNotAfter.minus(SecretChecks.EXPIRES_SOON));
        assertThat(SecretChecks.nextExpiryChange(mounted, s::get, serverNotAfter))
                .as("the server's expired: the new CA's 14-day line (the expired old CA of the bundle does not decide)")
                .contains(NOW.plus(700 - 14, ChronoUnit.DAYS));
        assertThat(SecretChecks.nextExpiryChange(mounted, n -> null, NOW)).as("no Secret: nothing to wait for").isEmpty();

        assertThat(FraudEngineReconciler.untilCertificateChange(serverNotAfter, serverNotAfter.minusSeconds(90)))
                .as("one second past the crossing").isEqualTo(java.time.Duration.ofSeconds(91));
        assertThat(FraudEngineReconciler.untilCertificateChange(serverNotAfter, NOW))
                .as("9 days away: bounded, looked at again before").isEqualTo(FraudEngineReconciler.CERTIFICATE_WAIT_MAX);
        assertThat(FraudEngineReconciler.untilCertificateChange(serverNotAfter, serverNotAfter.plusSeconds(5)))
                .as("never a busy loop").isEqualTo(java.time.Duration.ofSeconds(1));
    }
}
