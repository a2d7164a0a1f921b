package io.vigil.rules.parse.check;

import io.vigil.rules.model.Operand;
import io.vigil.rules.parse.Path;
import io.vigil.rules.parse.Problems;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** List references: in_list / not_in_list name a list of the ruleset; bound to its values (one set per list). */
public final class ListReferences {
    private final Problems problems;
    private final Map<String, List<String>> lists;
    private final Map<String, Set<String>> bound = new HashMap<>();

    public ListReferences(Problems problems, Map<String, List<String>> lists) {
        this.problems = problems;
        this.lists = lists;
    }

    /** The list named {@code name}, or null (with a problem at {@code path}). */
    public Operand.NamedList resolve(String name, Path path) {
        List<String> values = lists.get(name);
        if (values == null) {
            problems.add(path, "unknown list \"" + name + "\"" + (lists.isEmpty()
                    ? " (the ruleset defines no lists)" : " (lists: " + String.join(", ", new TreeSet<>(lists.keySet())) + ")"));
            return null;
        }
        return new Operand.NamedList(name, bound.computeIfAbsent(name, k -> Set.copyOf(values)));
    }
}
