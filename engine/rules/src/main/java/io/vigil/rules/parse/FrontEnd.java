package io.vigil.rules.parse;

import com.fasterxml.jackson.databind.JsonNode;
import io.vigil.rules.model.RulesetDocument;
import io.vigil.rules.parse.check.Binder;
import io.vigil.rules.parse.legacy.LegacyDialect;
import io.vigil.rules.parse.syntax.NativeReader;
import io.vigil.rules.parse.syntax.Syntax;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The ruleset front end, phase by phase: numbers in range; the legacy dialect rewritten to the native
 * format (legacy documents only); the strict native reader (keys, types, required parts: the syntax
 * model); the checkers and the binder (references, operand types, velocity, regexes: the bound
 * model). Every phase adds to the same problems; they are reported together, in document order, with
 * the paths the user wrote. See ADR 0012.
 */
final class FrontEnd {
    private FrontEnd() {
    }

    /** A bound document, or every problem (never both). */
    record Result(RulesetDocument document, List<ValidationError> errors) {
    }

    static Result read(JsonNode root, String legacyKey, Integer legacyVersion, int distinctCap) {
        if (!root.isObject()) {
            return invalid(List.of(new ValidationError("$", "expected an object (a ruleset document)")));
        }
        List<ValidationError> range = new ArrayList<>();
        finiteNumbers(root, Path.ROOT, range);
        if (!range.isEmpty()) {
            return invalid(range);
        }
        boolean legacy = LegacyDialect.isLegacy(root);
        Problems asWritten = new Problems();
        JsonNode nativeRoot = root;
        SourceMap sources = new SourceMap();
        NativeReader.Allowances allowances = NativeReader.Allowances.NONE;
        if (legacy) {
            LegacyDialect dialect = new LegacyDialect(asWritten, legacyKey, legacyVersion);
            nativeRoot = dialect.rewrite(root);
            sources = dialect.sources();
            allowances = LegacyDialect.ALLOWANCES;
        }
        Problems problems = new Problems();
        Syntax.Document syntax = new NativeReader(problems, allowances).read(nativeRoot);
        RulesetDocument document = new Binder(problems, distinctCap).bind(syntax, legacy);
        if (asWritten.isEmpty() && problems.isEmpty()) {
            return new Result(document, List.of());
        }
        for (Problems.Problem p : problems.list()) {
            if (!sources.isRefused(p.path())) {
                asWritten.add(p, sources);
            }
        }
        return invalid(inDocumentOrder(root, asWritten.list()));
    }

    private static Result invalid(List<ValidationError> errors) {
        return new Result(null, errors);
    }

    /** Every number must be a finite double: 1e999 would compare as infinity. Checked once, up front. */
    private static void finiteNumbers(JsonNode n, Path path, List<ValidationError> errors) {
        if (n.isNumber()) {
            if (!Double.isFinite(n.decimalValue().doubleValue())) {
                errors.add(new ValidationError(path.toString(), "number out of range"));
            }
        } else if (n.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                finiteNumbers(e.getValue(), path.key(e.getKey()), errors);
            }
        } else if (n.isArray()) {
            for (int i = 0; i < n.size(); i++) {
                finiteNumbers(n.get(i), path.index(i), errors);
            }
        }
    }

    /**
     * Problems sorted by where their anchors are in the document as written (a node's own problems
     * before those inside it); problems at the same place keep the order they were found in.
     */
    private static List<ValidationError> inDocumentOrder(JsonNode root, List<Problems.Problem> problems) {
        record Placed(int[] position, Problems.Problem problem) {
        }
        List<Placed> placed = new ArrayList<>();
        for (Problems.Problem p : problems) {
            placed.add(new Placed(position(root, p.anchor(), p.afterAnchor()), p));
        }
        placed.sort(Comparator.comparing(Placed::position, java.util.Arrays::compare));
        return placed.stream().map(p -> new ValidationError(p.problem().path().toString(), p.problem().message())).toList();
    }

    /**
     * The position of the deepest existing node on {@code path}: for each step, the index of the key
     * in its object (in the order written) or of the element in its array; after a node, one more step
     * that sorts after all its children.
     */
    private static int[] position(JsonNode root, Path path, boolean after) {
        Path[] steps = new Path[path.depth()];
        for (Path p = path; !p.isRoot(); p = p.parent()) {
            steps[p.depth() - 1] = p;
        }
        int[] position = new int[steps.length + (after ? 1 : 0)];
        JsonNode n = root;
        int depth = 0;
        for (Path step : steps) {
            int i = step.lastKey() == null ? step.lastIndex() : keyIndex(n, step.lastKey());
            JsonNode child = step.lastKey() == null ? n.get(i) : n.get(step.lastKey());
            if (child == null || i < 0) {
                break;
            }
            position[depth++] = i;
            n = child;
        }
        if (after) {
            position[depth++] = Integer.MAX_VALUE;
        }
        return java.util.Arrays.copyOf(position, depth);
    }

    private static int keyIndex(JsonNode object, String key) {
        int i = 0;
        for (Iterator<String> it = object.fieldNames(); it.hasNext(); i++) {
            if (it.next().equals(key)) {
                return i;
            }
        }
        return -1;
    }
}
