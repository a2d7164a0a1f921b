package io.vigil.engine.http;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.vigil.engine.testing.Management;
import io.vigil.engine.testing.Profiles;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Requests from a hostile corpus against the real data port: wrong forms, duplicate keys,
 * ill-formed UTF-8, overflowing numbers, oversized bodies, unsupported transfer codings, broken
 * framing and bodies the caller abandons. Every answer is a 4xx/501 in the JSON error shape or a
 * closed connection; none is logged as an ERROR or counted as an engine error.
 */
@QuarkusTest
@TestProfile(Profiles.Fixtures.class)
class HostileRequestTest {
    private final List<LogRecord> records = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord r) {
            records.add(r);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    private double serverErrorsBefore;

    @BeforeEach
    void captureLogs() {
        serverErrorsBefore = serverErrors();
        Logger.getLogger("").addHandler(capture);
    }

    @AfterEach
    void noErrorLoggedOrCounted() {
        Logger.getLogger("").removeHandler(capture);
        assertThat(records).noneMatch(r -> r.getLevel().intValue() >= Level.SEVERE.intValue());
        assertThat(serverErrors()).as("5xx in the rejection counter the availability SLI reads").isEqualTo(serverErrorsBefore);
    }

    /** Sum of vigil_evaluate_rejected_total over every 5xx status. */
    private static double serverErrors() {
        Matcher m = Pattern.compile("vigil_evaluate_rejected_total\\{[^}]*status=\"5\\d\\d\"[^}]*} (\\S+)").matcher(metrics());
        double sum = 0;
        while (m.find()) {
            sum += Double.parseDouble(m.group(1));
        }
        return sum;
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "\"timestamp\":\"yesterday\"|timestamp",
            "\"timestamp\":\"2026-13-01T00:00:00Z\"|timestamp",
            "\"occurred_at\":\"2026-02-30T00:00:00Z\"|occurred_at",
            "\"country_code\":\"USA\"|country_code",
            "\"currency\":\"DOLLARS\"|currency",
            "\"merchant_category_code\":\"54111\"|merchant_category_code",
            "\"merchant_category_code\":\"abcd\"|merchant_category_code",
            "\"billing_address\":{\"country\":\"Germany\"}|billing_address.country",
            "\"custom_fields\":{\"score\":1e400}|custom_fields.score",
            "\"transaction_id\":\"again\"|transaction_id",
            "\"amount\":1,\"amount\":2|amount",
    })
    void wrongFormsDuplicatesAndOverflowsAre400WithTheField(String fields, String field) {
        for (String path : List.of("/v1/evaluate/auth", "/v1/evaluate/monitoring")) {
            given().contentType(ContentType.JSON).body("{\"transaction_id\":\"t-hostile\",\"decision\":\"APPROVE\"," + fields + "}")
                    .when().post(path)
                    .then().statusCode(400).contentType(ContentType.JSON)
                    .body("code", equalTo("INVALID_REQUEST"))
                    .body("field", equalTo(field))
                    .body("message", containsString(field + ": "));
        }
    }

    @Test
    void illFormedUtf8Is400WithTheField() {
        for (int[] bad : new int[][] {{0xC0, 0xAF}, {0xE0, 0x80, 0xAF}, {0xED, 0xA0, 0x80}, {0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80}}) {
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            body.writeBytes("{\"transaction_id\":\"t-utf8\",\"merchant_name\":\"a".getBytes(StandardCharsets.UTF_8));
            for (int b : bad) {
                body.write(b);
            }
            body.writeBytes("\"}".getBytes(StandardCharsets.UTF_8));
            given().contentType(ContentType.JSON).body(body.toByteArray())
                    .when().post("/v1/evaluate/auth")
                    .then().statusCode(400)
                    .body("code", equalTo("INVALID_REQUEST"))
                    .body("field", equalTo("merchant_name"))
                    .body("message", containsString("invalid UTF-8"));
        }
    }

    @Test
    void tenMebibytesAre413InTheJsonShapeWithoutReadingTheBody() throws Exception {
        // Announce 10 MiB, send a little: the answer must not wait for the rest.
        RawHttp.Reply r = RawHttp.send(RawHttp.post("/v1/evaluate/auth", "Content-Length: " + (10 << 20) + "\r\n",
                "{\"transaction_id\":\"t-big\",\"merchant_name\":\"" + "x".repeat(1000)), false);
        assertThat(r.status()).isEqualTo(413);
        assertThat(r.head().toLowerCase()).contains("connection: close").contains("content-type: application/json");
        assertThat(r.body()).contains("\"code\":\"PAYLOAD_TOO_LARGE\"");

        // and on any data-port path, not only the evaluate routes
        RawHttp.Reply other = RawHttp.send("POST /v1/evaluate/health HTTP/1.1\r\nHost: x\r\nContent-Length: " + (10 << 20)
                + "\r\n\r\n{", false);
        assertThat(other.status()).isEqualTo(413);
        assertThat(other.body()).contains("\"code\":\"PAYLOAD_TOO_LARGE\"");
    }

    @Test
    void tenMebibytesSentInFullAre413InTheJsonShape() {
        String big = "{\"transaction_id\":\"t-10m\",\"merchant_name\":\"" + "x".repeat(10 << 20) + "\"}";
        given().contentType(ContentType.JSON).body(big)
                .when().post("/v1/evaluate/auth")
                .then().statusCode(413).contentType(ContentType.JSON).body("code", equalTo("PAYLOAD_TOO_LARGE"));
    }

    @Test
    void chunkedBodyOverTheLimitIs413InTheJsonShape() throws Exception {
        // 8 chunks of 8 KiB after a head: just over the 64 KiB limit when the last chunk arrives. Nothing
        // more is sent, so the server has read every byte when it answers (no reset swallows the answer).
        StringBuilder chunks = new StringBuilder();
        String piece = "x".repeat(8192);
        String head = "{\"transaction_id\":\"t-chunked\",\"merchant_name\":\"";
        chunks.append(Integer.toHexString(head.length())).append("\r\n").append(head).append("\r\n");
        for (int i = 0; i < 8; i++) {
            chunks.append(Integer.toHexString(piece.length())).append("\r\n").append(piece).append("\r\n");
        }
        RawHttp.Reply r = RawHttp.send(RawHttp.post("/v1/evaluate/auth", "Transfer-Encoding: chunked\r\n", chunks.toString()), false);
        assertThat(r.status()).isEqualTo(413);
        assertThat(r.body()).contains("\"code\":\"PAYLOAD_TOO_LARGE\"");
    }

    @Test
    void chunkedBodyWithinTheLimitIsEvaluated() throws Exception {
        String body = "{\"transaction_id\":\"t-chunked-ok\",\"amount\":1}";
        RawHttp.Reply r = RawHttp.send(RawHttp.post("/v1/evaluate/auth", "Transfer-Encoding: chunked\r\n",
                Integer.toHexString(body.length()) + "\r\n" + body + "\r\n0\r\n\r\n"), false);
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.body()).contains("\"transaction_id\":\"t-chunked-ok\"");
    }

    @ParameterizedTest
    @CsvSource({"gzip", "'gzip, chunked'", "'chunked, gzip'", "identity", "compress"})
    void unsupportedTransferCodingIs501(String coding) throws Exception {
        double before = metric("vigil_http_client_errors_total{endpoint=\"auth\",kind=\"transfer_coding\"}");
        RawHttp.Reply r = RawHttp.send(RawHttp.post("/v1/evaluate/auth", "Transfer-Encoding: " + coding + "\r\n",
                "5\r\n{\"a\":\r\n0\r\n\r\n"), false);
        assertThat(r.status()).isEqualTo(501);
        assertThat(r.head().toLowerCase()).contains("connection: close").contains("content-type: application/json");
        assertThat(r.body()).contains("\"code\":\"TRANSFER_CODING_NOT_SUPPORTED\"");
        assertThat(metric("vigil_http_client_errors_total{endpoint=\"auth\",kind=\"transfer_coding\"}")).isEqualTo(before + 1);
    }

    @Test
    void badChunkSizeIsAClientErrorNeverAnEngineError() throws Exception {
        double before = metric("vigil_http_client_errors_total{endpoint=\"auth\",kind=\"framing\"}");
        RawHttp.Reply r = RawHttp.send(RawHttp.post("/v1/evaluate/auth", "Transfer-Encoding: chunked\r\n",
                "5\r\n{\"a\":\r\nZZZZ\r\n1}\r\n0\r\n\r\n"), false);
        assertThat(r.status()).as(r.toString()).isIn(0, 400);
        if (r.status() == 400) {
            assertThat(r.body()).contains("\"code\":\"INVALID_REQUEST\"");
        }
        awaitMetric("vigil_http_client_errors_total{endpoint=\"auth\",kind=\"framing\"}", before + 1);
        assertWarnedWithoutStackTrace("framing");
    }

    @Test
    void bodyCutShortByTheClientIsAnAbortNeverAnEngineError() throws Exception {
        double before = metric("vigil_http_client_errors_total{endpoint=\"auth\",kind=\"aborted\"}");
        // Content-Length says 200, the client sends 20 bytes and closes.
        RawHttp.Reply r = RawHttp.send(RawHttp.post("/v1/evaluate/auth", "Content-Length: 200\r\n",
                "{\"transaction_id\":\"t"), true);
        assertThat(r.status()).as(r.toString()).isIn(0, 400);
        awaitMetric("vigil_http_client_errors_total{endpoint=\"auth\",kind=\"aborted\"}", before + 1);
        assertWarnedWithoutStackTrace("aborted");
    }

    @Test
    void requestLineNettyCannotParseIsABare400OrAClose() throws Exception {
        // Refused by Vert.x before any route runs: no JSON body there (documented in docs/api.md).
        RawHttp.Reply r = RawHttp.send("THIS IS NOT HTTP\r\n\r\n", false);
        assertThat(r.status()).as(r.toString()).isIn(0, 400);
    }

    private void assertWarnedWithoutStackTrace(String kind) {
        List<LogRecord> warnings = records.stream()
                .filter(r -> r.getLoggerName().equals(ClientErrors.class.getName()) && r.getLevel() == Level.WARNING)
                .toList();
        // Rate-limited: a line for this kind may have been logged by an earlier test in the interval.
        assertThat(warnings).allSatisfy(r -> {
            assertThat(r.getThrown()).isNull();
            assertThat(formatted(r)).startsWith("client error (");
        });
    }

    private static String formatted(LogRecord r) {
        Object[] p = r.getParameters();
        return p == null || p.length == 0 ? r.getMessage() : String.format(r.getMessage(), p);
    }

    static String metrics() {
        return Management.given().when().get("/q/metrics").then().statusCode(200).extract().asString();
    }

    static double metric(String series) {
        Matcher m = Pattern.compile(Pattern.quote(series) + " (\\S+)").matcher(metrics());
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }

    /** The server counts after the connection is gone; poll (bounded) rather than race it. */
    private static void awaitMetric(String series, double atLeast) throws InterruptedException {
        for (int i = 0; i < 200 && metric(series) < atLeast; i++) {
            Thread.sleep(50);
        }
        assertThat(metric(series)).as(series).isGreaterThanOrEqualTo(atLeast);
    }
}
