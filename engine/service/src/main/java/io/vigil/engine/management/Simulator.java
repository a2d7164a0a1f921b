package io.vigil.engine.management;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vigil.engine.VigilConfig;
import io.vigil.engine.decision.DecisionPath;
import io.vigil.engine.decision.DecisionRecord;
import io.vigil.engine.http.AnswerJson;
import io.vigil.engine.http.CallerDecision;
import io.vigil.engine.http.JsonWriter;
import io.vigil.engine.ruleset.KeyRulesets;
import io.vigil.engine.ruleset.LoadedRuleset;
import io.vigil.engine.ruleset.RulesetDirectory;
import io.vigil.engine.ruleset.RulesetProblem;
import io.vigil.engine.ruleset.RulesetRegistry;
import io.vigil.engine.ruleset.RulesetWatcher;
import io.vigil.rules.eval.CompiledRuleset;
import io.vigil.rules.eval.Evaluation;
import io.vigil.rules.eval.EvaluationType;
import io.vigil.rules.eval.Outcome;
import io.vigil.rules.eval.VelocityFailurePolicy;
import io.vigil.rules.model.ExecutionMode;
import io.vigil.rules.parse.RulesetFormat;
import io.vigil.rules.txn.Field;
import io.vigil.rules.txn.InvalidTransactionException;
import io.vigil.rules.txn.Transaction;
import io.vigil.rules.txn.TransactionReader;
import io.vigil.rules.velocity.VelocityRequest;
import io.vigil.rules.velocity.VelocityResults;
import io.vigil.rules.velocity.VelocityStore;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code simulate} and {@code replay}: evaluate transactions the way the data path does (same
 * partition pick, same {@code prepare}/{@code decide}) but with read-only velocity and without
 * answering anyone or offering anything to the decision sink: no side effects.
 * Runs on a management worker thread, so waiting for velocity here is a plain bounded wait.
 */
@ApplicationScoped
public class Simulator {
    static final int MAX_REPLAY = 10_000;

    @Inject
    RulesetRegistry registry;
    @Inject
    RulesetWatcher watcher;
    @Inject
    VelocityStore velocity;
    @Inject
    VigilConfig config;
    @Inject
    ObjectMapper mapper;

    private final TransactionReader reader = new TransactionReader();

    /** {@code {"ruleset": <inline doc> | omitted, "ruleset_key": "...", "evaluation_type": "AUTH", "transaction": {...}}}. */
    ObjectNode simulate(JsonNode request) {
        requireObject(request, null);
        JsonNode txnNode = request.get("transaction");
        requireObject(txnNode, "transaction");
        JsonNode inline = request.get("ruleset");
        CompiledRuleset ruleset;
        String source;
        Transaction txn = transaction(txnNode, "transaction");
        if (inline != null && !inline.isNull()) {
            ruleset = inlineRuleset(inline);
            source = "inline";
        } else {
            String key = text(request, "ruleset_key", DecisionPath.AUTH_KEY);
            LoadedRuleset active = registry.current().pick(key, txn.text(Field.COUNTRY_CODE));
            if (active == null) {
                throw new ManagementError(404, "RULESET_NOT_LOADED", "no active ruleset " + key
                        + " for this transaction; pass one inline as \"ruleset\"", "ruleset_key", List.of());
            }
            ruleset = active.compiled();
            source = active.source();
        }
        EvaluationType type = evaluationType(request, ruleset);
        requireCallerDecision(txn, type, "transaction");
        ObjectNode out = mapper.createObjectNode();
        out.put("ruleset_source", source);
        out.put("evaluation_type", type.name());
        out.put("velocity", "read-only");
        out.set("result", answer(evaluate(ruleset, txn, type)));
        return out;
    }

    /** {@code {"ruleset_key": "CARD_AUTH", "version": 2 (default: active), "transactions": [...]}}. */
    ObjectNode replay(JsonNode request) {
        requireObject(request, null);
        String key = text(request, "ruleset_key", DecisionPath.AUTH_KEY);
        JsonNode versionNode = request.get("version");
        KeyRulesets rulesets;
        if (versionNode == null || versionNode.isNull()) {
            rulesets = registry.current().key(key);
            if (rulesets == null) {
                throw new ManagementError(404, "RULESET_NOT_LOADED", "ruleset " + key + " is not loaded", "ruleset_key", List.of());
            }
        } else {
            if (!versionNode.canConvertToInt() || !versionNode.isIntegralNumber() || versionNode.asInt() < 1) {
                throw ManagementError.invalid("version", "expected a positive integer");
            }
            int version = versionNode.asInt();
            if (!watcher.directory().versions(key).contains(version)) {
                throw new ManagementError(404, "RULESET_NOT_FOUND", "no version " + version + " of ruleset " + key,
                        "version", List.of());
            }
            RulesetDirectory.VersionLoad load = watcher.directory().load(key, version);
            if (!load.valid()) {
                throw new ManagementError(422, "RULESET_INVALID", "ruleset " + key + " v" + version + " does not validate",
                        null, load.problems());
            }
            rulesets = load.rulesets();
        }
        JsonNode txns = request.get("transactions");
        if (txns == null || !txns.isArray()) {
            throw ManagementError.invalid("transactions", "expected an array of transactions");
        }
        if (txns.size() > MAX_REPLAY) {
            throw ManagementError.invalid("transactions", "at most " + MAX_REPLAY + " per replay, got " + txns.size());
        }
        EvaluationType forced = request.hasNonNull("evaluation_type") ? evaluationType(request, null) : null;
        ArrayNode results = mapper.createArrayNode();
        Map<Outcome, Integer> decisions = new EnumMap<>(Outcome.class);
        int errors = 0;
        for (int i = 0; i < txns.size(); i++) {
            String path = "transactions[" + i + "]";
            ObjectNode result;
            try {
                requireObject(txns.get(i), path);
                Transaction txn = transaction(txns.get(i), path);
                LoadedRuleset partition = rulesets.pick(txn.text(Field.COUNTRY_CODE));
                if (partition == null) {
                    throw new ManagementError(404, "RULESET_NOT_LOADED", "no partition of " + key + " v"
                            + rulesets.version() + " for this transaction's country and no global one", null, List.of());
                }
                EvaluationType type = forced != null ? forced : typeOf(partition.compiled());
                requireCallerDecision(txn, type, path);
                DecisionRecord r = evaluate(partition.compiled(), txn, type);
                decisions.merge(r.decision(), 1, Integer::sum);
                result = answer(r);
            } catch (ManagementError e) {
                errors++;
                result = mapper.createObjectNode();
                result.set("error", errorBody(e));
            }
            result.put("index", i);
            results.add(result);
        }
        ObjectNode out = mapper.createObjectNode();
        out.put("ruleset_key", key);
        out.put("ruleset_version", rulesets.version());
        out.put("velocity", "read-only");
        out.put("count", txns.size());
        ObjectNode summary = out.putObject("summary");
        for (Outcome o : Outcome.values()) {
            summary.put(o.name(), decisions.getOrDefault(o, 0));
        }
        summary.put("errors", errors);
        out.set("results", results);
        return out;
    }

    /** One evaluation with read-only velocity; the evaluation's own decision (MONITORING echoes the caller's when given). */
    DecisionRecord evaluate(CompiledRuleset ruleset, Transaction txn, EvaluationType type) {
        long start = System.nanoTime();
        CompiledRuleset.Pending pending = ruleset.prepare(txn, type);
        VelocityRequest request = pending.readOnlyVelocityRequest();
        VelocityResults results = null;
        long velocityNanos = 0;
        if (request != null) {
            long t = System.nanoTime();
            results = await(velocity.check(request));
            velocityNanos = System.nanoTime() - t;
        }
        VelocityFailurePolicy policy = config.engine().velocityFailurePolicy();
        Evaluation e = pending.decide(results, policy);
        Outcome decision = e.decision();
        if (type == EvaluationType.MONITORING && txn.text(Field.DECISION) != null) {
            Outcome caller = outcome(txn.text(Field.DECISION));
            decision = caller == null ? decision : caller;
        }
        return new DecisionRecord(null, type, txn, decision, e.mode(), e.errorCode(), ruleset.key(), ruleset.version(), e,
                System.currentTimeMillis(), 0, velocityNanos, System.nanoTime() - start);
    }

    private VelocityResults await(CompletionStage<VelocityResults> stage) {
        CompletableFuture<VelocityResults> f = new CompletableFuture<>();
        stage.whenComplete((r, e) -> {
            if (e != null) {
                f.completeExceptionally(e);
            } else {
                f.complete(r);
            }
        });
        long ms = config.engine().managementVelocityTimeout().toMillis();
        try {
            VelocityResults r = f.get(ms, TimeUnit.MILLISECONDS);
            return r == null ? VelocityResults.unavailable("velocity store gave no answer") : r;
        } catch (TimeoutException e) {
            return VelocityResults.unavailable("no velocity answer within " + ms + " ms");
        } catch (ExecutionException e) {
            return VelocityResults.unavailable("velocity store failed: " + e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return VelocityResults.unavailable("interrupted");
        }
    }

    private CompiledRuleset inlineRuleset(JsonNode inline) {
        byte[] bytes;
        RulesetFormat format;
        if (inline.isTextual()) {
            bytes = inline.asText().getBytes(StandardCharsets.UTF_8);
            format = ManagementRoutes.sniff(bytes, null);
        } else if (inline.isObject()) {
            bytes = inline.toString().getBytes(StandardCharsets.UTF_8);
            format = RulesetFormat.JSON;
        } else {
            throw ManagementError.invalid("ruleset", "expected a ruleset document (object) or its YAML/JSON text");
        }
        RulesetDirectory.Parsed parsed = watcher.directory().parse(bytes, format);
        if (!parsed.errors().isEmpty()) {
            throw new ManagementError(422, "RULESET_INVALID", "the inline ruleset does not validate", "ruleset",
                    parsed.errors().stream().map(e -> new RulesetProblem(null, prefix("ruleset", e.path()), e.message())).toList());
        }
        return parsed.ruleset();
    }

    private static String prefix(String root, String path) {
        return path == null || path.isEmpty() ? root : root + "." + path;
    }

    private Transaction transaction(JsonNode node, String path) {
        try {
            return reader.read(mapper.writeValueAsBytes(node));
        } catch (InvalidTransactionException e) {
            String field = e.field() == null ? path : path + "." + e.field();
            throw new ManagementError(400, "INVALID_REQUEST", field + ": " + e.detail(), field, List.of());
        } catch (IOException e) {
            throw ManagementError.invalid(path, "not serialisable: " + e.getMessage());
        }
    }

    /** MONITORING needs the caller's decision, refused here exactly as the data port refuses it. */
    private static void requireCallerDecision(Transaction txn, EvaluationType type, String path) {
        if (type != EvaluationType.MONITORING) {
            return;
        }
        try {
            CallerDecision.of(txn);
        } catch (InvalidTransactionException e) {
            String field = path + "." + e.field();
            throw new ManagementError(400, "INVALID_REQUEST", field + ": " + e.detail(), field, List.of());
        }
    }

    private static EvaluationType evaluationType(JsonNode request, CompiledRuleset ruleset) {
        JsonNode t = request.get("evaluation_type");
        if (t == null || t.isNull()) {
            return typeOf(ruleset);
        }
        try {
            return EvaluationType.valueOf(t.asText().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw ManagementError.invalid("evaluation_type", "expected AUTH or MONITORING");
        }
    }

    /** FIRST_MATCH rulesets decide (AUTH); ALL_MATCHING ones report (MONITORING). */
    static EvaluationType typeOf(CompiledRuleset ruleset) {
        return ruleset.executionMode() == ExecutionMode.ALL_MATCHING ? EvaluationType.MONITORING : EvaluationType.AUTH;
    }

    private static Outcome outcome(String s) {
        try {
            return Outcome.valueOf(s);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static String text(JsonNode request, String field, String fallback) {
        JsonNode n = request.get(field);
        if (n == null || n.isNull()) {
            return fallback;
        }
        if (!n.isTextual() || n.asText().isBlank()) {
            throw ManagementError.invalid(field, "expected a non-empty string");
        }
        return n.asText();
    }

    private static void requireObject(JsonNode node, String path) {
        if (node == null || !node.isObject()) {
            throw ManagementError.invalid(path == null ? "body" : path, "expected a JSON object");
        }
    }

    /** The explained answer, as the data port would render it with explain=true. */
    ObjectNode answer(DecisionRecord r) {
        try {
            return (ObjectNode) mapper.readTree(AnswerJson.write(JsonWriter.get(), r, true).toBytes());
        } catch (IOException e) {
            throw new IllegalStateException("answer JSON is not JSON", e);
        }
    }

    ObjectNode errorBody(ManagementError e) {
        ObjectNode n = mapper.createObjectNode();
        n.put("code", e.code);
        n.put("message", e.getMessage());
        if (e.field != null) {
            n.put("field", e.field);
        }
        if (!e.problems.isEmpty()) {
            n.set("errors", ManagementRoutes.problems(mapper, e.problems));
        }
        return n;
    }

}
