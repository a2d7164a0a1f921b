package io.vigil.engine.velocity;

import io.vertx.redis.client.Command;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;
import io.vertx.redis.client.ResponseType;
import io.vigil.rules.velocity.Aggregate;
import io.vigil.rules.velocity.VelocityCheck;
import io.vigil.rules.velocity.VelocityRequest;

import java.util.List;

/**
 * The arguments of a velocity script call and the reading of its answer, for both script kinds: a
 * script generated for the call's plan takes only values (sums, members), the generic one the whole
 * plan (velocity.lua's header). No I/O, no state beyond the distinct cap the generic script is told.
 */
final class VelocityCodec {

    /** Sums are kept as integers of 1/10,000. */
    static final double SUM_SCALE = 10_000;

    private final int distinctCap;

    VelocityCodec(int distinctCap) {
        this.distinctCap = distinctCap;
    }

    /**
     * {@code EVALSHA sha numkeys marker (hash distinct-set...)... now mode} and the values
     * ({@code EVAL} with the script's text when {@code eval}: after NOSCRIPT).
     */
    Request encode(VelocityRequest request, VelocityPlan.Call call, long now, boolean eval) {
        boolean generated = call.script != null;
        LuaScript script = generated ? call.script : VelocityScripts.GENERIC;
        Request r = Request.cmd(eval ? Command.EVAL : Command.EVALSHA)
                .arg(eval ? script.text() : script.sha())
                .arg(call.keys);
        List<VelocityCheck> checks = request.checks();
        List<VelocityPlan.Group> groups = call.groups;
        String[] tags = new String[groups.size()];
        for (int g = 0; g < tags.length; g++) {
            tags[g] = groups.get(g).tag(request);
        }
        r.arg(VelocityKeys.markerKey(tags[0], groups.get(0).rulesetKey, request.transactionId()));
        for (int g = 0; g < tags.length; g++) {
            VelocityPlan.Group group = groups.get(g);
            r.arg(VelocityKeys.velocityKey(tags[g], group.rulesetKey));
            for (VelocityPlan.Check c : group.checks) {
                if (c.distinctKeySuffix != null) {
                    r.arg("veld:{" + tags[g] + c.distinctKeySuffix);
                }
            }
        }
        r.arg(now).arg(request.readOnly() ? "r" : "w");
        if (generated) {
            for (VelocityPlan.Group group : groups) {
                for (VelocityPlan.Check c : group.checks) {
                    VelocityCheck check = checks.get(c.index);
                    switch (c.aggregate) {
                        case COUNT -> {
                        }
                        case SUM -> r.arg(scaled(check.sumValue()));
                        case DISTINCT -> r.arg(check.distinctValue() == null ? "" : VelocityKeys.safeValue(check.distinctValue()));
                    }
                }
            }
            return r;
        }
        r.arg(call.markerTtl).arg(distinctCap);
        for (VelocityPlan.Group group : groups) {
            r.arg(group.checks.size()).arg(group.span);
            for (VelocityPlan.Check c : group.checks) {
                VelocityCheck check = checks.get(c.index);
                r.arg(c.id).arg(c.bucketMillis * 1024 + c.buckets);
                switch (c.aggregate) {
                    case COUNT -> r.arg("c");
                    case SUM -> r.arg("s" + scaled(check.sumValue()));
                    case DISTINCT -> r.arg(check.distinctValue() == null ? "d" : "d" + VelocityKeys.safeValue(check.distinctValue()));
                }
            }
        }
        return r;
    }

    /** Sums travel and are kept as integers of 1/10,000 (exact running totals; docs/velocity.md). */
    static long scaled(double amount) {
        // a non-finite amount would poison the running total for the whole window
        return Double.isFinite(amount) ? Math.round(amount * SUM_SCALE) : 0;
    }

    /**
     * Copies one call's answers into {@code values} (at each check's request position).
     *
     * @throws VelocityReplyException when the reply is not one number per check
     */
    static void decode(VelocityPlan.Call call, Response reply, double[] values) {
        if (reply == null || reply.type() != ResponseType.MULTI || reply.size() != call.size) {
            throw new VelocityReplyException("velocity script answered "
                    + (reply == null ? "nil" : reply.size() + " values") + " for " + call.size + " checks", null);
        }
        try {
            int j = 0;
            for (VelocityPlan.Group group : call.groups) {
                for (VelocityPlan.Check c : group.checks) {
                    long v = reply.get(j++).toLong();
                    values[c.index] = c.aggregate == Aggregate.SUM ? v / SUM_SCALE : v;
                }
            }
        } catch (RuntimeException e) {
            throw new VelocityReplyException("velocity script answered a non-number: " + reply, e);
        }
    }
}
