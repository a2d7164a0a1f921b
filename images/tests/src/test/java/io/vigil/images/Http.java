package io.vigil.images;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.function.Supplier;

/** HTTP against a container on the host network, and bounded polling. */
final class Http {
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private Http() {
    }

    record Answer(int status, String body) {
    }

    static Answer get(int port, String path) {
        return send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).GET());
    }

    static Answer postJson(int port, String path, String json) {
        return send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    private static Answer send(HttpRequest.Builder request) {
        try {
            HttpResponse<String> r = CLIENT.send(request.timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
            return new Answer(r.statusCode(), r.body());
        } catch (IOException e) {
            return new Answer(-1, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * Polls GET path every 500 ms until it answers 200, within {@code seconds}; fails with what it last
     * answered and the container's logs.
     */
    static Answer await200(int port, String path, int seconds, RestrictedContainer container) {
        return await(() -> get(port, path), seconds, path, container);
    }

    static Answer await(Supplier<Answer> call, int seconds, String what, RestrictedContainer container) {
        long deadline = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
        Answer last;
        do {
            last = call.get();
            if (last.status() == 200) {
                return last;
            }
            if (!container.running()) {
                throw new AssertionError(container.name + " exited while waiting for " + what + "; logs:\n" + container.logs());
            }
            sleep(500);
        } while (System.nanoTime() < deadline);
        throw new AssertionError(what + " did not answer 200 within " + seconds + " s (last: " + last + "); logs:\n" + container.logs());
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
