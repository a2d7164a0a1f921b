package io.vigil.engine.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.vigil.engine.testing.Profiles;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The management port with HTTPS and read/write roles, as make auth-probe tries it: a real HTTP/2 client
 * (the JDK's, ALPN h2) with a bearer token over the engine's limit gets the engine's 401 {@code too_large},
 * counted, as over HTTP/1.1; not a bare 431 from the HTTP server's header-list limit (issue 19,
 * ManagementHeaderListLimit).
 */
@QuarkusTest
@TestProfile(Profiles.Fixtures.class)
@QuarkusTestResource(value = JwtIssuer.class, restrictToAnnotatedClass = true)
@QuarkusTestResource(value = ManagementTls.class, restrictToAnnotatedClass = true)
class ManagementHttp2Test {
    /** Above the engine's token limit (vigil.auth.jwt.max-token-bytes, 4 KiB here) and Vert.x's 8 KiB HTTP/2 header list. */
    static final String OVERSIZED = "Bearer " + "x".repeat(12 * 1024);

    private static HttpResponse<String> get(HttpClient.Version version, String path, String authorization) throws Exception {
        HttpClient client = HttpClient.newBuilder().version(version).sslContext(TestCa.context(null, ManagementTls.current.ca.certificate()))
                .connectTimeout(Duration.ofSeconds(5)).build();
        try (client) {
            return client.send(HttpRequest.newBuilder(URI.create("https://localhost:" + ManagementTls.current.port + path))
                    .timeout(Duration.ofSeconds(10)).header("Authorization", authorization).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
        }
    }

    private static double tooLarge() throws Exception {
        HttpResponse<String> m = get(HttpClient.Version.HTTP_1_1, "/q/metrics", "Bearer " + JwtIssuer.METRICS_TOKEN);
        assertThat(m.statusCode()).isEqualTo(200);
        Matcher c = Pattern.compile("(?m)^vigil_auth_refused_total\\{port=\"management\",reason=\"too_large\"} ([0-9.eE+-]+)$").matcher(m.body());
        return c.find() ? Double.parseDouble(c.group(1)) : 0;
    }

    private static void refusedAsTooLarge(HttpClient.Version version) throws Exception {
        double before = tooLarge();
        HttpResponse<String> r = get(version, "/rulesets", OVERSIZED);
        assertThat(r.version()).isEqualTo(version);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(401);
        assertThat(r.body()).contains("\"code\":\"UNAUTHENTICATED\"");
        assertThat(r.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(h -> assertThat(h).contains("error=\"invalid_token\""));
        assertThat(tooLarge()).isEqualTo(before + 1);
    }

    @Test
    void anOversizedTokenOverHttp2Is401TooLargeAndCounted() throws Exception {
        refusedAsTooLarge(HttpClient.Version.HTTP_2);
    }

    @Test
    void anOversizedTokenOverHttp11Is401TooLargeAndCounted() throws Exception {
        refusedAsTooLarge(HttpClient.Version.HTTP_1_1);
    }

    @Test
    void aReaderIsServedOverHttp2() throws Exception {
        HttpResponse<String> r = get(HttpClient.Version.HTTP_2, "/rulesets", "Bearer " + JwtIssuer.current.token("vigil.read"));
        assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    }
}
