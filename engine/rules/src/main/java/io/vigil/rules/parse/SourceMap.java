package io.vigil.rules.parse;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Where each node of a rewritten document came from, so a problem found in the rewrite names what the
 * user wrote ({@code rules[3].when}, not {@code rules[3].condition}). A path maps through its nearest
 * recorded ancestor; unrecorded paths are the same in both documents. Nodes the rewrite already
 * refused are "refused": problems found inside them later are not reported twice.
 */
public final class SourceMap {
    private final Map<Path, Path> origins = new HashMap<>();
    private final Set<Path> refused = new HashSet<>();

    /** The node at {@code rewritten} came from {@code original}. */
    public void record(Path rewritten, Path original) {
        if (!rewritten.equals(original)) {
            origins.put(rewritten, original);
        }
    }

    /** The node at {@code rewritten} has a problem already reported: later phases stay silent about it. */
    public void refuse(Path rewritten) {
        refused.add(rewritten);
    }

    public boolean isRefused(Path rewritten) {
        for (Path p = rewritten; p != null; p = p.parent()) {
            if (refused.contains(p)) {
                return true;
            }
        }
        return false;
    }

    /** The path in the original document of the node at {@code rewritten}. */
    public Path original(Path rewritten) {
        if (origins.isEmpty()) {
            return rewritten;
        }
        Path mapped = origins.get(rewritten);
        if (mapped != null) {
            return mapped;
        }
        return rewritten.isRoot() ? rewritten : original(rewritten.parent()).withLastOf(rewritten);
    }
}
