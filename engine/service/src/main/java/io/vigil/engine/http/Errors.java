package io.vigil.engine.http;

import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;

/** Error bodies of both ports: {@code {"code":"INVALID_REQUEST","message":"amount: expected a number","field":"amount"}}. */
public final class Errors {
    private Errors() {
    }

    public static void send(HttpServerResponse response, int status, String code, String message, String field) {
        if (response.ended() || response.closed()) {
            return;
        }
        JsonWriter w = JsonWriter.get().raw('{');
        w.key("code").string(code);
        w.key("message").string(message);
        if (field != null) {
            w.key("field").string(field);
        }
        w.raw('}');
        response.setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, DataRoutes.JSON).end(w.toBuffer());
    }
}
