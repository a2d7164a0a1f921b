package io.vigil.engine.http;

import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RequestBody;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import io.vigil.engine.VigilConfig;
import io.vigil.engine.decision.DecisionPath;
import io.vigil.engine.decision.DecisionRecord;
import io.vigil.engine.decision.EngineMetrics;
import io.vigil.engine.ruleset.KeyRulesets;
import io.vigil.engine.ruleset.LoadedRuleset;
import io.vigil.engine.ruleset.RulesetRegistry;
import io.vigil.engine.ruleset.RulesetSnapshot;
import io.vigil.rules.eval.EvaluationType;
import io.vigil.rules.eval.Outcome;
import io.vigil.rules.txn.InvalidTransactionException;
import io.vigil.rules.txn.Transaction;
import io.vigil.rules.txn.TransactionReader;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * The data port (engine contract §1–3): {@code POST /v1/evaluate/auth}, {@code POST /v1/evaluate/monitoring},
 * {@code GET /v1/evaluate/health}. Plain Vert.x routes, so every request is handled on its event loop
 * from the first byte to the answer; no worker thread, nothing blocks.
 *
 * <p>Handler chain of an evaluate route: content type (415) → body with a size limit (413) → parse
 * straight into a {@link Transaction} (400 with the field) → {@link DecisionPath}.
 */
@ApplicationScoped
public class DataRoutes {
    private static final Logger LOG = Logger.getLogger(DataRoutes.class);
    public static final String AUTH = "/v1/evaluate/auth";
    public static final String MONITORING = "/v1/evaluate/monitoring";
    public static final String HEALTH = "/v1/evaluate/health";
    static final CharSequence JSON = HttpHeaders.createOptimized("application/json");
    static final CharSequence X_EXPLAIN = HttpHeaders.createOptimized("X-Explain");
    private static final String START = "vigil.start";
    private static final String CLIENT_ERROR = "vigil.client-error";

    @Inject
    DecisionPath decisions;
    @Inject
    RulesetRegistry rulesets;
    @Inject
    VigilConfig config;
    @Inject
    ClientErrors clientErrors;
    @Inject
    StorageHealth storage;

    private final TransactionReader reader = new TransactionReader();
    /**
     * At most one stack trace a second when answers cannot be written. Its own, not one of ClientErrors':
     * those are per client-error kind every 10 s, and a burst of caller errors must not hide an engine's.
     */
    private final ClientErrors.RateLimitedLog writeFailureLog =
            new ClientErrors.RateLimitedLog(System::nanoTime, TimeUnit.SECONDS.toNanos(1));

    void init(@Observes Router router) {
        BodyHandler body = BodyHandler.create(false).setBodyLimit(config.engine().maxBodyBytes());
        evaluateRoute(router, AUTH, EvaluationType.AUTH, body);
        evaluateRoute(router, MONITORING, EvaluationType.MONITORING, body);
        router.get(HEALTH).handler(this::health);
        router.route(HEALTH).handler(ctx -> methodNotAllowed(ctx, "GET", "health"));
        router.route("/v1/*").handler(ctx -> Errors.send(ctx.response(), 404, "NOT_FOUND",
                "no such endpoint: " + ctx.request().method() + " " + ctx.request().path(), null));
    }

    private void evaluateRoute(Router router, String path, EvaluationType type, BodyHandler body) {
        String endpoint = EngineMetrics.endpoint(type);
        router.post(path)
                .handler(ctx -> {
                    ctx.put(START, System.nanoTime());
                    if (acceptableContentType(ctx.request().getHeader(HttpHeaders.CONTENT_TYPE))) {
                        ctx.next();
                    } else {
                        reject(ctx, endpoint, 415, "UNSUPPORTED_MEDIA_TYPE",
                                "Content-Type must be application/json, was "
                                        + describe(ctx.request().getHeader(HttpHeaders.CONTENT_TYPE)), null);
                    }
                });
        // A second route for the same request: Vert.x wants the body handler first on its route.
        router.post(path)
                .handler(body)
                .handler(ctx -> evaluate(ctx, type, endpoint))
                .failureHandler(ctx -> failed(ctx, endpoint));
        router.route(path).handler(ctx -> methodNotAllowed(ctx, "POST", endpoint));
    }

    private void evaluate(RoutingContext ctx, EvaluationType type, String endpoint) {
        Long started = ctx.get(START);
        long start = started == null ? System.nanoTime() : started;
        long receivedAt = System.currentTimeMillis();
        RequestBody body = ctx.body();
        byte[] bytes = body == null || body.buffer() == null ? new byte[0] : body.buffer().getBytes();
        long parseStart = System.nanoTime();
        Transaction txn;
        try {
            txn = reader.read(bytes);
        } catch (InvalidTransactionException e) {
            reject(ctx, endpoint, 400, "INVALID_REQUEST", e.getMessage(), e.field());
            return;
        } catch (RuntimeException e) {
            // A reader defect must not become a 500 for the caller; the body is what it could not read.
            LOG.debugf(e, "transaction reader failed");
            reject(ctx, endpoint, 400, "INVALID_REQUEST", "body: not a readable JSON transaction", null);
            return;
        }
        long parseNanos = System.nanoTime() - parseStart;
        Outcome callerDecision = null;
        if (type == EvaluationType.MONITORING) {
            try {
                callerDecision = CallerDecision.of(txn);
            } catch (InvalidTransactionException e) {
                reject(ctx, endpoint, 400, "INVALID_REQUEST", e.getMessage(), e.field());
                return;
            }
        }
        boolean explain = explain(ctx.request());
        HttpServerResponse response = ctx.response();
        if (RequestGuard.isWarmUp(ctx)) {
            // the engine's own warm-up through this very route (WarmUp): its keys, its stream, its metrics
            EngineMetrics apart = decisions.warmUpMetrics();
            decisions.warm(type, txn, callerDecision, r -> answer(response, r, explain, apart, true));
            return;
        }
        EngineMetrics metrics = decisions.metrics();
        decisions.evaluate(type, txn, callerDecision, start, receivedAt, parseNanos, r -> answer(response, r, explain, metrics, false));
    }

    /**
     * Writes the answer, or counts why it could not ({@code vigil_evaluate_unwritten_total}): every
     * decided request ends in exactly one of the three. A warm-up answer not written is logged with its
     * transaction, so that a warm-up request left unanswered names its path (issue 22).
     */
    private void answer(HttpServerResponse response, DecisionRecord record, boolean explain, EngineMetrics metrics,
                        boolean warmUp) {
        if (response.closed() || response.ended()) {
            // the caller went away; the decision still goes to the sink
            metrics.unwritten(record.type(), EngineMetrics.Unwritten.CALLER_GONE);
            if (warmUp) {
                LOG.warnf("warm-up answer to %s (transaction %s) not written: the connection was %s", record.type(),
                        record.transactionId(), response.closed() ? "closed" : "already answered");
            }
            return;
        }
        try {
            JsonWriter w = AnswerJson.write(JsonWriter.get(), record, explain);
            response.putHeader(HttpHeaders.CONTENT_TYPE, JSON).end(w.toBuffer());
        } catch (RuntimeException e) {
            metrics.unwritten(record.type(), EngineMetrics.Unwritten.WRITE_FAILED);
            if (writeFailureLog.admit() >= 0) {
                LOG.errorf(e, "the answer to %s (transaction %s) could not be written", record.type(), record.transactionId());
            }
            if (!response.closed() && !response.ended()) {
                Errors.send(response, 500, "INTERNAL_ERROR", "the answer could not be written", null);
            }
        }
    }

    private static boolean explain(HttpServerRequest request) {
        if (request.query() != null && "true".equalsIgnoreCase(request.getParam("explain"))) {
            return true;
        }
        String h = request.getHeader(X_EXPLAIN);
        return h != null && h.equalsIgnoreCase("true");
    }

    /** {@code application/json}, with parameters such as charset, or any {@code application/*+json}. */
    static boolean acceptableContentType(String contentType) {
        if (contentType == null) {
            return false;
        }
        int semi = contentType.indexOf(';');
        String type = (semi < 0 ? contentType : contentType.substring(0, semi)).trim();
        return type.equalsIgnoreCase("application/json")
                || (type.regionMatches(true, 0, "application/", 0, 12) && type.regionMatches(true, type.length() - 5, "+json", 0, 5));
    }

    private static String describe(String contentType) {
        return contentType == null ? "missing" : "\"" + contentType + "\"";
    }

    /**
     * Failures raised by handlers of the chain: the body limit (413), the caller breaking the
     * request (framing, abort: {@link ClientErrors}, never an engine error) and anything unexpected.
     */
    private void failed(RoutingContext ctx, String endpoint) {
        int status = ctx.statusCode();
        ClientErrors.Kind clientError = status == 413 ? null : ClientErrors.classify(ctx);
        if (clientError != null) {
            if (ctx.get(CLIENT_ERROR) != null) {
                return; // the connection closing after a framing error fails the request once more: one error
            }
            ctx.put(CLIENT_ERROR, clientError);
            clientErrors.record(endpoint, clientError, ctx.request().method() + " " + ctx.request().path(), ctx.failure());
            if (clientError == ClientErrors.Kind.FRAMING) {
                ctx.response().putHeader(HttpHeaders.CONNECTION, "close");
                Errors.send(ctx.response(), 400, "INVALID_REQUEST", "body: malformed HTTP message framing", null);
            }
        } else if (status == 413) {
            reject(ctx, endpoint, 413, "PAYLOAD_TOO_LARGE",
                    "body: larger than the limit of " + config.engine().maxBodyBytes() + " bytes", null);
        } else if (status == 400) {
            reject(ctx, endpoint, 400, "INVALID_REQUEST", "body: could not be read", null);
        } else {
            LOG.errorf(ctx.failure(), "unexpected failure (status %d) on %s", status, ctx.request().path());
            // Counted with the 4xx rejections: the availability SLI reads status="500" from this counter.
            decisions.metrics().rejected(endpoint, 500, "INTERNAL_ERROR");
            if (!ctx.response().ended()) {
                Errors.send(ctx.response(), 500, "INTERNAL_ERROR", "unexpected engine error", null);
            }
        }
    }

    private void reject(RoutingContext ctx, String endpoint, int status, String code, String message, String field) {
        decisions.metrics().rejected(endpoint, status, code);
        if (status == 413) {
            ctx.response().putHeader(HttpHeaders.CONNECTION, "close");
        }
        Errors.send(ctx.response(), status, code, message, field);
    }

    private void methodNotAllowed(RoutingContext ctx, String allowed, String endpoint) {
        decisions.metrics().rejected(endpoint, 405, "METHOD_NOT_ALLOWED");
        ctx.response().putHeader(HttpHeaders.ALLOW, allowed);
        Errors.send(ctx.response(), 405, "METHOD_NOT_ALLOWED",
                ctx.request().method() + " is not allowed on " + ctx.request().path() + "; use " + allowed, null);
    }

    /**
     * Compatibility health of the existing engine: always UP while the process answers, with what is
     * loaded and whether the velocity store answered recently ({@link StorageHealth}).
     */
    private void health(RoutingContext ctx) {
        storage.accessible().whenComplete((accessible, failure) -> {
            RulesetSnapshot snapshot = rulesets.current();
            JsonWriter w = JsonWriter.get().raw('{');
            w.key("status").string("UP");
            w.key("rulesets_loaded").number(snapshot.partitionCount());
            w.key("rulesets").raw('[');
            boolean first = true;
            for (KeyRulesets k : snapshot.keys()) {
                for (LoadedRuleset p : k.partitions()) {
                    if (!first) {
                        w.comma();
                    }
                    first = false;
                    w.raw('{');
                    w.key("key").string(p.key());
                    w.key("partition").string(p.partition());
                    w.key("version").number(p.version());
                    w.raw('}');
                }
            }
            w.raw(']');
            boolean storage = failure == null && Boolean.TRUE.equals(accessible);
            w.key("storage_accessible").bool(storage);
            w.key("storageAccessible").bool(storage); // the existing engine's own spelling of the same key

            w.key("in_flight").number(decisions.inFlight());
            w.raw('}');
            ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, JSON).end(w.toBuffer());
        });
    }

}
