package io.vigil.engine.velocity;

import io.vigil.rules.velocity.Aggregate;
import io.vigil.rules.velocity.VelocityCheck;
import io.vigil.rules.velocity.VelocityRequest;

import java.util.ArrayList;
import java.util.List;

/**
 * The script calls of one shape of {@link VelocityRequest}: its checks (ruleset key, rule, dimension,
 * window, aggregate, in request order) grouped by velocity hash, and which groups go in which call.
 * Built once per shape and cached, immutable, by {@link VelocityPlans} (a ruleset version has a few shapes: which
 * of its dimensions a transaction carries), like envoy ratelimit's per-descriptor cache keys: per
 * request only the values (dimension values, amounts, members, the transaction id) are encoded.
 *
 * <p>Standalone: one call per ruleset key (the engine only sends one); cluster: one call per group,
 * since a call's keys must share a slot. A check asked twice in one hash (same rule id, window and
 * aggregate) is sent once and answered like its first.
 */
final class VelocityPlan {

    /** One check as a call sends it: the first request position asking it, and its constants. */
    static final class Check {
        /** Position in the request (the first, when the request asks it twice). */
        final int index;
        final String id;
        /** The id as the marker and the reply hold it (ASCII, 8 bytes). */
        final byte[] idBytes;
        final Aggregate aggregate;
        final long bucketMillis;
        final int buckets;
        /** Distinct only: the set's key after the value, {@code }:<ruleset>:<id>} (else null). */
        final String distinctKeySuffix;

        Check(int index, String id, Aggregate aggregate, long bucketMillis, int buckets, String rulesetKey) {
            this.index = index;
            this.id = id;
            this.idBytes = id.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            this.aggregate = aggregate;
            this.bucketMillis = bucketMillis;
            this.buckets = buckets;
            this.distinctKeySuffix = aggregate == Aggregate.DISTINCT ? "}:" + rulesetKey + ':' + id : null;
        }

        long windowMillis() {
            return bucketMillis * buckets;
        }
    }

    /** The checks on one dimension value of one ruleset key: one velocity hash. */
    static final class Group {
        final String rulesetKey;
        final String dimension;
        final List<Check> checks = new ArrayList<>();
        /** How long the hash must live after a write: its longest window plus that window's bucket. */
        long span;
        int distincts;

        Group(String rulesetKey, String dimension) {
            this.rulesetKey = rulesetKey;
            this.dimension = dimension;
        }

        /** The hash tag of this group in {@code request}. */
        String tag(VelocityRequest request) {
            return VelocityKeys.tag(dimension, request.checks().get(checks.get(0).index).dimensionValue());
        }

        Check find(String id) {
            for (Check c : checks) {
                if (c.id.equals(id)) {
                    return c;
                }
            }
            return null;
        }
    }

    /** One atomic script call: groups whose keys share a slot (all of them on a standalone Redis). */
    static final class Call {
        final List<Group> groups;
        /** Keys: the marker, then per group its hash and its distinct sets. */
        final int keys;
        /**
         * The marker lives as long as the longest window of the call plus its bucket, or the idempotency
         * window if that is shorter (docs/adr/0028-aof-rewrites-off-the-decision-path.md).
         */
        final long markerTtl;
        /** Checks answered (repeats not included). */
        final int size;
        /** The script generated for this call; null: the generic script. */
        final LuaScript script;

        Call(List<Group> groups) {
            this(groups, null, 0);
        }

        /** @param markerTtlCap milliseconds a marker lives at most; 0: as long as the call's longest window */
        private Call(List<Group> groups, LuaScript script, long markerTtlCap) {
            this.groups = groups;
            int keys = 1;
            long ttl = 0;
            int size = 0;
            for (Group g : groups) {
                keys += 1 + g.distincts;
                ttl = Math.max(ttl, g.span);
                size += g.checks.size();
            }
            this.keys = keys;
            this.markerTtl = markerTtlCap > 0 ? Math.min(ttl, markerTtlCap) : ttl;
            this.size = size;
            this.script = script;
        }

        /** This call with its own generated script. */
        Call withScript(LuaScript script) {
            return new Call(groups, script, markerTtl);
        }
    }

    /** The request positions' checks (a repeat points at the check it repeats). */
    private final Check[] byPosition;
    /** The request this plan was built from: its checks' identities are the plan's shape. */
    private final List<VelocityCheck> shape;
    /** Per position, the group whose dimension value it must share (values are checked per request). */
    private final Group[] groupOf;
    final List<Group> groups;
    final List<Call> calls;
    private final boolean repeats;

    private VelocityPlan(List<VelocityCheck> shape, Check[] byPosition, Group[] groupOf, List<Group> groups,
                         List<Call> calls, boolean repeats) {
        this.shape = shape;
        this.byPosition = byPosition;
        this.groupOf = groupOf;
        this.groups = groups;
        this.calls = calls;
        this.repeats = repeats;
    }

    /**
     * The plan of {@code request}'s shape: checks grouped by ruleset key and dimension value (groups
     * in order of first use); standalone, groups of one ruleset key in one call.
     */
    static VelocityPlan of(VelocityRequest request, boolean cluster, BucketLayout buckets) {
        return of(request, cluster, buckets, 0);
    }

    /** @param markerTtlCap milliseconds a transaction's marker lives at most; 0: its calls' longest window */
    static VelocityPlan of(VelocityRequest request, boolean cluster, BucketLayout buckets, long markerTtlCap) {
        List<VelocityCheck> checks = request.checks();
        int n = checks.size();
        Check[] byPosition = new Check[n];
        Group[] groupOf = new Group[n];
        List<Group> groups = new ArrayList<>();
        boolean repeats = false;
        for (int i = 0; i < n; i++) {
            VelocityCheck c = checks.get(i);
            Group group = null;
            for (Group g : groups) {
                VelocityCheck first = checks.get(g.checks.get(0).index);
                if (g.rulesetKey.equals(c.rulesetKey()) && g.dimension.equals(c.dimension())
                        && first.dimensionValue().equals(c.dimensionValue())) {
                    group = g;
                    break;
                }
            }
            if (group == null) {
                group = new Group(c.rulesetKey(), c.dimension());
                groups.add(group);
            }
            groupOf[i] = group;
            String id = VelocityKeys.wireId(c);
            Check same = group.find(id);
            if (same != null) {
                byPosition[i] = same;
                repeats = true;
                continue;
            }
            long window = c.windowSeconds() * 1000L;
            int nb = buckets.bucketsIn(window);
            Check check = new Check(i, id, c.aggregate(), window / nb, nb, c.rulesetKey());
            byPosition[i] = check;
            group.checks.add(check);
            group.span = Math.max(group.span, window + window / nb);
            if (c.aggregate() == Aggregate.DISTINCT) {
                group.distincts++;
            }
        }
        List<Call> calls = new ArrayList<>();
        if (cluster) {
            for (Group g : groups) {
                calls.add(new Call(List.of(g), null, markerTtlCap));
            }
        } else {
            // one call per ruleset key, in order of first use
            List<Group> left = new ArrayList<>(groups);
            while (!left.isEmpty()) {
                String key = left.get(0).rulesetKey;
                List<Group> same = new ArrayList<>();
                left.removeIf(g -> g.rulesetKey.equals(key) && same.add(g));
                calls.add(new Call(same, null, markerTtlCap));
            }
        }
        return new VelocityPlan(List.copyOf(checks), byPosition, groupOf, List.copyOf(groups), List.copyOf(calls),
                repeats);
    }

    /**
     * This plan with a generated script for each call {@code script} answers (null: the generic
     * script): a new plan, this one is left as it is.
     */
    VelocityPlan withScripts(java.util.function.Function<Call, LuaScript> script) {
        List<Call> scripted = new ArrayList<>(calls.size());
        for (Call call : calls) {
            LuaScript generated = script.apply(call);
            scripted.add(generated == null ? call : call.withScript(generated));
        }
        return new VelocityPlan(shape, byPosition, groupOf, groups, List.copyOf(scripted), repeats);
    }

    /** A hash of the request's shape (what {@link #fits} compares): no allocation. */
    static long shapeHash(VelocityRequest request) {
        long h = 17;
        for (VelocityCheck c : request.checks()) {
            h = h * 31 + c.rulesetKey().hashCode();
            h = h * 31 + c.ruleId().hashCode();
            h = h * 31 + c.dimension().hashCode();
            h = h * 31 + c.windowSeconds();
            h = h * 31 + c.aggregate().ordinal();
        }
        return h;
    }

    /**
     * True when {@code request} has this plan's shape: the same checks in the same order, and the
     * checks this plan groups together carry one dimension value (they do in the engine: one value per
     * dimension and transaction).
     */
    boolean fits(VelocityRequest request) {
        List<VelocityCheck> checks = request.checks();
        if (checks.size() != shape.size()) {
            return false;
        }
        for (int i = 0; i < checks.size(); i++) {
            VelocityCheck c = checks.get(i);
            VelocityCheck s = shape.get(i);
            if (c.windowSeconds() != s.windowSeconds() || c.aggregate() != s.aggregate()
                    || !c.ruleId().equals(s.ruleId()) || !c.rulesetKey().equals(s.rulesetKey())
                    || !c.dimension().equals(s.dimension())) {
                return false;
            }
            int first = groupOf[i].checks.get(0).index;
            if (first != i && !c.dimensionValue().equals(checks.get(first).dimensionValue())) {
                return false;
            }
        }
        return true;
    }

    /** Gives every repeated check the answer of the check it repeats. */
    void copyRepeats(double[] values) {
        if (!repeats) {
            return;
        }
        for (int i = 0; i < byPosition.length; i++) {
            values[i] = values[byPosition[i].index];
        }
    }
}
