package io.vigil.engine.decision;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.vigil.engine.testing.Management;
import io.vigil.engine.testing.Profiles;
import io.vigil.engine.testing.ScriptedVelocityStore;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * max-in-flight 2, a velocity store that never answers and a 10 s deadline (long enough to see the two
 * requests waiting on a busy machine): two requests wait for velocity, a third is shed in-band, and the
 * two waiting ones end at the deadline as VELOCITY_UNAVAILABLE.
 */
@QuarkusTest
@TestProfile(Profiles.Shedding.class)
class LoadShedTest {
    static final ObjectMapper JSON = new ObjectMapper();

    @AfterEach
    void reset() {
        ScriptedVelocityStore.reset();
    }

    @Test
    void shedsBeyondTheInFlightLimitAndAnswersWaitingRequestsAtTheDeadline() throws Exception {
        ScriptedVelocityStore.behave(ScriptedVelocityStore.Behaviour.NEVER_ANSWER);
        int port = ConfigProvider.getConfig().getValue("quarkus.http.test-port", Integer.class);
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        assertThat(inFlight(client, port)).isZero(); // also warms the client up before the clock matters
        CompletableFuture<HttpResponse<String>> first = client.sendAsync(velocityRequest(port, "ls-1"), HttpResponse.BodyHandlers.ofString());
        CompletableFuture<HttpResponse<String>> second = client.sendAsync(velocityRequest(port, "ls-2"), HttpResponse.BodyHandlers.ofString());
        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (inFlight(client, port) < 2 && System.nanoTime() < giveUp) {
            Thread.sleep(10);
        }
        assertThat(inFlight(client, port)).isEqualTo(2);

        // plain client calls: nothing here may take long enough for the waiting requests to reach their deadline
        JsonNode shed = JSON.readTree(client.send(request(port, "{\"transaction_id\":\"ls-3\",\"amount\":1}"),
                HttpResponse.BodyHandlers.ofString()).body());
        assertThat(shed.get("transaction_id").asText()).isEqualTo("ls-3");
        assertThat(shed.get("decision").asText()).isEqualTo("REVIEW"); // vigil.engine.shed-decision of this profile
        assertThat(shed.get("engine_mode").asText()).isEqualTo("DEGRADED");
        assertThat(shed.get("engine_error_code").asText()).isEqualTo("LOAD_SHED");

        for (CompletableFuture<HttpResponse<String>> waiting : new CompletableFuture[] {first, second}) {
            HttpResponse<String> r = waiting.get(30, TimeUnit.SECONDS);
            assertThat(r.statusCode()).isEqualTo(200);
            JsonNode a = JSON.readTree(r.body());
            assertThat(a.get("engine_mode").asText()).isEqualTo("DEGRADED");
            assertThat(a.get("engine_error_code").asText()).isEqualTo("VELOCITY_UNAVAILABLE");
            assertThat(a.get("decision").asText()).isEqualTo("APPROVE"); // velocity policy skip
        }
        assertThat(inFlight(client, port)).isZero();
        given().contentType(ContentType.JSON).body("{\"transaction_id\":\"ls-4\",\"amount\":1}")
                .when().post("/v1/evaluate/auth")
                .then().statusCode(200).body("engine_mode", equalTo("NORMAL"));

        String metrics = Management.given().when().get("/q/metrics").then().extract().asString();
        assertThat(metrics)
                .containsPattern("vigil_engine_load_shed_total\\{endpoint=\"auth\"} [1-9]")
                .containsPattern("vigil_engine_degraded_total\\{code=\"VELOCITY_UNAVAILABLE\",endpoint=\"auth\"} [2-9]");
    }

    /**
     * A caller that closes its connection while its decision waits for velocity: when the deadline answers,
     * there is nobody to write to. The request still ends exactly once (in flight back to 0) and the
     * unwritten answer is counted, not lost without a word.
     */
    @Test
    void anAnswerWithNoCallerLeftIsCounted() throws Exception {
        ScriptedVelocityStore.behave(ScriptedVelocityStore.Behaviour.NEVER_ANSWER);
        int port = ConfigProvider.getConfig().getValue("quarkus.http.test-port", Integer.class);
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        double before = unwritten("caller_gone");
        String body = "{\"transaction_id\":\"ls-gone\",\"card_hash\":\"c-ls\",\"amount\":5,\"merchant_category_code\":\"7995\"}";
        try (java.net.Socket caller = new java.net.Socket("127.0.0.1", port)) {
            caller.getOutputStream().write(("POST /v1/evaluate/auth HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + body.length() + "\r\n\r\n" + body).getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            caller.getOutputStream().flush();
            long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (inFlight(client, port) < 1 && System.nanoTime() < giveUp) {
                Thread.sleep(10);
            }
            assertThat(inFlight(client, port)).as("the decision waits for velocity").isEqualTo(1);
        } // the caller is gone before the deadline (10 s) answers
        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while ((inFlight(client, port) > 0 || unwritten("caller_gone") == before) && System.nanoTime() < giveUp) {
            Thread.sleep(50);
        }
        assertThat(inFlight(client, port)).isZero();
        assertThat(unwritten("caller_gone")).isEqualTo(before + 1);
        assertThat(unwritten("write_failed")).isZero();
    }

    static double unwritten(String reason) {
        String metrics = Management.given().when().get("/q/metrics").then().extract().asString();
        var m = java.util.regex.Pattern.compile("(?m)^vigil_evaluate_unwritten_total\\{endpoint=\"auth\",reason=\"" + reason
                + "\"} ([0-9.]+)$").matcher(metrics);
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }

    static HttpRequest velocityRequest(int port, String id) {
        return request(port, "{\"transaction_id\":\"" + id + "\",\"card_hash\":\"c-ls\",\"amount\":5,\"merchant_category_code\":\"7995\"}");
    }

    static HttpRequest request(int port, String body) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/evaluate/auth"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
    }

    /** Requests in flight, from the compatibility health endpoint (a plain client: cheap to call in a loop). */
    static int inFlight(HttpClient client, int port) throws Exception {
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/evaluate/health"))
                .GET().build(), HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(r.body()).get("in_flight").asInt();
    }
}
