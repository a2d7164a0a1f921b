package io.vigil.engine.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.vigil.engine.testing.Management;
import io.vigil.engine.testing.Profiles;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.cert.X509Certificate;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;

/**
 * Mutual TLS on the data port against certificates of a real CA made in the test: allowed subjects by
 * SPIFFE ID and by DN, a subject not allowed, no certificate, a certificate from another CA, and the
 * server certificate replaced on disk while the engine runs.
 */
@QuarkusTest
@TestProfile(Profiles.Fixtures.class)
@QuarkusTestResource(value = MtlsCallers.class, restrictToAnnotatedClass = true)
class CallerMtlsTest {
    static final String TXN = "{\"transaction_id\":\"t-mtls\",\"card_hash\":\"c-1\",\"amount\":12.50,\"card_present\":true}";

    private static MtlsCallers callers() {
        return MtlsCallers.current;
    }

    private static HttpResponse<String> post(SSLContext tls, String path) throws IOException, InterruptedException {
        HttpClient client = HttpClient.newBuilder().sslContext(tls).version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        try (client) {
            return client.send(HttpRequest.newBuilder(URI.create("https://localhost:" + callers().port + path))
                    .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(TXN)).build(), HttpResponse.BodyHandlers.ofString());
        }
    }

    private static SSLContext client(String subject, String uri) {
        return callers().ca.client(subject, uri).clientContext(callers().ca.certificate());
    }

    private static double refused(String reason) {
        String m = Management.given().when().get("/q/metrics").then().statusCode(200).extract().asString();
        var matcher = java.util.regex.Pattern.compile("(?m)^vigil_auth_refused_total\\{port=\"data\",reason=\"" + reason + "\"} ([0-9.]+)$")
                .matcher(m);
        return matcher.find() ? Double.parseDouble(matcher.group(1)) : 0;
    }

    /**
     * Over HTTP/2 the server's header-list limit (Vert.x: 8 KiB by default) answered 431 before the
     * engine saw a large bearer token, so such refusals were not counted (make auth-probe, issue 19).
     * The limit is raised above the engine's own token limit (vigil.auth.data.max-token-bytes).
     */
    @Test
    void http2CarriesHeadersBeyondTheTokenLimitToTheEngine() throws Exception {
        HttpClient client = HttpClient.newBuilder().sslContext(client("CN=anything,O=Payments", MtlsCallers.SPIFFE))
                .version(HttpClient.Version.HTTP_2).connectTimeout(Duration.ofSeconds(5)).build();
        try (client) {
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("https://localhost:" + callers().port + "/v1/evaluate/auth"))
                    .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
                    .header("X-Padding", "x".repeat(12 * 1024))
                    .POST(HttpRequest.BodyPublishers.ofString(TXN)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_2);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        }
    }

    @Test
    void anAllowedSpiffeIdDecides() throws Exception {
        HttpResponse<String> r = post(client("CN=anything,O=Payments", MtlsCallers.SPIFFE), "/v1/evaluate/auth");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("\"transaction_id\":\"t-mtls\"");
    }

    @Test
    void anAllowedSubjectDecides() throws Exception {
        assertThat(post(client(MtlsCallers.ALLOWED_DN, null), "/v1/evaluate/auth").statusCode()).isEqualTo(200);
    }

    @Test
    void aCertificateOfTheCaWithAnotherSubjectIs403() throws Exception {
        double before = refused("subject_not_allowed");
        HttpResponse<String> r = post(client("CN=intruder,O=Vigil Test", "spiffe://vigil.test/ns/other/sa/intruder"), "/v1/evaluate/auth");
        assertThat(r.statusCode()).isEqualTo(403);
        assertThat(r.body()).contains("\"code\":\"FORBIDDEN\"");
        assertThat(refused("subject_not_allowed")).isEqualTo(before + 1);
    }

    @Test
    void noClientCertificateIs401() throws Exception {
        double before = refused("no_certificate");
        HttpResponse<String> r = post(TestCa.context(null, callers().ca.certificate()), "/v1/evaluate/auth");
        assertThat(r.statusCode()).isEqualTo(401);
        assertThat(r.body()).contains("\"code\":\"UNAUTHENTICATED\"").contains("no client certificate");
        assertThat(refused("no_certificate")).isEqualTo(before + 1);
    }

    @Test
    void aCertificateFromAnotherCaFailsTheHandshake() {
        SSLContext other = callers().otherCa.client(MtlsCallers.ALLOWED_DN, MtlsCallers.SPIFFE)
                .insistingClientContext(callers().ca.certificate());
        assertThatThrownBy(() -> post(other, "/v1/evaluate/auth")).isInstanceOf(IOException.class);
    }

    @Test
    void plainHttpIsNotServed() {
        HttpClient plain = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        assertThatThrownBy(() -> {
            try (plain) {
                plain.send(HttpRequest.newBuilder(URI.create("http://localhost:" + callers().port + "/v1/evaluate/auth"))
                        .timeout(Duration.ofSeconds(5)).POST(HttpRequest.BodyPublishers.ofString(TXN)).build(),
                        HttpResponse.BodyHandlers.ofString());
            }
        }).isInstanceOf(IOException.class);
    }

    /**
     * The renewed certificate is served by new connections without a restart. While Vert.x swaps the
     * server's TLS context, a connection accepted in that instant can fail its handshake (Vert.x 4.5
     * reads the pending update's result as null: ADR 0013, "Consequences"); such a caller reconnects.
     * After the swap every connection gets the new certificate.
     */
    @Test
    void aReplacedServerCertificateIsServedWithoutRestart() throws Exception {
        TestCa.Issued renewed = callers().ca.server();
        renewed.write(callers().dir, "server");
        long until = System.nanoTime() + 15_000_000_000L;
        boolean swapped = false;
        while (!swapped && System.nanoTime() < until) {
            try {
                HttpResponse<String> r = post(client(MtlsCallers.ALLOWED_DN, null), "/v1/evaluate/auth");
                X509Certificate served = (X509Certificate) r.sslSession().orElseThrow().getPeerCertificates()[0];
                swapped = served.getSerialNumber().equals(renewed.certificate().getSerialNumber());
            } catch (javax.net.ssl.SSLHandshakeException during) {
                // the swap instant; see above
            }
            Thread.sleep(200);
        }
        assertThat(swapped).as("the renewed certificate is served").isTrue();
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> r = post(client(MtlsCallers.ALLOWED_DN, null), "/v1/evaluate/auth");
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(((X509Certificate) r.sslSession().orElseThrow().getPeerCertificates()[0]).getSerialNumber())
                    .isEqualTo(renewed.certificate().getSerialNumber());
        }
    }
}
