package io.vigil.engine.velocity;

import io.vigil.rules.velocity.Aggregate;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The Lua of velocity calls (docs/adr/0006-velocity-scripts-per-plan.md,
 * docs/adr/0015-velocity-script-cost.md): the functions of velocity-functions.lua followed by a main
 * part, either generated for one {@link VelocityPlan.Call} (its check ids, buckets, spans and the
 * distinct cap as constants, straight-line: only now, the mode, sums and distinct members travel as
 * arguments), or the generic velocity.lua that reads the plan from its arguments. Text only: which
 * plans get a generated script is {@link VelocityPlans}' choice.
 */
final class VelocityScripts {

    static final String FUNCTIONS = resource("velocity-functions.lua");
    static final LuaScript GENERIC = LuaScript.of(FUNCTIONS + resource("velocity.lua"));
    /**
     * Checks per call beyond which the generic script is used: a Lua function has at most 250
     * registers, and the generated one holds two locals per check (answer, state) plus the arguments of
     * its largest call (the marker's pack, or one group's HSET: two per check).
     */
    static final int MAX_GENERATED_CHECKS = 40;

    private VelocityScripts() {
    }

    /**
     * The script of one call: KEYS = marker, then per group its hash and its distinct sets; ARGV =
     * now, mode, then per check in call order: a sum's amount × 10^4, a distinct check's member
     * ("" for none); count checks send nothing. Returns the answers in the marker's format
     * ({@link VelocityCodec#decode}).
     */
    static String generate(VelocityPlan.Call call, int cap) {
        StringBuilder lua = new StringBuilder(FUNCTIONS.length() + 2048).append(FUNCTIONS);
        lua.append("\n-- generated for one call plan (VelocityScripts)\ncap, capRank = ").append(cap)
                .append(", '").append(-(cap + 1)).append("'\n");
        lua.append("local prior = redis.call('GET', KEYS[1])\nlocal answered = answersOf(prior)\n");
        // a retry answered entirely by its marker: nothing else to read
        lua.append("if answered");
        forEachCheck(call, (c, a) -> lua.append(" and answered['").append(c.id).append("']"));
        lua.append(" then return prior end\n");
        // the current bucket number of each bucket length
        java.util.Map<Long, String> cur = new java.util.LinkedHashMap<>();
        forEachCheck(call, (c, a) -> cur.computeIfAbsent(c.bucketMillis, b -> "c" + (cur.size() + 1)));
        cur.forEach((bucket, name) -> lua.append("local ").append(name).append(" = floor(now / ").append(bucket).append(")\n"));
        lua.append("local v\n");
        int key = 2;
        int arg = 3;
        int answer = 1;
        for (VelocityPlan.Group g : call.groups) {
            String hash = "KEYS[" + key + "]";
            int distinctKey = key + 1;
            lua.append("-- ").append(g.dimension).append('\n');
            lua.append("v = redis.call('HMGET', ").append(hash).append(", '|exp'");
            for (VelocityPlan.Check c : g.checks) {
                lua.append(", '").append(c.id).append('\'');
            }
            lua.append(")\n");
            // per check its answer aN and the state sN to write back: straight-line, no table per group
            int field = 2;
            int firstAnswer = answer;
            boolean rings = false;
            for (VelocityPlan.Check c : g.checks) {
                int a = answer++;
                // a retry asking checks its marker lacks (the ruleset changed since): the answered ones
                // keep their state ('' for an absent field reads as absent)
                lua.append("local a").append(a).append(", s").append(a).append(" = answered and answered['")
                        .append(c.id).append("']\nif a").append(a).append(" then s").append(a)
                        .append(" = v[").append(field).append("] or '' else a").append(a).append(", s").append(a)
                        .append(" = ");
                String bucketNumber = cur.get(c.bucketMillis);
                switch (c.aggregate) {
                    case COUNT, SUM -> {
                        String add = c.aggregate == Aggregate.COUNT ? "1" : "ARGV[" + arg++ + "] + 0";
                        lua.append(String.format(Locale.ROOT, "ring(%s, %d, %s, v[%d])", bucketNumber, c.buckets, add, field));
                        rings = true;
                    }
                    case DISTINCT -> {
                        int m = arg++;
                        lua.append(String.format(Locale.ROOT,
                                "distinct(KEYS[%d], %s, %d, %d, ARGV[%d] ~= '' and ARGV[%d] or nil, v[%d])",
                                distinctKey++, bucketNumber, c.buckets, c.bucketMillis, m, m, field));
                    }
                }
                lua.append(" end\n");
                field += 1;
            }
            // rings change on every counting call; a group of distinct checks only when one of them did
            lua.append("if write");
            if (!rings) {
                lua.append(" and (");
                for (int a = firstAnswer; a < answer; a++) {
                    lua.append(a == firstAnswer ? "" : " or ").append('s').append(a).append(" ~= v[")
                            .append(a - firstAnswer + 2).append(']');
                }
                lua.append(')');
            }
            lua.append(" then writeFields(").append(hash).append(", v[1], ").append(g.span);
            int f = 0;
            for (VelocityPlan.Check c : g.checks) {
                lua.append(", '").append(c.id).append("', s").append(firstAnswer + f++);
            }
            lua.append(") end\n");
            key = distinctKey;
        }
        // the answers in the marker's format: the reply, and a new transaction's marker (one pack)
        lua.append("local m = pack('>B").append("c8d".repeat(call.size)).append("', 1");
        forEachCheck(call, (c, a) -> lua.append(", '").append(c.id).append("', a").append(a));
        // numbers as string literals: Redis prints a Lua number argument with %.17g on every call
        lua.append(")\nif write then\n  if not answered then\n    redis.call('SET', KEYS[1], m, 'PX', '")
                .append(call.markerTtl).append("')\n  else\n    local lines = {}\n");
        forEachCheck(call, (c, a) -> lua.append("    if not answered['").append(c.id)
                .append("'] then lines[#lines + 1] = pack('>c8d', '").append(c.id).append("', a").append(a).append(") end\n"));
        lua.append("    if #lines > 0 then redis.call('SET', KEYS[1], prior .. table.concat(lines), 'PX', '")
                .append(call.markerTtl).append("') end\n  end\nend\nreturn m\n");
        return lua.toString();
    }

    private interface CheckVisitor {
        void visit(VelocityPlan.Check check, int answer);
    }

    /** The call's checks in answer order, numbered from 1. */
    private static void forEachCheck(VelocityPlan.Call call, CheckVisitor visitor) {
        int answer = 1;
        for (VelocityPlan.Group g : call.groups) {
            for (VelocityPlan.Check c : g.checks) {
                visitor.visit(c, answer++);
            }
        }
    }

    private static String resource(String name) {
        try (InputStream in = VelocityScripts.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " missing from the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
