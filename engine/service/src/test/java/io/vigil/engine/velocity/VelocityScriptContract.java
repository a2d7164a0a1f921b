package io.vigil.engine.velocity;

import io.vertx.core.Vertx;
import io.vertx.redis.client.Redis;
import io.vigil.rules.velocity.Aggregate;
import io.vigil.rules.velocity.VelocityCheck;
import io.vigil.rules.velocity.VelocityRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * What the velocity script must do, against a real Redis: run by {@link StandaloneVelocityScriptTest}
 * and {@link ClusterVelocityScriptTest} (scripts generated per call plan) and by {@link
 * GenericVelocityScriptTest} (the generic script). Time is the test's: every call passes its own "now".
 */
abstract class VelocityScriptContract {

    static final String RS = "CARD_AUTH";
    /** An instant aligned on every bucket used here (6 s, 30 s, 6 min: all divide one hour). */
    static final long T0 = 1_800_000_000_000L - (1_800_000_000_000L % 3_600_000);

    /** Each test class its own Vert.x and client (opened by its first test, closed after its last). */
    static Vertx vertx;
    static Redis shared;

    VelocityScriptClient client;
    private int txn;

    /** The Redis under test: how to reach it, and how to talk to the node owning a key. */
    interface Target {
        /** A new client (own pool, own connections) on the Redis under test. */
        Redis open(Vertx vertx);

        boolean cluster();

        /** Empties the keyspace. */
        void flush();

        /** A command on the node owning {@code key}. */
        Object command(String key, String... args);

        /** Makes every node forget the script. */
        void scriptFlush();
    }

    abstract Target target();

    boolean cluster() {
        return target().cluster();
    }

    void flush() {
        target().flush();
    }

    Object command(String key, String... args) {
        return target().command(key, args);
    }

    @BeforeEach
    void setUp() {
        if (vertx == null) {
            vertx = Vertx.vertx();
            shared = target().open(vertx);
        }
        flush();
        client = newClient(shared, VelocityScriptClient.DEFAULT_DISTINCT_CAP);
    }

    /**
     * The client under test on {@code redis}: scripts generated per call plan; {@link
     * GenericVelocityScriptTest} runs the same contract on the generic script (plans beyond the cache).
     */
    VelocityScriptClient newClient(Redis redis, int distinctCap) {
        return new VelocityScriptClient(vertx, redis, cluster(), 10, distinctCap);
    }

    @AfterEach
    void closeClient() {
        client.close();
    }

    @AfterAll
    static void closeVertx() {
        if (shared != null) {
            shared.close();
            shared = null;
        }
        if (vertx != null) {
            vertx.close().toCompletionStage().toCompletableFuture().join();
            vertx = null;
        }
    }

    static VelocityCheck count(String ruleId, String card, int windowSeconds) {
        return new VelocityCheck(RS, ruleId, "card_hash", card, windowSeconds, Aggregate.COUNT, 0, null, 10);
    }

    static VelocityCheck sum(String ruleId, String card, int windowSeconds, double amount) {
        return new VelocityCheck(RS, ruleId, "card_hash", card, windowSeconds, Aggregate.SUM, amount, null, 1000);
    }

    static VelocityCheck distinct(String ruleId, String card, int windowSeconds, String member) {
        return new VelocityCheck(RS, ruleId, "card_hash", card, windowSeconds, Aggregate.DISTINCT, 0, member, 3);
    }

    double[] run(long now, VelocityCheck... checks) {
        return run("txn-" + (++txn), now, false, checks);
    }

    double[] run(String transactionId, long now, boolean readOnly, VelocityCheck... checks) {
        return join(call(client, new VelocityRequest(transactionId, List.of(checks), readOnly), now));
    }

    /** How a test's call reaches a client: from the test's thread ({@link LaneVelocityScriptTest}: on event loops). */
    java.util.concurrent.CompletionStage<double[]> call(VelocityScriptClient which, VelocityRequest request, long now) {
        return which.run(request, now);
    }

    static double[] join(java.util.concurrent.CompletionStage<double[]> stage) {
        try {
            return stage.toCompletableFuture().get(20, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("velocity call failed", e);
        }
    }

    double one(long now, VelocityCheck check) {
        return run(now, check)[0];
    }

    /**
     * Warm-up calls (docs/adr/0020-warm-up-depth.md) run the real scripts with their writes, on keys no
     * real transaction reads: the real counters, distinct sets and markers do not move, and once the
     * warm-up's keys are unlinked none of them is left.
     */
    @Test
    void warmUpWritesTouchNoRealKeyAndAreDeleted() throws Exception {
        WarmUpKeys warmUp = new WarmUpKeys();
        VelocityCheck c = count("card-1m", "card-W", 60);
        VelocityCheck d = distinct("merchants-1h", "card-W", 3600, "m-warm");
        VelocityRequest first = new VelocityRequest("vigil-warm-up-1", List.of(c, d), false);
        VelocityRequest second = new VelocityRequest("vigil-warm-up-2", List.of(c, d), false);
        assertThat(join(client.run(first, T0, warmUp))).containsExactly(1, 1);
        assertThat(join(client.run(second, T0 + 1, warmUp))).as("the warm-up wrote: its second call counts 2")
                .containsExactly(2, 1);

        String tag = VelocityKeys.tag("card_hash", "card-W");
        List<String> real = List.of(VelocityKeys.velocityKey(tag, RS),
                VelocityKeys.distinctKey(tag, RS, VelocityKeys.wireId(d)),
                VelocityKeys.markerKey(tag, RS, "vigil-warm-up-1"), VelocityKeys.markerKey(tag, RS, "vigil-warm-up-2"));
        for (String key : real) {
            assertThat((Long) command(key, "EXISTS", key)).as("real key %s", key).isZero();
            assertThat((Long) command(key, "EXISTS", WarmUpKeys.PREFIX + key)).as("its warm-up key").isEqualTo(1);
        }
        assertThat(warmUp.size()).isEqualTo(real.size());
        assertThat(one(T0 + 2, c)).as("the real counter starts from zero").isEqualTo(1);

        assertThat(warmUp.unlink(shared, cluster()).toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS))
                .isEqualTo(real.size());
        for (String key : real) {
            assertThat((Long) command(key, "EXISTS", WarmUpKeys.PREFIX + key)).as("warm-up key of %s deleted", key).isZero();
        }
        assertThat((Long) command(real.get(0), "EXISTS", real.get(0))).as("the real counter kept").isEqualTo(1);
        assertThat(warmUp.size()).isZero();
    }

    @Test
    void countsSlideOverBucketEdgesAndExpire() {
        VelocityCheck c = count("card-1m", "card-A", 60); // 6 s buckets
        assertThat(one(T0, c)).isEqualTo(1);
        assertThat(one(T0 + 5_999, c)).isEqualTo(2);        // same bucket
        assertThat(one(T0 + 6_000, c)).isEqualTo(3);        // next bucket
        assertThat(one(T0 + 59_999, c)).isEqualTo(4);       // everything still inside the window
        // T0's bucket counts while its start > now - window - bucket, i.e. until T0 + 66 s
        assertThat(run("peek-1", T0 + 65_999, true, c)[0]).as("read-only: 4 counted + this one").isEqualTo(5);
        assertThat(run("peek-2", T0 + 66_000, true, c)[0]).as("T0 bucket (2 events) gone").isEqualTo(3);
        assertThat(run("peek-3", T0 + 72_000, true, c)[0]).as("T0+6s bucket gone").isEqualTo(2);
        assertThat(run("peek-4", T0 + 54_000 + 66_000, true, c)[0]).as("all gone").isEqualTo(1);

        // a write after a whole idle window starts afresh; the hash holds the check's state and ring
        // slots only (bounded whatever happened before), with a TTL just past the window
        assertThat(one(T0 + 120_000, c)).isEqualTo(1);
        String key = velocityKey("card-A");
        String id = VelocityKeys.wireId(c);
        assertThat(fields(key).keySet()).containsExactlyInAnyOrder(id, "|exp");
        assertThat(ring(key, id).get(1)).as("running total").isEqualTo(1L);
        long pttl = (Long) command(key, "PTTL", key);
        assertThat(pttl).isPositive().isLessThanOrEqualTo(66_000 + 6_600);
    }

    static String velocityKey(String card) {
        return VelocityKeys.velocityKey(VelocityKeys.tag("card_hash", card), RS);
    }

    /**
     * A count/sum check's packed ring (velocity-functions.lua), unpacked by Redis: head, running total,
     * then the n + 1 slots (n = 10 here).
     */
    List<Object> ring(String key, String id) {
        List<?> all = (List<?>) command(key, "EVAL", "return {struct.unpack('>' .. string.rep('d', 13), redis.call('HGET', KEYS[1], ARGV[1]))}",
                "1", key, id);
        return new ArrayList<>(all.subList(0, 13)); // struct.unpack also returns the next position
    }

    /** A marker's entries, unpacked by Redis: the format byte (1), then per check its id and answer. */
    List<Object> marker(String key, int checks) {
        List<?> all = (List<?>) command(key, "EVAL", "return {struct.unpack(ARGV[1], redis.call('GET', KEYS[1]))}",
                "1", key, ">B" + "c8d".repeat(checks));
        return new ArrayList<>(all.subList(0, 1 + 2 * checks));
    }

    /** The fields of a velocity hash. */
    Map<String, String> fields(String key) {
        List<?> flat = (List<?>) command(key, "HGETALL", key);
        Map<String, String> map = new TreeMap<>();
        for (int i = 0; i < flat.size(); i += 2) {
            map.put(String.valueOf(flat.get(i)), String.valueOf(flat.get(i + 1)));
        }
        return map;
    }

    @Test
    void errorBoundIsOneBucket() {
        // an event is always counted for a full window and never after window + one bucket
        VelocityCheck c = count("card-5m", "card-E", 300); // 30 s buckets
        for (long offset : new long[]{0, 1, 12_345, 29_999}) {
            flush();
            long t = T0 + offset;
            run(t, c);
            assertThat(run("p", t + 299_999, true, c)[0]).as("inside window, offset %d", offset).isEqualTo(2);
            assertThat(run("p", t + 330_000, true, c)[0]).as("past window + bucket, offset %d", offset).isEqualTo(1);
        }
    }

    @Test
    void sumsAmountsOverTheWindow() {
        assertThat(one(T0, sum("amt-1h", "card-S", 3600, 10.5))).isEqualTo(10.5);
        assertThat(one(T0 + 1_000, sum("amt-1h", "card-S", 3600, 20.25))).isEqualTo(30.75);
        assertThat(one(T0 + 2_000, sum("amt-1h", "card-S", 3600, 0.1))).isCloseTo(30.85, within(1e-9));
        assertThat(one(T0 + 400_000, sum("amt-1h", "card-S", 3600, 0.2))).isCloseTo(31.05, within(1e-9));
        // 1 h window, 6 min buckets: the first three expire after 66 min
        assertThat(run("p", T0 + 3_960_000, true, sum("amt-1h", "card-S", 3600, 1))[0]).isCloseTo(1.2, within(1e-9));
    }

    @Test
    void countsDistinctValuesExactlyOverTheWindow() {
        String[] merchants = {"m1", "m2", "m1", "m3", "m2", "m4"};
        double[] expected = {1, 2, 2, 3, 3, 4};
        for (int i = 0; i < merchants.length; i++) {
            // one event per 10 s: spread over several 6 s buckets of a 60 s window
            assertThat(one(T0 + i * 10_000L, distinct("merchants-1m", "card-D", 60, merchants[i]))).isEqualTo(expected[i]);
        }
        // read-only asks "with this member": m1 already there, m9 not; nothing is stored
        assertThat(run("p1", T0 + 55_000, true, distinct("merchants-1m", "card-D", 60, "m1"))[0]).isEqualTo(4);
        assertThat(run("p2", T0 + 55_000, true, distinct("merchants-1m", "card-D", 60, "m9"))[0]).isEqualTo(5);
        assertThat(run("p3", T0 + 55_000, true, distinct("merchants-1m", "card-D", 60, "m9"))[0]).isEqualTo(5);
        // a member counts while last seen inside the window: m1 (last 20 s), m3 (30 s), m2 (40 s), m4 (50 s)
        assertThat(run("p4", T0 + 76_000, true, distinct("merchants-1m", "card-D", 60, "m0"))[0])
                .as("m1 (t=20s), m3, m2 (t=40s), m4 + m0").isEqualTo(5);
        assertThat(run("p5", T0 + 80_000, true, distinct("merchants-1m", "card-D", 60, "m0"))[0])
                .as("m1 last seen at 20 s left at 80 s").isEqualTo(4);
        assertThat(run("p6", T0 + 200_000, true, distinct("merchants-1m", "card-D", 60, "m0"))[0]).isEqualTo(1);
        // exact, not approximate: 500 different merchants are 500, repeats included
        double last = 0;
        for (int i = 0; i < 1000; i++) {
            last = one(T0 + 300_000 + i, distinct("merchants-1m", "card-D", 60, "merchant-" + (i % 500)));
        }
        assertThat(last).isEqualTo(500);
        // a transaction without the member's field asks without adding
        assertThat(one(T0 + 301_000, distinct("merchants-1m", "card-D", 60, null))).isEqualTo(500);
    }

    @Test
    void distinctMembersBeyondTheCapEvictTheOldestAndTheCountSaturates() {
        client.close();
        client = newClient(shared, 3);
        String id = VelocityKeys.wireId(distinct("merchants-1m", "card-P", 60, "a"));
        String set = VelocityKeys.distinctKey(VelocityKeys.tag("card_hash", "card-P"), RS, id);
        assertThat(one(T0, distinct("merchants-1m", "card-P", 60, "a"))).isEqualTo(1);
        assertThat(one(T0 + 10_000, distinct("merchants-1m", "card-P", 60, "b"))).isEqualTo(2);
        assertThat(one(T0 + 20_000, distinct("merchants-1m", "card-P", 60, "c"))).isEqualTo(3);
        // a fourth member: the cap is reached, the oldest (a) is evicted, the answer stays at the cap
        assertThat(one(T0 + 30_000, distinct("merchants-1m", "card-P", 60, "d"))).isEqualTo(3);
        assertThat(members(set)).containsExactlyInAnyOrder("b", "c", "d");
        // a comes back: new again, b (now the oldest) goes
        assertThat(one(T0 + 40_000, distinct("merchants-1m", "card-P", 60, "a"))).isEqualTo(3);
        assertThat(members(set)).containsExactlyInAnyOrder("c", "d", "a");
        // a member already kept does not evict anything
        assertThat(one(T0 + 41_000, distinct("merchants-1m", "card-P", 60, "d"))).isEqualTo(3);
        assertThat(members(set)).hasSize(3);
        // below the cap the count is exact again: at 85 s, c (20 s) left the window; d (41 s), a (40 s) remain
        assertThat(run("p", T0 + 85_000, true, distinct("merchants-1m", "card-P", 60, "d"))[0]).isEqualTo(2);
        // a threshold above the cap can never be reached: the answer never exceeds it
        for (int i = 0; i < 10; i++) {
            assertThat(one(T0 + 90_000 + i, distinct("merchants-1m", "card-P", 60, "x" + i))).isLessThanOrEqualTo(3);
        }
        assertThat(members(set)).hasSize(3);
    }

    List<String> members(String set) {
        List<String> out = new ArrayList<>();
        for (Object m : (List<?>) command(set, "ZRANGE", set, "0", "-1")) {
            out.add(String.valueOf(m));
        }
        return out;
    }

    @Test
    void memoryPerCheckIsBoundedWhateverTheHistory() {
        client.close();
        client = newClient(shared, 50);
        VelocityCheck minute = count("count-1m", "card-Z", 60);          // 6 s buckets, ring of 11
        VelocityCheck amount = sum("amount-1h", "card-Z", 3600, 2.5);     // 6 min buckets
        String key = velocityKey("card-Z");
        String set = VelocityKeys.distinctKey(VelocityKeys.tag("card_hash", "card-Z"), RS,
                VelocityKeys.wireId(distinct("merchants-1m", "card-Z", 60, "m")));
        // two hours of a hot card: 7,200 transactions, a new merchant every time
        for (int i = 0; i < 7_200; i++) {
            run(T0 + i * 1_000L, minute, amount, distinct("merchants-1m", "card-Z", 60, "m" + i));
        }
        // one field per check (a count/sum check's ring is 8 * 13 bytes), |exp
        assertThat(fields(key)).hasSizeLessThanOrEqualTo(3 + 1);
        assertThat((Long) command(key, "HSTRLEN", key, VelocityKeys.wireId(minute))).isEqualTo(8 * 13);
        // members: the cap, at most
        assertThat(members(set)).hasSizeLessThanOrEqualTo(50);
        // and the answers are still the window's: 60 s of one per second (+ up to a bucket), 1 h of 2.5
        assertThat(run("p", T0 + 7_200_000, true, minute)[0]).isBetween(61.0, 67.0);
        assertThat(run("p", T0 + 7_200_000, true, sum("amount-1h", "card-Z", 3600, 0))[0]).isBetween(9_000.0, 9_900.0);
    }

    @Test
    void runningTotalsMatchAModelOfTheBucketsUnderRandomGaps() {
        // the ring keeps a running total and subtracts the buckets that leave: compare it, call by
        // call, with the definition (every event whose bucket starts after now - window - bucket)
        VelocityCheck c = count("model-1m", "card-Q", 60); // 6 s buckets
        java.util.SplittableRandom random = new java.util.SplittableRandom(42);
        List<Long> events = new ArrayList<>();
        long now = T0;
        for (int i = 0; i < 400; i++) {
            // mostly inside a bucket, sometimes a few buckets, sometimes more than a window
            int kind = random.nextInt(10);
            now += kind < 6 ? random.nextInt(3_000) : kind < 9 ? random.nextInt(40_000) : 70_000 + random.nextInt(60_000);
            long t = now;
            boolean read = random.nextInt(4) == 0;
            double got = read ? run("peek-" + i, t, true, c)[0] : one(t, c);
            long oldestStart = t - 60_000 - 6_000;
            long expected = events.stream().filter(e -> e - e % 6_000 > oldestStart).count() + 1;
            assertThat(got).as("call %d at +%d ms (%s)", i, t - T0, read ? "read-only" : "write").isEqualTo(expected);
            if (!read) {
                events.add(t);
            }
        }
    }

    @Test
    void aShortWindowNeverShortensTheTtlALongerOneNeeds() {
        String key = velocityKey("card-T");
        run(T0, count("count-1h", "card-T", 3600));
        long hourTtl = (Long) command(key, "PTTL", key);
        // window + bucket, plus a tenth of that as slack so a busy hash moves its TTL about once per bucket
        assertThat(hourTtl).isGreaterThan(3_600_000).isLessThanOrEqualTo(3_960_000 + 396_000);
        run(T0 + 1_000, count("count-1m", "card-T", 60));
        assertThat((Long) command(key, "PTTL", key)).isGreaterThan(3_600_000);
        // and a busy key does not pay a PEXPIRE per call: its deadline moves once per bucket
        String exp = fields(key).get("|exp");
        run(T0 + 2_000, count("count-1h", "card-T", 3600));
        assertThat(fields(key).get("|exp")).isEqualTo(exp);
        run(T0 + 400_000, count("count-1h", "card-T", 3600));
        assertThat(Long.parseLong(fields(key).get("|exp"))).isGreaterThan(Long.parseLong(exp));
    }

    @Test
    void rulesOnTheSameDimensionWithDifferentWindowsAreIndependent() {
        VelocityCheck fiveMin = count("card-5m", "card-I", 300);
        VelocityCheck oneHour = count("card-1h", "card-I", 3600);
        VelocityCheck otherRuleSameWindow = count("card-5m-cnp", "card-I", 300);
        for (int i = 0; i < 3; i++) {
            double[] v = run(T0 + i * 1000L, fiveMin, oneHour);
            assertThat(v).containsExactly(i + 1, i + 1);
        }
        // a third rule on the same card and window has its own counter
        assertThat(one(T0 + 4_000, otherRuleSameWindow)).isEqualTo(1);
        // 10 minutes later: the 5 min window forgot, the 1 h window did not
        assertThat(run(T0 + 600_000, fiveMin, oneHour, otherRuleSameWindow)).containsExactly(1, 4, 1);
        // another ruleset's rule with the same id does not share either
        VelocityCheck monitoring = new VelocityCheck("CARD_MONITORING", "card-5m", "card_hash", "card-I", 300,
                Aggregate.COUNT, 0, null, 10);
        assertThat(one(T0 + 600_001, monitoring)).isEqualTo(1);
        // nor does another card
        assertThat(one(T0 + 600_002, count("card-5m", "card-J", 300))).isEqualTo(1);
    }

    @Test
    void aRetriedTransactionCountsOnceAndGetsTheSameAnswer() {
        VelocityCheck c = count("card-5m", "card-R", 300);
        VelocityCheck s = sum("amt-5m", "card-R", 300, 99.99);
        VelocityCheck d = distinct("merch-5m", "card-R", 300, "m-1");
        double[] first = run("txn-retry", T0, false, c, s, d);
        assertThat(first).containsExactly(1, 99.99, 1);
        run("txn-other", T0 + 1, false, c, s, distinct("merch-5m", "card-R", 300, "m-2"));
        // the retry comes after another transaction: still its own original answer
        assertThat(run("txn-retry", T0 + 2, false, c, s, d)).containsExactly(first);
        assertThat(run("txn-retry", T0 + 3, false, c, s, d)).containsExactly(first);
        // and nothing was counted twice
        double[] next = run("txn-next", T0 + 4, false, c, s, distinct("merch-5m", "card-R", 300, "m-3"));
        assertThat(next[0]).isEqualTo(3);
        assertThat(next[1]).isCloseTo(299.97, within(1e-9));
        assertThat(next[2]).isEqualTo(3);
        // read-only evaluation of a counted transaction answers what it got
        assertThat(run("txn-retry", T0 + 5, true, c, s, d)).containsExactly(first);
    }

    @Test
    void aRetryAskingNewChecksCountsOnlyThoseAndKeepsTheOthers() {
        VelocityCheck c = count("card-5m", "card-Q", 300);
        VelocityCheck d = distinct("merch-5m", "card-Q", 300, "m-1");
        assertThat(run("txn-q", T0, false, c, d)).containsExactly(1, 1);
        run("txn-q2", T0 + 1, false, c, distinct("merch-5m", "card-Q", 300, "m-2"));
        // the ruleset changed before the retry: it also asks a sum and a count its marker lacks
        VelocityCheck s = sum("amt-5m", "card-Q", 300, 5);
        VelocityCheck h = count("card-1h", "card-Q", 3600);
        assertThat(run("txn-q", T0 + 2, false, c, d, s, h)).containsExactly(1, 1, 5, 1);
        assertThat(run("txn-q", T0 + 3, false, c, d, s, h)).containsExactly(1, 1, 5, 1);
        // the answered checks kept their state; the new ones counted once
        assertThat(run("txn-q3", T0 + 4, false, c, distinct("merch-5m", "card-Q", 300, "m-3"), s, h))
                .containsExactly(3, 3, 10, 2);
        // the same with the velocity hash gone (expired) under the marker: the answered checks' fields
        // stay absent, the new check counts from its first transaction
        String key = velocityKey("card-Q");
        command(key, "DEL", key);
        VelocityCheck m = count("card-10m", "card-Q", 600);
        assertThat(run("txn-q3", T0 + 5, false, c, distinct("merch-5m", "card-Q", 300, "m-3"), s, h, m))
                .containsExactly(3, 3, 10, 2, 1);
        assertThat(run("txn-q4", T0 + 6, false, c, s, m)).containsExactly(1, 5, 2);
    }

    @Test
    void theLargestCallsAreAnsweredWhicheverScriptRunsThem() {
        // 40 checks: the most a generated script takes (Lua's 250 registers); 41: the generic script
        for (int size : new int[]{VelocityScripts.MAX_GENERATED_CHECKS, VelocityScripts.MAX_GENERATED_CHECKS + 1}) {
            VelocityCheck[] checks = new VelocityCheck[size];
            for (int i = 0; i < size; i++) {
                checks[i] = i % 3 == 2 ? sum("amt-" + i, "card-L" + size, 300, 2)
                        : count("card-" + i, "card-L" + size, 300);
            }
            for (int t = 1; t <= 2; t++) {
                double[] answers = run(T0 + t, checks);
                for (int i = 0; i < size; i++) {
                    assertThat(answers[i]).as("check %d of %d", i, size).isEqualTo(i % 3 == 2 ? 2.0 * t : t);
                }
            }
        }
    }

    @Test
    void concurrentRetriesOfOneTransactionCountOnce() {
        VelocityCheck c = count("card-5m", "card-C", 300);
        VelocityCheck s = sum("amt-5m", "card-C", 300, 12.5);
        run("warm", T0, false, c, s);
        List<CompletableFuture<double[]>> calls = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            calls.add(call(client, new VelocityRequest("txn-dup", List.of(c, s), false), T0 + 10 + i).toCompletableFuture());
        }
        for (CompletableFuture<double[]> call : calls) {
            assertThat(join(call)).containsExactly(2, 25);
        }
        assertThat(run("after", T0 + 100, false, c, s)).containsExactly(3, 37.5);
    }

    @Test
    void concurrentTransactionsOnOneCardGiveExactCounts() throws Exception {
        VelocityCheck c = count("card-5m", "card-X", 300);
        int clients = 6;
        int perClient = 60;
        List<Redis> connections = new ArrayList<>();
        List<VelocityScriptClient> others = new ArrayList<>();
        List<CompletableFuture<double[]>> calls = new ArrayList<>();
        try {
            for (int k = 0; k < clients; k++) {
                Redis own = target().open(vertx);
                connections.add(own);
                VelocityScriptClient other = newClient(own, VelocityScriptClient.DEFAULT_DISTINCT_CAP);
                others.add(other);
                for (int i = 0; i < perClient; i++) {
                    calls.add(call(other, new VelocityRequest("txn-" + k + "-" + i, List.of(c), false), T0 + i).toCompletableFuture());
                }
            }
            Set<Double> seen = new HashSet<>();
            for (CompletableFuture<double[]> call : calls) {
                seen.add(join(call)[0]);
            }
            // atomic read-add-answer: every transaction saw a different count, 1..N
            assertThat(seen).hasSize(clients * perClient);
            assertThat(seen).contains(1.0, (double) clients * perClient);
            assertThat(run("peek", T0 + 1_000, true, c)[0]).isEqualTo(clients * perClient + 1);
        } finally {
            others.forEach(VelocityScriptClient::close);
            for (Redis r : connections) {
                r.close();
            }
        }
    }

    @Test
    void generatedAndGenericScriptsShareOneLayout() {
        // a shape beyond the plan cache runs the generic script on the same fields, sets and markers
        VelocityScriptClient generic = VelocityScriptClient.generic(vertx, shared, cluster(), 10,
                VelocityScriptClient.DEFAULT_DISTINCT_CAP);
        try {
            VelocityCheck c = count("card-5m", "card-G", 300);
            VelocityCheck s = sum("amt-5m", "card-G", 300, 10);
            for (int i = 0; i < 6; i++) {
                VelocityScriptClient which = i % 2 == 0 ? client : generic;
                VelocityRequest r = new VelocityRequest("txn-g" + i, List.of(c, s,
                        distinct("merch-5m", "card-G", 300, "m-" + (i % 3))), false);
                assertThat(join(call(which, r, T0 + i * 40_000L))).containsExactly(i + 1, 10.0 * (i + 1), Math.min(i + 1, 3));
            }
            // a retry answered by the other script: its original answers, nothing counted again
            VelocityRequest retry = new VelocityRequest("txn-g1", List.of(c, s, distinct("merch-5m", "card-G", 300, "m-1")), false);
            assertThat(join(call(client, retry, T0 + 250_000))).containsExactly(2, 20, 2);
            assertThat(join(call(generic, new VelocityRequest("txn-g0", List.of(c), false), T0 + 250_001))).containsExactly(1);
            assertThat(run("peek", T0 + 250_002, true, c)[0]).isEqualTo(7);
        } finally {
            generic.close();
        }
    }

    @Test
    void readOnlyChangesNothing() {
        VelocityCheck c = count("card-5m", "card-O", 300);
        VelocityCheck d = distinct("merch-5m", "card-O", 300, "m-1");
        run("real", T0, false, c, d);
        String key = velocityKey("card-O");
        Map<String, String> before = fields(key);
        long ttl = (Long) command(key, "PTTL", key);
        for (int i = 0; i < 5; i++) {
            assertThat(run("sim-" + i, T0 + 1, true, c, distinct("merch-5m", "card-O", 300, "m-" + (i + 2))))
                    .containsExactly(2, 2);
        }
        assertThat(fields(key)).isEqualTo(before);
        assertThat((Long) command(key, "PTTL", key)).isLessThanOrEqualTo(ttl);
        String marker = VelocityKeys.markerKey(VelocityKeys.tag("card_hash", "card-O"), RS, "sim-0");
        assertThat(command(marker, "EXISTS", marker)).isEqualTo(0L);
        assertThat(run("real-2", T0 + 2, false, c, distinct("merch-5m", "card-O", 300, "m-1"))).containsExactly(2, 1);
    }

    @Test
    void keysCarryRulesetRuleWindowAndAggregateUnderTheCardsHashTag() {
        VelocityCheck c = count("card-5m", "card-K", 300);
        run("txn-k", T0, false, c);
        String key = "vel:{card_hash:card-K}:CARD_AUTH";
        assertThat(command(key, "TYPE", key)).isEqualTo("hash");
        // the check's ring (newest bucket, running total, slots: this bucket's holds 1) under the check's
        // short id: 8 characters of the SHA-256 of "card-5m:300s:count"
        long bucket = T0 / 30_000;
        String id = VelocityKeys.wireId(c);
        assertThat(id).hasSize(8).isEqualTo(VelocityKeys.digest("card-5m:300s:count"));
        List<Object> ring = ring(key, id);
        assertThat(ring.subList(0, 2)).containsExactly(bucket, 1L);
        assertThat(ring.get(2 + (int) (bucket % 11))).isEqualTo(1L);
        assertThat(ring.stream().skip(2).mapToLong(v -> (Long) v).sum()).isEqualTo(1L);
        String marker = "veltx:{card_hash:card-K}:CARD_AUTH:txn-k";
        assertThat(command(marker, "TYPE", marker)).isEqualTo("string");
        assertThat(marker(marker, 1)).containsExactly(1L, id, 1L);
        long markerTtl = (Long) command(marker, "PTTL", marker);
        assertThat(markerTtl).isPositive().isLessThanOrEqualTo(330_000);
        // a value that would break the hash tag is replaced by its digest, still one key per value
        run("txn-brace", T0, false, count("card-5m", "a}b{c", 300));
        run("txn-brace2", T0, false, count("card-5m", "a}b{d", 300));
        assertThat(run("p", T0, true, count("card-5m", "a}b{c", 300))[0]).isEqualTo(2);
    }

    @Test
    void reloadsTheScriptWhenRedisForgotIt() {
        VelocityCheck c = count("card-5m", "card-N", 300);
        run(T0, c);
        target().scriptFlush();
        assertThat(one(T0 + 1, c)).isEqualTo(2);
    }

    @Test
    void checksOnDifferentDimensionValuesAreAnsweredTogether() {
        VelocityCheck card = count("card-5m", "card-M", 300);
        VelocityCheck device = new VelocityCheck(RS, "device-5m", "device_id", "dev-9", 300, Aggregate.COUNT, 0, null, 5);
        VelocityCheck email = new VelocityCheck(RS, "email-5m", "email", "x@example.com", 300, Aggregate.DISTINCT, 0, "card-M", 5);
        assertThat(run("t1", T0, false, card, device, email)).containsExactly(1, 1, 1);
        assertThat(run("t2", T0 + 1, false, device, card, email)).containsExactly(2, 2, 1);
        assertThat(run("t1", T0 + 2, false, card, device, email)).as("retry").containsExactly(1, 1, 1);
    }

    /**
     * A blocking handler (simulate, replay) runs on a worker thread whose current context is the event
     * loop's. Its calls must be written and answered like any other: they used to join the event
     * loop's batch from the wrong thread and could be lost, never answered.
     */
    @Test
    void callsFromAWorkerThreadOfAnEventLoopContextAreAllAnswered() throws Exception {
        int calls = 200;
        List<CompletableFuture<double[]>> answers = new ArrayList<>();
        CompletableFuture<Void> sent = new CompletableFuture<>();
        vertx.runOnContext(v -> vertx.executeBlocking(() -> {
            for (int i = 0; i < calls; i++) {
                answers.add(client.run(new VelocityRequest("worker-" + i,
                        List.of(count("worker-count", "worker-card-" + (i % 7), 300)), true), T0).toCompletableFuture());
            }
            return null;
        }, false).onComplete(ar -> sent.complete(null)));
        sent.get(30, TimeUnit.SECONDS);
        for (CompletableFuture<double[]> answer : answers) {
            assertThat(answer.get(30, TimeUnit.SECONDS)).containsExactly(1.0);
        }
    }
}
