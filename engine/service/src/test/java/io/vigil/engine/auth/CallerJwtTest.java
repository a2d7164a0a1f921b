package io.vigil.engine.auth;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.vigil.engine.testing.Management;
import io.vigil.engine.testing.Profiles;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jose4j.jwa.AlgorithmConstraints;
import org.jose4j.jwk.RsaJsonWebKey;
import org.jose4j.jws.AlgorithmIdentifiers;
import org.jose4j.jws.JsonWebSignature;
import org.jose4j.jwt.JwtClaims;
import org.jose4j.jwt.NumericDate;
import org.jose4j.keys.HmacKey;
import org.junit.jupiter.api.Test;

/**
 * Bearer JWTs on both ports against a real issuer ({@link JwtIssuer}: real RSA keys, a JWKS over HTTP):
 * every refusal with its status, code, WWW-Authenticate and counted reason; the cache; rotation and an
 * issuer outage; read and write roles on the management port.
 */
@QuarkusTest
@TestProfile(Profiles.Fixtures.class)
@QuarkusTestResource(value = JwtIssuer.class, restrictToAnnotatedClass = true)
class CallerJwtTest {
    static final String AUTH = "/v1/evaluate/auth";
    static final String TXN = "{\"transaction_id\":\"t-jwt\",\"card_hash\":\"c-1\",\"amount\":12.50,\"card_present\":true}";

    private static JwtIssuer issuer() {
        return JwtIssuer.current;
    }

    private static Response evaluate(String token) {
        var r = given().contentType(ContentType.JSON).body(TXN);
        if (token != null) {
            r = r.header("Authorization", "Bearer " + token);
        }
        return r.when().post(AUTH);
    }

    private static String metrics() {
        return Management.given().header("Authorization", "Bearer " + JwtIssuer.METRICS_TOKEN)
                .when().get("/q/metrics").then().statusCode(200).extract().asString();
    }

    private static double counter(String metrics, String series) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(series) + " ([0-9.eE+-]+)$").matcher(metrics);
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }

    private static double refused(String port, String reason) {
        return counter(metrics(), "vigil_auth_refused_total{port=\"" + port + "\",reason=\"" + reason + "\"}");
    }

    /** A refusal on the data port: its status, code, bearer error, and one more count under its reason. */
    private static void refusedOnData(String token, int status, String bearerError, String reason) {
        double before = refused("data", reason);
        Response r = evaluate(token);
        r.then().statusCode(status).contentType(ContentType.JSON)
                .body("code", equalTo(status == 401 ? "UNAUTHENTICATED" : "FORBIDDEN"))
                .body("message", not(containsString(token == null ? "-none-" : token.substring(0, Math.min(20, token.length())))));
        String header = r.getHeader("WWW-Authenticate");
        assertThat(header).startsWith("Bearer realm=\"vigil\"");
        if (bearerError != null) {
            assertThat(header).contains("error=\"" + bearerError + "\"");
        }
        assertThat(refused("data", reason)).as("vigil_auth_refused_total reason=%s", reason).isEqualTo(before + 1);
    }

    @Test
    void aValidTokenWithTheScopeDecides() {
        evaluate(issuer().token("vigil.evaluate")).then().statusCode(200).body("transaction_id", equalTo("t-jwt"));
    }

    @Test
    void aSeenTokenIsNotVerifiedAgain() {
        String token = issuer().token("vigil.evaluate");
        double before = counter(metrics(), "vigil_auth_token_verifications_total");
        for (int i = 0; i < 5; i++) {
            evaluate(token).then().statusCode(200);
        }
        assertThat(counter(metrics(), "vigil_auth_token_verifications_total")).isEqualTo(before + 1);
    }

    @Test
    void noTokenIs401WithoutAnErrorCode() {
        refusedOnData(null, 401, null, "missing");
        Response r = given().contentType(ContentType.JSON).header("Authorization", "Basic dXNlcjpwYXNz").body(TXN).post(AUTH);
        r.then().statusCode(401).body("code", equalTo("UNAUTHENTICATED"));
    }

    @Test
    void expiredBeyondTheSkewIsRefused() {
        refusedOnData(issuer().token(c -> {
            c.setIssuedAt(NumericDate.fromSeconds(NumericDate.now().getValue() - 600));
            c.setExpirationTime(NumericDate.fromSeconds(NumericDate.now().getValue() - 120));
        }, "vigil.evaluate"), 401, "invalid_token", "expired");
    }

    @Test
    void expiredWithinTheSkewIsAccepted() {
        evaluate(issuer().token(c -> {
            c.setIssuedAt(NumericDate.fromSeconds(NumericDate.now().getValue() - 60));
            c.setExpirationTime(NumericDate.fromSeconds(NumericDate.now().getValue() - 5));
        }, "vigil.evaluate")).then().statusCode(200);
    }

    @Test
    void notYetValidIsRefused() {
        refusedOnData(issuer().token(c -> c.setNotBefore(NumericDate.fromSeconds(NumericDate.now().getValue() + 300)),
                "vigil.evaluate"), 401, "invalid_token", "not_yet_valid");
    }

    @Test
    void wrongAudienceIsRefused() {
        refusedOnData(issuer().token(c -> c.setAudience("some-other-service"), "vigil.evaluate"), 401, "invalid_token", "audience");
    }

    @Test
    void wrongIssuerIsRefused() {
        refusedOnData(issuer().token(c -> c.setIssuer("https://evil.example"), "vigil.evaluate"), 401, "invalid_token", "issuer");
    }

    @Test
    void aKeyTheIssuerDoesNotPublishIsRefused() {
        refusedOnData(JwtIssuer.sign(JwtIssuer.claims("vigil.evaluate"), JwtIssuer.key("not-published")), 401, "invalid_token",
                "unknown_key");
    }

    @Test
    void aKeyPosingAsAPublishedKidFailsTheSignature() {
        RsaJsonWebKey forged = JwtIssuer.key(issuer().signing.getKeyId());
        refusedOnData(JwtIssuer.sign(JwtIssuer.claims("vigil.evaluate"), forged), 401, "invalid_token", "signature");
    }

    @Test
    void aTamperedPayloadFailsTheSignature() {
        String[] parts = issuer().token("vigil.read").split("\\.");
        String claims = new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8)
                .replace("vigil.read", "vigil.evaluate");
        String tampered = parts[0] + "." + Base64.getUrlEncoder().withoutPadding().encodeToString(claims.getBytes(StandardCharsets.UTF_8))
                + "." + parts[2];
        refusedOnData(tampered, 401, "invalid_token", "signature");
    }

    @Test
    void algNoneIsRefused() throws Exception {
        JsonWebSignature jws = new JsonWebSignature();
        jws.setPayload(JwtIssuer.claims("vigil.evaluate").toJson());
        jws.setAlgorithmConstraints(AlgorithmConstraints.NO_CONSTRAINTS);
        jws.setAlgorithmHeaderValue(AlgorithmIdentifiers.NONE);
        jws.setKeyIdHeaderValue(issuer().signing.getKeyId());
        refusedOnData(jws.getCompactSerialization(), 401, "invalid_token", "algorithm");
    }

    @Test
    void hmacSignedWithThePublicKeyIsRefused() throws Exception {
        JsonWebSignature jws = new JsonWebSignature();
        jws.setPayload(JwtIssuer.claims("vigil.evaluate").toJson());
        jws.setAlgorithmHeaderValue(AlgorithmIdentifiers.HMAC_SHA256);
        jws.setKeyIdHeaderValue(issuer().signing.getKeyId());
        jws.setKey(new HmacKey(issuer().signing.getPublicKey().getEncoded()));
        jws.setDoKeyValidation(false);
        refusedOnData(jws.getCompactSerialization(), 401, "invalid_token", "algorithm");
    }

    @Test
    void aTokenLargerThanTheLimitIsRefusedUnparsed() {
        double before = counter(metrics(), "vigil_auth_token_verifications_total");
        refusedOnData(issuer().token(c -> c.setStringClaim("pad", "x".repeat(5000)), "vigil.evaluate"), 401, "invalid_token", "too_large");
        assertThat(counter(metrics(), "vigil_auth_token_verifications_total")).isEqualTo(before);
    }

    @Test
    void garbageIsMalformed() {
        refusedOnData("not-a-jwt", 401, "invalid_token", "malformed");
    }

    @Test
    void aValidTokenWithoutTheScopeIs403() {
        Response r = evaluate(issuer().token("vigil.read"));
        r.then().statusCode(403).body("code", equalTo("FORBIDDEN"));
        assertThat(r.getHeader("WWW-Authenticate")).contains("error=\"insufficient_scope\"").contains("scope=\"vigil.evaluate\"");
    }

    @Test
    void refusalsAreClientErrorsOutsideTheAvailabilitySli() {
        evaluate(null).then().statusCode(401);
        String m = metrics();
        assertThat(counter(m, "vigil_evaluate_rejected_total{code=\"UNAUTHENTICATED\",endpoint=\"auth\",status=\"401\"}")).isGreaterThan(0);
        assertThat(m).doesNotContain("vigil_evaluate_rejected_total{code=\"UNAUTHENTICATED\",endpoint=\"auth\",status=\"5");
    }

    /**
     * Every data-port path under {@code /v1} is guarded, however it is spelled: the check runs in the
     * first handler on the router's normalized path, so dot segments and percent-encoding reach it as
     * the routes see them. Sent as raw HTTP/1.1 so that no client tidies the path first. A path under
     * {@code /v1} that does not exist is refused too: an unauthenticated caller learns nothing.
     */
    @Test
    void everyPathUnderV1IsGuardedHoweverItIsSpelled() throws Exception {
        String token = issuer().token("vigil.evaluate");
        for (String path : new String[] {AUTH, "/v1/evaluate/monitoring", "/v1/evaluate/health", "/v1/no-such-thing", "/v1",
                "/v1/evaluate/../evaluate/auth", "/x/../v1/evaluate/auth", "/v1/./evaluate/auth", "/v1/evaluate/%61uth",
                "/%761/evaluate/auth"}) {
            assertThat(rawStatus("POST", path, null)).as("POST %s without a token", path).isEqualTo(401);
        }
        assertThat(rawStatus("GET", "/v1/evaluate/health", null)).as("GET the compatibility health without a token").isEqualTo(401);
        for (String path : new String[] {"/x/../v1/evaluate/auth", "/v1/evaluate/%61uth"}) {
            assertThat(rawStatus("POST", path, token)).as("POST %s with a token", path).isEqualTo(200);
        }
    }

    /** The status line of one raw HTTP/1.1 request to the data port (the path sent byte for byte). */
    private static int rawStatus(String method, String path, String token) throws java.io.IOException {
        byte[] body = TXN.getBytes(StandardCharsets.UTF_8);
        try (java.net.Socket socket = new java.net.Socket("localhost", io.restassured.RestAssured.port)) {
            socket.setSoTimeout(30_000);
            String head = method + " " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
                    + "Content-Type: application/json\r\nContent-Length: " + body.length + "\r\n"
                    + (token == null ? "" : "Authorization: Bearer " + token + "\r\n") + "\r\n";
            socket.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().write(body);
            socket.getOutputStream().flush();
            String status = new java.io.BufferedReader(new java.io.InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII)).readLine();
            assertThat(status).as("status line for %s %s", method, path).startsWith("HTTP/1.1 ");
            return Integer.parseInt(status.substring(9, 12));
        }
    }

    @Test
    void theKubeletProbesOfTheDataPortStayOpen() {
        given().when().get("/health/live").then().statusCode(200);
    }

    @Test
    void aRotatedKeyIsFetchedAndAccepted() {
        RsaJsonWebKey rotated = JwtIssuer.key("rotated-" + System.nanoTime());
        issuer().publish(rotated);
        String token = JwtIssuer.sign(JwtIssuer.claims("vigil.evaluate"), rotated);
        int status = 0;
        long until = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < until && (status = evaluate(token).statusCode()) != 200) {
            assertThat(status).isEqualTo(401); // unknown_key until the early fetch (floor 200 ms) brings it
            sleep(100);
        }
        assertThat(status).isEqualTo(200);
    }

    @Test
    void whenTheIssuerIsDownTheLastKeysAreKept() {
        issuer().down = true;
        try {
            int fetchesBefore = issuer().fetches.get();
            // a key we do not have asks for an early fetch, which fails against the down issuer
            String unknown = JwtIssuer.sign(JwtIssuer.claims("vigil.evaluate"), JwtIssuer.key("while-down-" + System.nanoTime()));
            long until = System.nanoTime() + 10_000_000_000L;
            while (System.nanoTime() < until && issuer().fetches.get() < fetchesBefore + 2) {
                evaluate(unknown).then().statusCode(401);
                sleep(100);
            }
            assertThat(issuer().fetches.get()).as("fetches while the issuer is down").isGreaterThanOrEqualTo(fetchesBefore + 2);
            assertThat(counter(metrics(), "vigil_auth_jwks_fetches_total{result=\"failed\"}")).isGreaterThan(0);
            // a token never seen before, signed with a key fetched before the outage, still verifies
            evaluate(issuer().token("vigil.evaluate")).then().statusCode(200);
            assertThat(counter(metrics(), "vigil_auth_jwks_keys")).isGreaterThan(0);
        } finally {
            issuer().down = false;
        }
    }

    // --- management port ---

    @Test
    void managementNeedsAToken() {
        Management.given().when().get("/rulesets").then().statusCode(401).body("code", equalTo("UNAUTHENTICATED"));
        Management.given().when().get("/q/metrics").then().statusCode(401);
        Management.given().contentType(ContentType.JSON).body("{}").when().post("/rulesets/validate").then().statusCode(401);
    }

    @Test
    void readingNeedsTheReadScopeAndChangingTheWriteScope() {
        String reader = issuer().token("vigil.read");
        String writer = issuer().token("vigil.write");
        Management.given().header("Authorization", "Bearer " + reader).when().get("/rulesets").then().statusCode(200);
        Management.given().header("Authorization", "Bearer " + reader).contentType(ContentType.JSON).body("{}")
                .when().post("/rulesets/validate").then().statusCode(403).body("code", equalTo("FORBIDDEN"))
                .header("WWW-Authenticate", containsString("scope=\"vigil.write\""));
        Management.given().header("Authorization", "Bearer " + reader).when().post("/rulesets/CARD_AUTH/activate/1")
                .then().statusCode(403);
        Management.given().header("Authorization", "Bearer " + writer).contentType(ContentType.JSON).body("{}")
                .when().post("/rulesets/validate").then().statusCode(200);
        Management.given().header("Authorization", "Bearer " + writer).when().get("/rulesets").then().statusCode(403);
        assertThat(refused("management", "insufficient_scope")).isGreaterThanOrEqualTo(3);
    }

    @Test
    void theDataScopeDoesNotOpenManagement() {
        Management.given().header("Authorization", "Bearer " + issuer().token("vigil.evaluate")).when().get("/rulesets")
                .then().statusCode(403);
    }

    @Test
    void probesStayOpenAndTheMetricsCredentialOpensOnlyMetrics() {
        Management.given().when().get("/q/health/live").then().statusCode(200);
        Management.given().when().get("/q/health/ready").then().statusCode(not(equalTo(401)));
        Management.given().when().get("/q/health").then().statusCode(401);
        Management.given().header("Authorization", "Bearer " + JwtIssuer.METRICS_TOKEN).when().get("/rulesets").then().statusCode(401);
        Management.given().header("Authorization", "Bearer wrong-" + JwtIssuer.METRICS_TOKEN).when().get("/q/metrics").then().statusCode(401);
        Management.given().header("Authorization", "Bearer " + issuer().token("vigil.read")).when().get("/q/metrics").then().statusCode(200);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
