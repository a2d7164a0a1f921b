package io.vigil.engine.velocity;

import io.vertx.core.buffer.Buffer;
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
     * ({@code EVAL} with the script's text when {@code eval}: after NOSCRIPT). With {@code warmUp}, every
     * key is its warm-up stand-in (real traffic: null).
     */
    Request encode(VelocityRequest request, VelocityPlan.Call call, long now, boolean eval, WarmUpKeys warmUp) {
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
        r.arg(key(VelocityKeys.markerKey(tags[0], groups.get(0).rulesetKey, request.transactionId()), warmUp));
        for (int g = 0; g < tags.length; g++) {
            VelocityPlan.Group group = groups.get(g);
            r.arg(key(VelocityKeys.velocityKey(tags[g], group.rulesetKey), warmUp));
            for (VelocityPlan.Check c : group.checks) {
                if (c.distinctKeySuffix != null) {
                    r.arg(key("veld:{" + tags[g] + c.distinctKeySuffix, warmUp));
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

    private static String key(String real, WarmUpKeys warmUp) {
        return warmUp == null ? real : warmUp.name(real);
    }

    /** Sums travel and are kept as integers of 1/10,000 (exact running totals; docs/velocity.md). */
    static long scaled(double amount) {
        // a non-finite amount would poison the running total for the whole window
        return Double.isFinite(amount) ? Math.round(amount * SUM_SCALE) : 0;
    }

    /** A marker entry, and so an answer in the reply: the check's id (8 bytes), its answer (a big-endian double). */
    static final int ENTRY = 16;

    /**
     * Copies one call's answers into {@code values} (at each check's request position). The reply is
     * one string in the marker's format (velocity-functions.lua): byte 1, then per check its id and
     * its answer. A new transaction's entries are in call order; a retry's reply is its marker, whose
     * entries may be in another order or include checks no longer asked, so an id not at its place is
     * looked for.
     *
     * @throws VelocityReplyException when the reply is not in that format or lacks a check
     */
    static void decode(VelocityPlan.Call call, Response reply, double[] values) {
        Buffer answers = reply == null || reply.type() != ResponseType.BULK ? null : reply.toBuffer();
        if (answers == null || answers.length() < 1 || answers.getByte(0) != 1 || (answers.length() - 1) % ENTRY != 0) {
            throw new VelocityReplyException("velocity script answered " + (reply == null ? "nil" : reply.type() + " "
                    + reply) + ", not its answers for " + call.size + " checks", null);
        }
        int entries = (answers.length() - 1) / ENTRY;
        int j = 0;
        for (VelocityPlan.Group group : call.groups) {
            for (VelocityPlan.Check c : group.checks) {
                int at = j < entries && idAt(answers, 1 + j * ENTRY, c.idBytes) ? 1 + j * ENTRY : find(answers, entries, c.idBytes);
                if (at < 0) {
                    throw new VelocityReplyException("velocity script answered no value for check " + c.id, null);
                }
                double v = answers.getDouble(at + 8);
                values[c.index] = c.aggregate == Aggregate.SUM ? v / SUM_SCALE : v;
                j++;
            }
        }
    }

    private static int find(Buffer answers, int entries, byte[] id) {
        for (int e = 0; e < entries; e++) {
            if (idAt(answers, 1 + e * ENTRY, id)) {
                return 1 + e * ENTRY;
            }
        }
        return -1;
    }

    private static boolean idAt(Buffer answers, int at, byte[] id) {
        for (int i = 0; i < id.length; i++) {
            if (answers.getByte(at + i) != id[i]) {
                return false;
            }
        }
        return true;
    }
}
