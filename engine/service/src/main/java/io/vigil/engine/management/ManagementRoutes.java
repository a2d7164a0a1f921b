package io.vigil.engine.management;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quarkus.vertx.http.ManagementInterface;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import io.vigil.engine.http.Errors;
import io.vigil.engine.ruleset.KeyRulesets;
import io.vigil.engine.ruleset.LoadedRuleset;
import io.vigil.engine.ruleset.RulesetDirectory;
import io.vigil.engine.ruleset.RulesetProblem;
import io.vigil.engine.ruleset.RulesetRegistry;
import io.vigil.engine.ruleset.RulesetWatcher;
import io.vigil.rules.eval.CompiledRuleset;
import io.vigil.rules.parse.RulesetFormat;
import io.vigil.rules.parse.ValidationError;
import io.vigil.rules.txn.InvalidTransactionException;
import io.vigil.rules.txn.TransactionReader;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import org.jboss.logging.Logger;

/**
 * Ruleset operations on the management port only (never the data port): list, validate, activate,
 * simulate, replay. Handlers that compile rulesets or wait for read-only velocity run on worker
 * threads: this is not the hot path, and it keeps the management event loop free for probes and scrapes.
 */
@ApplicationScoped
public class ManagementRoutes {
    private static final Logger LOG = Logger.getLogger(ManagementRoutes.class);
    static final int MAX_BODY = 16 * 1024 * 1024;

    @Inject
    RulesetRegistry registry;
    @Inject
    RulesetWatcher watcher;
    @Inject
    Simulator simulator;
    @Inject
    ObjectMapper mapper;

    private ObjectReader strict;

    void init(@Observes ManagementInterface management) {
        strict = mapper.reader().with(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
                .with(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
        Router router = management.router();
        BodyHandler body = BodyHandler.create(false).setBodyLimit(MAX_BODY);
        router.get("/rulesets").handler(this::list);
        router.post("/rulesets/validate").handler(body).blockingHandler(this::validate, false).failureHandler(this::failed);
        router.post("/rulesets/:key/activate/:version").blockingHandler(this::activate, false).failureHandler(this::failed);
        router.post("/simulate").handler(body).blockingHandler(ctx -> json(ctx, simulator::simulate), false)
                .failureHandler(this::failed);
        router.post("/replay").handler(body).blockingHandler(ctx -> json(ctx, simulator::replay), false)
                .failureHandler(this::failed);
    }

    /** Active version of every key and partition, and the last rejection of each key that has one. */
    private void list(RoutingContext ctx) {
        ObjectNode out = mapper.createObjectNode();
        out.put("directory", watcher.directory().root().toString());
        ArrayNode rows = out.putArray("rulesets");
        registry.current().keys().stream().sorted((a, b) -> a.key().compareTo(b.key())).forEach(k -> {
            for (LoadedRuleset p : k.partitions()) {
                ObjectNode row = rows.addObject();
                row.put("key", p.key());
                row.put("country", p.partition());
                row.put("version", p.version());
                row.put("checksum", p.checksum());
                row.put("rule_count", p.ruleCount());
                row.put("execution_mode", p.compiled().executionMode() == null ? null : p.compiled().executionMode().name());
                row.put("loaded_at", p.loadedAt().toString());
                row.put("source", p.source());
            }
        });
        ArrayNode failures = out.putArray("failures");
        registry.failures().values().stream().sorted((a, b) -> a.key().compareTo(b.key())).forEach(f -> {
            ObjectNode row = failures.addObject();
            row.put("key", f.key());
            if (f.version() != null) {
                row.put("version", f.version());
            }
            row.put("at", f.at().toString());
            row.set("errors", problems(mapper, f.problems()));
        });
        send(ctx, 200, out);
    }

    /** Validates a ruleset document (JSON or YAML) without loading it: every error with its path. */
    private void validate(RoutingContext ctx) {
        byte[] bytes = ctx.body().buffer() == null ? new byte[0] : ctx.body().buffer().getBytes();
        if (bytes.length == 0) {
            Errors.send(ctx.response(), 400, "INVALID_REQUEST", "body: expected a ruleset document (JSON or YAML)", null);
            return;
        }
        RulesetDirectory.Parsed parsed = watcher.directory().parse(bytes, sniff(bytes, ctx.request().getHeader(HttpHeaders.CONTENT_TYPE)));
        ObjectNode out = mapper.createObjectNode();
        out.put("valid", parsed.errors().isEmpty());
        ArrayNode errors = out.putArray("errors");
        for (ValidationError e : parsed.errors()) {
            errors.addObject().put("path", e.path()).put("message", e.message());
        }
        if (parsed.ruleset() != null) {
            CompiledRuleset r = parsed.ruleset();
            out.put("ruleset_key", r.key());
            out.put("ruleset_version", r.version());
            out.put("country", parsed.country() == null ? "global" : parsed.country());
            out.put("rule_count", r.ruleCount());
            out.put("checksum", r.checksum());
        }
        send(ctx, 200, out);
    }

    private void activate(RoutingContext ctx) {
        String key = ctx.pathParam("key");
        Integer version = RulesetDirectory.parseMarker(ctx.pathParam("version"));
        if (version == null) {
            Errors.send(ctx.response(), 400, "INVALID_REQUEST", "version: expected a positive integer", "version");
            return;
        }
        RulesetWatcher.Activation a = watcher.activate(key, version);
        ObjectNode out = mapper.createObjectNode();
        switch (a.status()) {
            case ACTIVATED -> {
                KeyRulesets k = a.rulesets();
                out.put("key", k.key());
                out.put("version", k.version());
                ArrayNode partitions = out.putArray("partitions");
                for (LoadedRuleset p : k.partitions()) {
                    partitions.addObject().put("country", p.partition()).put("checksum", p.checksum())
                            .put("rule_count", p.ruleCount());
                }
                out.put("pinned", true);
                send(ctx, 200, out);
            }
            case NOT_FOUND -> Errors.send(ctx.response(), 404, "RULESET_NOT_FOUND", a.message(), null);
            case REJECTED -> {
                out.put("code", "RULESET_INVALID");
                out.put("message", a.message() + "; the active version is unchanged");
                out.set("errors", problems(mapper, a.problems()));
                send(ctx, 422, out);
            }
        }
    }

    /**
     * Simulate and replay bodies are read as strictly as the data port reads a transaction:
     * well-formed UTF-8, no duplicate key, and numbers kept exact (so one too large for a double
     * reaches the transaction reader and is refused there, like on the data port).
     */
    private void json(RoutingContext ctx, Function<JsonNode, ObjectNode> operation) {
        JsonNode request;
        try {
            byte[] bytes = ctx.body().buffer() == null ? new byte[0] : ctx.body().buffer().getBytes();
            TransactionReader.checkUtf8(bytes, 0, bytes.length);
            request = bytes.length == 0 ? null : strict.readTree(bytes);
        } catch (InvalidTransactionException e) {
            Errors.send(ctx.response(), 400, "INVALID_REQUEST", e.getMessage(), e.field());
            return;
        } catch (IOException e) {
            String field = e instanceof StreamReadException r && r.getProcessor() instanceof JsonParser p
                    ? TransactionReader.pathOf(p.getParsingContext()) : null;
            String detail = e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
            if (detail != null && detail.startsWith("Duplicate field") && field != null) {
                Errors.send(ctx.response(), 400, "INVALID_REQUEST", field + ": duplicate key", field);
            } else {
                Errors.send(ctx.response(), 400, "INVALID_REQUEST", "body: not JSON (" + detail + ")", null);
            }
            return;
        }
        try {
            send(ctx, 200, operation.apply(request));
        } catch (ManagementError e) {
            send(ctx, e.status, simulator.errorBody(e));
        }
    }

    private void failed(RoutingContext ctx) {
        if (ctx.statusCode() == 413) {
            Errors.send(ctx.response(), 413, "PAYLOAD_TOO_LARGE", "body: larger than " + MAX_BODY + " bytes", null);
            return;
        }
        LOG.errorf(ctx.failure(), "management request %s %s failed", ctx.request().method(), ctx.request().path());
        Errors.send(ctx.response(), ctx.statusCode() >= 400 && ctx.statusCode() < 500 ? ctx.statusCode() : 500,
                "INTERNAL_ERROR", String.valueOf(ctx.failure()), null);
    }

    private void send(RoutingContext ctx, int status, JsonNode body) {
        try {
            ctx.response().setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                    .end(Buffer.buffer(mapper.writeValueAsBytes(body)));
        } catch (JsonProcessingException e) {
            ctx.fail(e);
        }
    }

    static ArrayNode problems(ObjectMapper mapper, List<RulesetProblem> problems) {
        ArrayNode a = mapper.createArrayNode();
        for (RulesetProblem p : problems) {
            ObjectNode n = a.addObject();
            if (p.file() != null) {
                n.put("file", p.file());
            }
            n.put("path", p.path() == null ? "" : p.path());
            n.put("message", p.message());
        }
        return a;
    }

    /** YAML when the content type says so, JSON when it says so; otherwise by the first non-blank character. */
    static RulesetFormat sniff(byte[] bytes, String contentType) {
        if (contentType != null) {
            String ct = contentType.toLowerCase(Locale.ROOT);
            if (ct.contains("yaml")) {
                return RulesetFormat.YAML;
            }
            if (ct.contains("json")) {
                return RulesetFormat.JSON;
            }
        }
        for (byte b : bytes) {
            if (!Character.isWhitespace(b)) {
                return b == '{' || b == '[' ? RulesetFormat.JSON : RulesetFormat.YAML;
            }
        }
        return RulesetFormat.JSON;
    }
}
