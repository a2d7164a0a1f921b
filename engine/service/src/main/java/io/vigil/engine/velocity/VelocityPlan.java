package io.vigil.engine.velocity;

import io.vigil.rules.velocity.Aggregate;
import io.vigil.rules.velocity.VelocityCheck;
import io.vigil.rules.velocity.VelocityRequest;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The script calls of one {@link VelocityRequest}, built once per request: its checks grouped by
 * velocity hash (dimension value and ruleset key), groups in order of first use, and which groups go
 * in which call. Standalone: one call per ruleset key (the engine only sends one); cluster: one call
 * per group, since a call's keys must share a slot. A check asked twice in one hash (same rule id,
 * window and aggregate) is sent once and answered like its first.
 */
final class VelocityPlan {

    /** The checks on one dimension value of one ruleset key. */
    static final class Group {
        final String tag;
        final String rulesetKey;
        final String hashKey;
        /** Indexes of the request's checks in this group (distinct ids only), and their check ids. */
        final int[] checks;
        final String[] ids;
        int size;
        int distincts;

        Group(String tag, String rulesetKey, int capacity) {
            this.tag = tag;
            this.rulesetKey = rulesetKey;
            this.hashKey = VelocityKeys.velocityKey(tag, rulesetKey);
            this.checks = new int[capacity];
            this.ids = new String[capacity];
        }

        /** The request index of the check with this id in the group, or -1 (a group holds a few checks). */
        int indexOf(String id) {
            for (int k = 0; k < size; k++) {
                if (ids[k].equals(id)) {
                    return checks[k];
                }
            }
            return -1;
        }

        /** How long the hash must live after a write: its longest window plus that window's bucket. */
        long span(VelocityScriptClient client, List<VelocityCheck> all) {
            long span = 0;
            for (int k = 0; k < size; k++) {
                long window = all.get(checks[k]).windowSeconds() * 1000L;
                span = Math.max(span, window + client.bucketMillis(window));
            }
            return span;
        }
    }

    private final VelocityRequest request;
    private final Group[] groups;
    private final int groupCount;
    /** Group index where each call starts; callStarts[calls] == groupCount. */
    private final int[] callStarts;
    private final int calls;
    /** For a repeated check: the index of the check it repeats, else -1 (null when none). */
    private final int[] sameAs;

    private VelocityPlan(VelocityRequest request, Group[] groups, int groupCount, int[] callStarts, int calls,
                         int[] sameAs) {
        this.request = request;
        this.groups = groups;
        this.groupCount = groupCount;
        this.callStarts = callStarts;
        this.calls = calls;
        this.sameAs = sameAs;
    }

    static VelocityPlan of(VelocityRequest request, boolean cluster) {
        List<VelocityCheck> checks = request.checks();
        int n = checks.size();
        Group[] groups = new Group[n];
        int count = 0;
        Map<String, Group> byHash = new HashMap<>();
        int[] sameAs = null;
        for (int i = 0; i < n; i++) {
            VelocityCheck c = checks.get(i);
            String tag = VelocityKeys.tag(c.dimension(), c.dimensionValue());
            String hashKey = VelocityKeys.velocityKey(tag, c.rulesetKey());
            Group group = byHash.get(hashKey);
            if (group == null) {
                group = new Group(tag, c.rulesetKey(), n);
                byHash.put(hashKey, group);
                groups[count++] = group;
            }
            String id = VelocityKeys.wireId(c);
            int first = group.indexOf(id);
            if (first >= 0) {
                if (sameAs == null) {
                    sameAs = new int[n];
                    java.util.Arrays.fill(sameAs, -1);
                }
                sameAs[i] = first;
                continue;
            }
            group.checks[group.size] = i;
            group.ids[group.size] = id;
            group.size++;
            if (c.aggregate() == Aggregate.DISTINCT) {
                group.distincts++;
            }
        }
        // calls: cluster one per group; standalone one per ruleset key (groups sorted by it, stable)
        int[] starts = new int[count + 1];
        int calls = 0;
        if (cluster) {
            for (int g = 0; g <= count; g++) {
                starts[g] = g;
            }
            calls = count;
        } else {
            sortByRulesetKey(groups, count);
            for (int g = 0; g < count; g++) {
                if (g == 0 || !groups[g].rulesetKey.equals(groups[g - 1].rulesetKey)) {
                    starts[calls++] = g;
                }
            }
            starts[calls] = count;
        }
        return new VelocityPlan(request, groups, count, starts, calls, sameAs);
    }

    /** Insertion sort, stable: groups are few, and nearly always of one ruleset key already. */
    private static void sortByRulesetKey(Group[] groups, int count) {
        for (int i = 1; i < count; i++) {
            Group g = groups[i];
            int j = i - 1;
            while (j >= 0 && groups[j].rulesetKey.compareTo(g.rulesetKey) > 0) {
                groups[j + 1] = groups[j];
                j--;
            }
            groups[j + 1] = g;
        }
    }

    VelocityRequest request() {
        return request;
    }

    int calls() {
        return calls;
    }

    int firstGroup(int call) {
        return callStarts[call];
    }

    /** Exclusive. */
    int lastGroup(int call) {
        return callStarts[call + 1];
    }

    Group group(int g) {
        return groups[g];
    }

    int groups() {
        return groupCount;
    }

    /** Checks answered by one call (repeats not included). */
    int checksIn(int call) {
        int size = 0;
        for (int g = firstGroup(call); g < lastGroup(call); g++) {
            size += groups[g].size;
        }
        return size;
    }

    /** Gives every repeated check the answer of the check it repeats. */
    void copyDuplicates(double[] values) {
        if (sameAs == null) {
            return;
        }
        for (int i = 0; i < sameAs.length; i++) {
            if (sameAs[i] >= 0) {
                values[i] = values[sameAs[i]];
            }
        }
    }
}
