package io.vigil.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.vigil.rules.eval.CompiledRuleset;
import io.vigil.rules.eval.RulesetCompiler;
import io.vigil.rules.model.RulesetDocument;
import io.vigil.rules.parse.ParseResult;
import io.vigil.rules.parse.RulesetFormat;
import io.vigil.rules.parse.Rulesets;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The ruleset front end and compiler on one thread, as the engine and the operator run them when a
 * ruleset is activated or validated (not on the decision path). One operation = one document.
 *
 * <ul>
 *   <li>{@code read}: the document as compact JSON to a validated {@link RulesetDocument}
 *       ({@link Rulesets#read}: JSON tree, every check, checksum). JSON so that the text parser,
 *       which is not ours, weighs little.</li>
 *   <li>{@code compile}: the validated document to a {@link CompiledRuleset}.</li>
 *   <li>{@code load}: the file as stored (YAML or JSON) to a compiled ruleset ({@link Rulesets#load}).</li>
 * </ul>
 * {@code document}: {@code native} is CARD_AUTH v2 (68 rules, every operator and scope dimension);
 * {@code legacy} is the same rules in the old engine's format (schema_version 1, ruleId, when), so
 * both formats are measured on the same content.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class RulesetLoadBenchmark {
    @Param({"native", "legacy"})
    public String document;

    private byte[] stored;
    private RulesetFormat storedFormat;
    private byte[] json;
    private RulesetDocument validated;
    private String checksum;

    @Setup
    public void setup() throws IOException {
        Path file = Path.of(System.getProperty("vigil.rulesets", "engine/rulesets")).resolve("CARD_AUTH/v2/ruleset.yaml");
        JsonNode tree = new YAMLMapper().readTree(Files.readAllBytes(file));
        if (document.equals("legacy")) {
            tree = legacy((ObjectNode) tree);
            stored = new ObjectMapper().writeValueAsBytes(tree);
            storedFormat = RulesetFormat.JSON;
        } else {
            stored = Files.readAllBytes(file);
            storedFormat = RulesetFormat.YAML;
        }
        json = new ObjectMapper().writeValueAsBytes(tree);
        Rulesets.DocumentResult r = Rulesets.read(json, RulesetFormat.JSON);
        if (!r.valid()) {
            throw new IllegalStateException(document + " does not validate: " + r.errors());
        }
        validated = r.document();
        checksum = r.checksum();
        ParseResult loaded = Rulesets.load(stored, storedFormat);
        if (!loaded.valid() || loaded.ruleset().ruleCount() != RulesetCompiler.compile(validated, checksum).ruleCount()) {
            throw new IllegalStateException(document + " does not load: " + loaded.errors());
        }
    }

    /** The old engine's spelling of a native document: schema_version 1, ruleId, when. */
    private static JsonNode legacy(ObjectNode root) {
        ObjectNode out = root.objectNode().put("schema_version", 1);
        root.fields().forEachRemaining(e -> out.set(e.getKey(), e.getValue()));
        for (JsonNode r : out.get("rules")) {
            ObjectNode rule = (ObjectNode) r;
            rule.set("ruleId", rule.remove("rule_id"));
            if (rule.has("condition")) {
                rule.set("when", rule.remove("condition"));
            }
        }
        return out;
    }

    @Benchmark
    public RulesetDocument read() {
        return Rulesets.read(json, RulesetFormat.JSON).document();
    }

    @Benchmark
    public CompiledRuleset compile() {
        return RulesetCompiler.compile(validated, checksum);
    }

    @Benchmark
    public CompiledRuleset load() {
        return Rulesets.load(stored, storedFormat).ruleset();
    }
}
