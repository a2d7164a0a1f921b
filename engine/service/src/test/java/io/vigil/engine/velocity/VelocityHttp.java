package io.vigil.engine.velocity;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.eclipse.microprofile.config.ConfigProvider;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Locale;

/** Calls the running engine's data and management ports like a client would. */
final class VelocityHttp {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Only a guard against a hung engine (the test then fails instead of hanging); never asserted on. */
    private static final Duration GUARD = Duration.ofSeconds(30);
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(GUARD).build();

    private VelocityHttp() {
    }

    /** An AUTH answer: status and the decision fields. */
    record Answer(int status, String decision, String mode, String errorCode, String ruleId, String reasonCode, JsonNode body) {
        @Override
        public String toString() {
            return status + " " + body;
        }
    }

    static Answer auth(String transactionId, String card, String device, double amount) {
        HttpResponse<String> response = post(dataUrl() + "/v1/evaluate/auth", transaction(transactionId, card, device, amount));
        try {
            JsonNode json = JSON.readTree(response.body());
            return new Answer(response.statusCode(), text(json, "decision"), text(json, "engine_mode"),
                    text(json, "engine_error_code"), text(json, "rule_id"), text(json, "reason_code"), json);
        } catch (IOException e) {
            throw new AssertionError("AUTH answer is not JSON: " + response.body(), e);
        }
    }

    /** POST /simulate on the management port with one transaction against the active ruleset: the whole answer. */
    static JsonNode simulate(String transactionId, String card, String device, double amount) {
        HttpResponse<String> response = post(managementUrl() + "/simulate",
                "{\"transaction\":" + transaction(transactionId, card, device, amount) + "}");
        if (response.statusCode() != 200) {
            throw new AssertionError("simulate answered " + response.statusCode() + " " + response.body());
        }
        try {
            return JSON.readTree(response.body());
        } catch (IOException e) {
            throw new AssertionError("simulate answer is not JSON: " + response.body(), e);
        }
    }

    private static String transaction(String transactionId, String card, String device, double amount) {
        return String.format(Locale.ROOT,
                "{\"transaction_id\":\"%s\",\"card_hash\":\"%s\",\"device_id\":\"%s\",\"amount\":%s,"
                        + "\"currency\":\"EUR\",\"merchant_id\":\"m-1\",\"card_present\":false,\"country_code\":\"DE\"}",
                transactionId, card, device, amount);
    }

    private static HttpResponse<String> post(String url, String body) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url))
                .timeout(GUARD)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new AssertionError("POST " + url + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** Redis running and not frozen (a test may have left it so), then velocity answering NORMAL again. */
    static void redisUpAndNormal() {
        io.vigil.testing.redis.RedisServer redis = RedisResource.server();
        if (redis.isFrozen()) {
            redis.thaw();
        }
        if (!redis.isRunning()) {
            redis.restart();
        }
        awaitNormal();
    }

    private static final java.util.concurrent.atomic.AtomicLong PROBES = new java.util.concurrent.atomic.AtomicLong();

    /**
     * Sends fresh transactions until one is answered NORMAL (Redis reachable and the breaker closed),
     * at most 300 attempts 100 ms apart; fails the test otherwise. Returns the attempts it took.
     */
    static int awaitNormal() {
        Answer last = null;
        for (int attempt = 1; attempt <= 300; attempt++) {
            long n = PROBES.incrementAndGet();
            last = auth("probe-" + n, "probe-card-" + n, "probe-dev-" + n, 1);
            if (last.status() == 200 && "NORMAL".equals(last.mode())) {
                return attempt;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", e);
            }
        }
        throw new AssertionError("the engine never answered NORMAL again; last answer " + last);
    }

    /** Sum of a Prometheus counter/gauge family's samples whose line starts with {@code prefix}. */
    static double metric(String prefix) {
        String body = management("/q/metrics").body();
        double total = 0;
        for (String line : body.split("\n")) {
            if (line.startsWith(prefix)) {
                total += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return total;
    }

    static HttpResponse<String> management(String path) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(managementUrl() + path)).timeout(GUARD).GET().build();
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new AssertionError("management call failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    private static String text(JsonNode json, String field) {
        JsonNode node = json.get(field);
        return node == null || node.isNull() ? null : node.asText();
    }

    private static String dataUrl() {
        return ConfigProvider.getConfig().getValue("test.url", String.class);
    }

    private static String managementUrl() {
        String url = System.getProperty("test.management.url");
        if (url == null) {
            url = ConfigProvider.getConfig().getValue("test.management.url", String.class);
        }
        return url.endsWith("/q") ? url.substring(0, url.length() - 2) : url;
    }
}
