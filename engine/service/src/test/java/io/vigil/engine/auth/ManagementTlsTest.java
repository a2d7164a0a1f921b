package io.vigil.engine.auth;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.vigil.engine.testing.Profiles;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

/**
 * HTTPS on the management port from the named TLS configuration {@code management} (what the operator
 * sets with {@code spec.auth.management.tls}): real handshakes against a certificate of a CA made in the
 * test, plain HTTP not served there, a client of another CA refused, the data port untouched, and the
 * served certificate's expiry exposed as a metric.
 */
@QuarkusTest
@TestProfile(Profiles.Fixtures.class)
@QuarkusTestResource(value = ManagementTls.class, restrictToAnnotatedClass = true)
class ManagementTlsTest {

    private static ManagementTls tls() {
        return ManagementTls.current;
    }

    private static HttpResponse<String> get(SSLContext context, String scheme, String path) throws IOException, InterruptedException {
        HttpClient.Builder b = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5));
        if (context != null) {
            b.sslContext(context);
        }
        try (HttpClient client = b.build()) {
            return client.send(HttpRequest.newBuilder(URI.create(scheme + "://localhost:" + tls().port + path))
                    .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
        }
    }

    private static SSLContext trusting(TestCa ca) {
        return TestCa.context(null, ca.certificate());
    }

    @Test
    void healthAndRulesetsAreServedOverHttpsWithTheConfiguredCertificate() throws Exception {
        HttpResponse<String> health = get(trusting(tls().ca), "https", "/q/health/live");
        assertThat(health.statusCode()).isEqualTo(200);
        X509Certificate served = (X509Certificate) health.sslSession().orElseThrow().getPeerCertificates()[0];
        assertThat(served.getSerialNumber()).isEqualTo(tls().served.certificate().getSerialNumber());

        HttpResponse<String> rulesets = get(trusting(tls().ca), "https", "/rulesets");
        assertThat(rulesets.statusCode()).isEqualTo(200);
    }

    @Test
    void plainHttpIsNotServedOnTheManagementPort() {
        assertThatThrownBy(() -> get(null, "http", "/q/health/live")).isInstanceOf(IOException.class);
    }

    @Test
    void aClientTrustingAnotherCaRefusesTheServer() {
        assertThatThrownBy(() -> get(trusting(tls().otherCa), "https", "/q/health/live")).isInstanceOf(SSLHandshakeException.class);
    }

    @Test
    void theDataPortStaysPlainHttp() {
        given().contentType("application/json")
                .body("{\"transaction_id\":\"t-mgmt-tls\",\"card_hash\":\"c-1\",\"amount\":12.50,\"card_present\":true}")
                .post("/v1/evaluate/auth").then().statusCode(200);
    }

    /** The metric Prometheus alerts on (VigilCertificateExpiresSoon): the earliest notAfter of the served chain. */
    @Test
    void theServedCertificatesExpiryIsAMetric() throws Exception {
        HttpResponse<String> metrics = get(trusting(tls().ca), "https", "/q/metrics");
        assertThat(metrics.statusCode()).isEqualTo(200);
        Matcher m = Pattern.compile("(?m)^vigil_tls_certificate_expiry_timestamp_seconds\\{configuration=\"management\"} (\\S+)$")
                .matcher(metrics.body());
        assertThat(m.find()).as("the management configuration's expiry in\n" + metrics.body()).isTrue();
        long earliest = Math.min(tls().served.certificate().getNotAfter().getTime(), tls().ca.certificate().getNotAfter().getTime());
        assertThat(Double.parseDouble(m.group(1))).isCloseTo(earliest / 1000.0, org.assertj.core.data.Offset.offset(0.001));
    }
}
