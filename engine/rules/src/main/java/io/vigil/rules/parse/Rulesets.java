package io.vigil.rules.parse;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import io.vigil.rules.eval.RulesetCompiler;
import io.vigil.rules.model.RulesetDocument;
import io.vigil.rules.velocity.DistinctCap;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Entry point of the library: parse, validate (strictly, reporting every error with its path) and
 * compile a ruleset document in the native format or the legacy compiled-artifact format.
 */
public final class Rulesets {
    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();
    // YAML 1.1 would read NO (Norway), ON, off, y... as booleans; only true/false are booleans here.
    private static final ObjectMapper YAML = YAMLMapper.builder()
            .enable(YAMLParser.Feature.PARSE_BOOLEAN_LIKE_WORDS_AS_STRINGS)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .build();

    private Rulesets() {
    }

    /** Parses, validates and compiles; a result is either a compiled ruleset or every error, never half of each. */
    public static ParseResult load(byte[] content, RulesetFormat format) {
        return load(content, format, null, null);
    }

    /**
     * As {@link #load(byte[], RulesetFormat)}, with the key and version the artifact is stored under:
     * a legacy document without its own takes these, as the old engine took them from its manifest.
     */
    public static ParseResult load(byte[] content, RulesetFormat format, String legacyKey, Integer legacyVersion) {
        return load(content, format, legacyKey, legacyVersion, DistinctCap.DEFAULT);
    }

    /**
     * As {@link #load(byte[], RulesetFormat, String, Integer)}, for an engine whose distinct cap
     * ({@code vigil.velocity.distinct-cap}) is {@code distinctCap}: a distinct threshold above it is an
     * error (the count saturates at the cap, so the rule could never match).
     */
    public static ParseResult load(byte[] content, RulesetFormat format, String legacyKey, Integer legacyVersion,
                                   int distinctCap) {
        DocumentResult doc = read(content, format, legacyKey, legacyVersion, distinctCap);
        if (!doc.valid()) {
            return new ParseResult(null, doc.errors());
        }
        try {
            return new ParseResult(RulesetCompiler.compile(doc.document(), doc.checksum()), List.of());
        } catch (RuntimeException e) {
            // Validation should make this unreachable; if it is not, report it instead of half-loading.
            return new ParseResult(null, List.of(new ValidationError("$", "could not compile: " + e)));
        }
    }

    /** Loads a file; the format comes from its name (.yaml/.yml are YAML, everything else JSON). */
    public static ParseResult load(Path file) throws IOException {
        return load(Files.readAllBytes(file), RulesetFormat.ofFileName(file.getFileName().toString()));
    }

    /** Validates without compiling (for an engine with the default distinct cap): every error, or none. */
    public static List<ValidationError> validate(byte[] content, RulesetFormat format) {
        return load(content, format).errors();
    }

    /** Parses and validates into the document model (for tools such as the operator) plus its checksum. */
    public static DocumentResult read(byte[] content, RulesetFormat format) {
        return read(content, format, null, null);
    }

    /** As {@link #read(byte[], RulesetFormat)}, with the storage key and version for legacy documents without their own. */
    public static DocumentResult read(byte[] content, RulesetFormat format, String legacyKey, Integer legacyVersion) {
        return read(content, format, legacyKey, legacyVersion, DistinctCap.DEFAULT);
    }

    /** As {@link #read(byte[], RulesetFormat, String, Integer)}, for an engine whose distinct cap is {@code distinctCap}. */
    public static DocumentResult read(byte[] content, RulesetFormat format, String legacyKey, Integer legacyVersion,
                                      int distinctCap) {
        DistinctCap.requireValid(distinctCap);
        JsonNode root;
        try {
            root = (format == RulesetFormat.YAML ? YAML : JSON).readTree(content);
        } catch (JsonProcessingException e) {
            String where = e.getLocation() == null ? ""
                    : " (line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")";
            return DocumentResult.invalid(List.of(new ValidationError("$",
                    "not valid " + format + ": " + e.getOriginalMessage() + where)));
        } catch (IOException e) {
            return DocumentResult.invalid(List.of(new ValidationError("$", "could not read: " + e.getMessage())));
        }
        if (root == null || root.isMissingNode()) {
            return DocumentResult.invalid(List.of(new ValidationError("$", "the document is empty")));
        }
        FrontEnd.Result result = FrontEnd.read(root, legacyKey, legacyVersion, distinctCap);
        if (result.document() == null) {
            return DocumentResult.invalid(result.errors().isEmpty()
                    ? List.of(new ValidationError("$", "could not read the document")) : result.errors());
        }
        return new DocumentResult(result.document(), Canonical.sha256(root), List.of());
    }

    /**
     * A validated document, or every reason it is not one.
     *
     * @param checksum SHA-256 (hex) of the canonical form: the parsed tree re-serialised as compact JSON
     *                 with sorted keys, so formatting, key order and JSON-vs-YAML do not change it
     */
    public record DocumentResult(RulesetDocument document, String checksum, List<ValidationError> errors) {
        static DocumentResult invalid(List<ValidationError> errors) {
            return new DocumentResult(null, null, errors);
        }

        public boolean valid() {
            return errors.isEmpty();
        }
    }
}
