package io.vigil.rules.parse;

import io.vigil.rules.model.Names;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The one error list every phase of the front end adds to. A problem names the path it is about and
 * the node it is listed with ({@code anchor}): the front end sorts problems into document order by
 * their anchors, so the phases can run one after the other and still report as one reading would.
 */
public final class Problems {

    /**
     * @param anchor the node the problem is listed at: the path itself, or the object for a key it should
     *               not have; {@code afterAnchor} lists it after everything inside that node
     */
    public record Problem(Path path, Path anchor, boolean afterAnchor, String message) {
        Problem withPaths(Path path, Path anchor) {
            return new Problem(path, anchor, afterAnchor, message);
        }
    }

    private final List<Problem> list = new ArrayList<>();

    public void add(Path path, String message) {
        list.add(new Problem(path, path, false, message));
    }

    /** Adds a problem found elsewhere, with its paths mapped to this list's document. */
    public void add(Problem p, SourceMap sources) {
        list.add(p.withPaths(sources.original(p.path()), sources.original(p.anchor())));
    }

    /** A problem listed after everything inside {@code anchor} (e.g. a rule_id that repeats an earlier one). */
    public void addAfter(Path anchor, Path path, String message) {
        list.add(new Problem(path, anchor, true, message));
    }

    /** A key {@code object} should not have, with a "did you mean" hint among {@code known}. */
    public void unknownKey(Path object, String key, Collection<String> known) {
        String hint = Names.closest(key, known);
        unknownKey(object, key, "unknown key \"" + key + "\"" + (hint == null ? "" : " (did you mean \"" + hint + "\"?)"));
    }

    /** A key {@code object} should not have; listed with the object, before what is inside it. */
    public void unknownKey(Path object, String key, String message) {
        list.add(new Problem(object.key(key), object, false, message));
    }

    public int size() {
        return list.size();
    }

    public boolean isEmpty() {
        return list.isEmpty();
    }

    public List<Problem> list() {
        return list;
    }
}
