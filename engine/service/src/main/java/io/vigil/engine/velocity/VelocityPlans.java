package io.vigil.engine.velocity;

import io.vigil.rules.velocity.VelocityRequest;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The plans of request shapes, each built once with its generated scripts and never changed after
 * ({@link VelocityPlan} is immutable), so every event loop reads them without locks.
 *
 * <p>The cache is bounded ({@link #MAX_PLANS}): Redis 7.0 keeps every script it was sent until
 * {@code SCRIPT FLUSH}, so a flood of shapes (never seen with real rulesets: a few per ruleset
 * version) falls back to the generic script, built per request, instead of filling Redis' script cache.
 */
final class VelocityPlans {

    /** Plans (shapes) with a generated script; beyond it, plans are built per request and use the generic script. */
    static final int MAX_PLANS = 512;

    private final ConcurrentHashMap<Long, VelocityPlan> plans = new ConcurrentHashMap<>();
    private final BucketLayout buckets;
    private final boolean cluster;
    private final int distinctCap;
    private final boolean generate;
    private final long markerTtlCap;

    /**
     * @param cluster      one call per dimension value (Redis Cluster) instead of one per ruleset key
     * @param generate     false: every call uses the generic script (benchmarks compare the two)
     * @param markerTtlCap milliseconds a transaction's idempotency marker lives at most; 0: its longest window
     */
    VelocityPlans(BucketLayout buckets, boolean cluster, int distinctCap, boolean generate, long markerTtlCap) {
        this.buckets = buckets;
        this.cluster = cluster;
        this.distinctCap = distinctCap;
        this.generate = generate;
        this.markerTtlCap = markerTtlCap;
    }

    /** The plan of this request's shape: cached (with its scripts) when there is room. */
    VelocityPlan plan(VelocityRequest request) {
        long shape = VelocityPlan.shapeHash(request);
        VelocityPlan cached = plans.get(shape);
        if (cached != null && cached.fits(request)) {
            return cached;
        }
        VelocityPlan plan = VelocityPlan.of(request, cluster, buckets, markerTtlCap);
        if (cached == null && generate && plans.size() < MAX_PLANS) {
            VelocityPlan scripted = plan.withScripts(call -> call.size <= VelocityScripts.MAX_GENERATED_CHECKS
                    ? LuaScript.of(VelocityScripts.generate(call, distinctCap)) : null);
            VelocityPlan raced = plans.putIfAbsent(shape, scripted);
            return raced != null && raced.fits(request) ? raced : scripted;
        }
        return plan;
    }

    int cached() {
        return plans.size();
    }
}
