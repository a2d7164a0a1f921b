package io.vigil.engine.velocity.bench;

import io.vertx.core.Vertx;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisOptions;
import io.vigil.engine.velocity.VelocityScriptClient;
import io.vigil.rules.velocity.Aggregate;
import io.vigil.rules.velocity.VelocityCheck;
import io.vigil.rules.velocity.VelocityRequest;
import io.vigil.testing.redis.RedisServer;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Redis-side cost of the velocity script (not a test; run by environments/local/bin/bench-velocity.sh
 * with {@code cost} as first argument): {@code INFO commandstats} µs per script call and
 * {@code INFO memory} after a fixed, deterministic workload, on an own redis-server.
 *
 * <ol>
 * <li>the sample CARD_AUTH v2 velocity rules: 10 checks per transaction on 4 dimension values
 * (card x6, device x2, IP x1, e-mail x1), {@code bench.cost.transactions} transactions (default
 * 100,000) over {@code bench.cost.cards} cards (default 10,000), on a simulated clock spreading them
 * over one hour; then Redis memory;</li>
 * <li>3 checks on the card (count 5 min, sum 1 h, distinct merchants 1 h), 30,000 transactions.</li>
 * </ol>
 *
 * Uses only the script client's public API that every version of it has, so the same class measures
 * an older build of the engine's classes (put them first on the class path) in the same session.
 */
public final class VelocityCostBenchmark {

    static final int TRANSACTIONS = Integer.getInteger("bench.cost.transactions", 100_000);
    static final int CARDS = Integer.getInteger("bench.cost.cards", 10_000);
    static final int IN_FLIGHT = 32;
    /** The hot phase: cards sharing the traffic, and a distinct cap their merchants exceed. */
    static final int HOT_CARDS = Integer.getInteger("bench.cost.hot-cards", 200);
    static final int HOT_CAP = Integer.getInteger("bench.cost.hot-cap", 50);
    /** Aligned start of the simulated clock. */
    static final long T0 = 1_800_000_000_000L - (1_800_000_000_000L % 86_400_000L);

    public static void main(String[] args) throws Exception {
        String label = System.getProperty("bench.cost.label", "current");
        StringBuilder out = new StringBuilder();
        try (RedisServer redis = RedisServer.builder().arg("--maxmemory-policy", "noeviction").start()) {
            Vertx vertx = Vertx.vertx();
            Redis client = Redis.createClient(vertx, new RedisOptions().setConnectionString(redis.uri())
                    .setMaxPoolSize(8).setMaxPoolWaiting(4096).setMaxWaitingHandlers(4096));
            VelocityScriptClient velocity = client(vertx, client, 1000);

            long oneHour = 3_600_000L;
            // 10 checks (CARD_AUTH v2)
            double[] ten = phase(redis, velocity, vertx, false, TRANSACTIONS, i -> cardAuthV2(i, CARDS), oneHour);
            String memory = String.valueOf(redis.command("INFO", "memory"));
            long used = Long.parseLong(find(memory, "used_memory:(\\d+)"));
            Object keys = redis.command("DBSIZE");
            redis.flushAll();
            // 3 checks on the card
            double[] three = phase(redis, velocity, vertx, false, 30_000, i -> threeChecks(i), oneHour);
            redis.flushAll();
            // hot cards at steady state: HOT_CARDS cards share the traffic, so every window is full
            // (~40 events per card per 5 minutes) and the merchants check sits at its cap; calls
            // written one by one (from a plain thread), then batched per event-loop turn (as the engine does)
            VelocityScriptClient capped = client(vertx, client, HOT_CAP);
            phase(redis, capped, vertx, false, TRANSACTIONS / 2, i -> cardAuthV2(1_000_000 + i, HOT_CARDS), T0, oneHour);
            double[] hot = phase(redis, capped, vertx, false, TRANSACTIONS / 2, i -> cardAuthV2(2_000_000 + i, HOT_CARDS),
                    T0 + oneHour, oneHour);
            double[] hotBatched = phase(redis, capped, vertx, true, TRANSACTIONS / 2,
                    i -> cardAuthV2(3_000_000 + i, HOT_CARDS), T0 + 2 * oneHour, oneHour);
            long hotUsed = Long.parseLong(find(String.valueOf(redis.command("INFO", "memory")), "used_memory:(\\d+)"));
            long hotKeys = (Long) redis.command("DBSIZE");

            // label | 10 checks: wall µs, CPU µs, commands per call | 3 checks: same | memory, keys
            // | hot: CPU µs unbatched / batched, commands per call, memory per hot card | seconds | load
            out.append(String.format(Locale.ROOT,
                    "| %s | %.1f µs | %.1f µs | %.1f | %.1f µs | %.1f µs | %.1f | %.1f MiB | %s | %.1f / %.1f µs | %.1f | %.0f KiB | %.0f / %.0f s | %s |%n",
                    label, ten[0], ten[2], ten[3], three[0], three[2], three[3], used / 1048576.0, keys,
                    hot[2], hotBatched[2], hot[3], hotUsed / 1024.0 / HOT_CARDS,
                    ten[1], three[1], loadAverage()));
            velocity.close();
            capped.close();
            client.close();
            vertx.close().toCompletionStage().toCompletableFuture().get();
        }
        System.out.print(out);
        String file = System.getProperty("bench.cost.out");
        if (file != null) {
            Files.writeString(Path.of(file), out, java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
        }
        System.exit(0);
    }

    /**
     * The script client of whatever build is first on the class path: this one takes (vertx, redis,
     * cluster, buckets, cap); the builds before running windows took a call timeout before buckets.
     */
    static VelocityScriptClient client(Vertx vertx, Redis redis, int cap) throws Exception {
        for (var c : VelocityScriptClient.class.getConstructors()) {
            Class<?>[] p = c.getParameterTypes();
            if (p.length == 5 && p[3] == int.class) {
                return (VelocityScriptClient) c.newInstance(vertx, redis, false, 10, cap);
            }
            if (p.length == 6) {
                return (VelocityScriptClient) c.newInstance(vertx, redis, false, 30_000L, 10, cap);
            }
        }
        throw new IllegalStateException("no known VelocityScriptClient constructor");
    }

    /** Runs {@code n} transactions ({@link #IN_FLIGHT} in flight); answers [µs per script call, wall seconds]. */
    static double[] phase(RedisServer redis, VelocityScriptClient velocity, Vertx vertx, boolean batched, int n,
                          LongFunction<VelocityRequest> tx, long span) throws Exception {
        return phase(redis, velocity, vertx, batched, n, tx, T0, span);
    }

    /** Simulated time runs from {@code start} over {@code span}. */
    static double[] phase(RedisServer redis, VelocityScriptClient velocity, Vertx vertx, boolean batched, int n,
                          LongFunction<VelocityRequest> tx, long start, long span) throws Exception {
        io.vertx.core.Context loop = vertx.getOrCreateContext();
        // warm-up outside the measurement: script cache, JIT
        for (int i = 0; i < 200; i++) {
            velocity.run(tx.apply(-1 - i), start).toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
        redis.command("CONFIG", "RESETSTAT");
        double cpuBefore = mainThreadCpu(redis);
        Semaphore slots = new Semaphore(IN_FLIGHT);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long began = System.nanoTime();
        for (int i = 0; i < n; i++) {
            slots.acquire();
            if (failure.get() != null) {
                throw new IllegalStateException("velocity call failed", failure.get());
            }
            long now = start + span * i / n;
            VelocityRequest request = tx.apply(i);
            Runnable call = () -> velocity.run(request, now).whenComplete((v, e) -> {
                if (e != null) {
                    failure.compareAndSet(null, e);
                }
                slots.release();
            });
            if (batched) {
                loop.runOnContext(v -> call.run());
            } else {
                call.run();
            }
        }
        slots.acquire(IN_FLIGHT);
        if (failure.get() != null) {
            throw new IllegalStateException("velocity call failed", failure.get());
        }
        double seconds = (System.nanoTime() - began) / 1e9;
        double cpu = mainThreadCpu(redis) - cpuBefore;
        String stats = String.valueOf(redis.command("INFO", "commandstats"));
        Matcher m = Pattern.compile("cmdstat_(evalsha|eval):calls=(\\d+),usec=(\\d+)").matcher(stats);
        long calls = 0;
        long usec = 0;
        while (m.find()) {
            calls += Long.parseLong(m.group(2));
            usec += Long.parseLong(m.group(3));
        }
        if (calls < n) {
            throw new IllegalStateException("expected " + n + " script calls, Redis saw " + calls + ":\n" + stats);
        }
        // commands run by the script (Redis counts them in commandstats too)
        Matcher inner = Pattern.compile("cmdstat_([a-z|]+):calls=(\\d+)").matcher(stats);
        long commands = 0;
        while (inner.find()) {
            if (!List.of("evalsha", "eval", "config|resetstat", "info", "script|load").contains(inner.group(1))) {
                commands += Long.parseLong(inner.group(2));
            }
        }
        return new double[]{(double) usec / calls, seconds, cpu * 1e6 / calls, (double) commands / calls};
    }

    static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (java.io.IOException e) {
            return "?";
        }
    }

    /** Deterministic per transaction number, so every build sees the same traffic. */
    static VelocityRequest cardAuthV2(long i, int cards) {
        SplittableRandom r = new SplittableRandom(i * 0x9E3779B97F4A7C15L + 17);
        int c = r.nextInt(cards);
        String card = "card-" + c;
        String device = "dev-" + (c % (cards * 7 / 10 + 1));
        String ip = "ip-" + r.nextInt(Math.max(1, cards * 3 / 10));
        String email = "e-" + (c % (cards * 9 / 10 + 1)) + "@example.com";
        String merchant = "m-" + r.nextInt(cards == CARDS ? 200 : 2000);
        double amount = 1 + r.nextInt(50_000) / 100.0;
        String rs = "CARD_AUTH";
        return new VelocityRequest("tx-" + i, List.of(
                new VelocityCheck(rs, "card-5min-velocity-decline", "card_hash", card, 300, Aggregate.COUNT, 0, null, 8),
                new VelocityCheck(rs, "card-5min-velocity-review", "card_hash", card, 300, Aggregate.COUNT, 0, null, 5),
                new VelocityCheck(rs, "card-1h-velocity", "card_hash", card, 3600, Aggregate.COUNT, 0, null, 20),
                new VelocityCheck(rs, "card-24h-amount", "card_hash", card, 86400, Aggregate.SUM, amount, null, 5000),
                new VelocityCheck(rs, "card-1h-distinct-merchants", "card_hash", card, 3600, Aggregate.DISTINCT, 0, merchant, 6),
                new VelocityCheck(rs, "device-10min-velocity", "device_id", device, 600, Aggregate.COUNT, 0, null, 15),
                new VelocityCheck(rs, "device-1h-distinct-cards", "device_id", device, 3600, Aggregate.DISTINCT, 0, card, 4),
                new VelocityCheck(rs, "ip-1h-velocity", "ip_address", ip, 3600, Aggregate.COUNT, 0, null, 40),
                new VelocityCheck(rs, "email-24h-distinct-cards", "email", email, 86400, Aggregate.DISTINCT, 0, card, 5),
                new VelocityCheck(rs, "card-2min-velocity-tuning", "card_hash", card, 120, Aggregate.COUNT, 0, null, 3)),
                false);
    }

    /**
     * The velocity checks of the sample CARD_MONITORING v1 (all-match): card count 1 h, card spend
     * 24 h, distinct cards per merchant 1 h; merchants drawn from {@code cards / 10}, so hot merchants
     * keep their distinct set at its cap. Deterministic per transaction number.
     */
    static VelocityRequest cardMonitoringV1(long i, int cards) {
        SplittableRandom r = new SplittableRandom(i * 0x9E3779B97F4A7C15L + 43);
        String card = "card-" + r.nextInt(cards);
        String merchant = "m-" + r.nextInt(Math.max(1, cards / 10));
        double amount = 1 + r.nextInt(50_000) / 100.0;
        String rs = "CARD_MONITORING";
        return new VelocityRequest("txm-" + i, List.of(
                new VelocityCheck(rs, "card-1h-count-monitor", "card_hash", card, 3600, Aggregate.COUNT, 0, null, 10),
                new VelocityCheck(rs, "card-24h-spend-monitor", "card_hash", card, 86400, Aggregate.SUM, amount, null, 10000),
                new VelocityCheck(rs, "merchant-1h-distinct-cards", "merchant_id", merchant, 3600, Aggregate.DISTINCT, 0,
                        card, 500)), false);
    }

    static VelocityRequest threeChecks(long i) {
        SplittableRandom r = new SplittableRandom(i * 0x9E3779B97F4A7C15L + 31);
        String card = "card-" + r.nextInt(CARDS);
        return new VelocityRequest("tx3-" + i, List.of(
                new VelocityCheck("CARD_AUTH", "card-5m-count", "card_hash", card, 300, Aggregate.COUNT, 0, null, 8),
                new VelocityCheck("CARD_AUTH", "card-1h-amount", "card_hash", card, 3600, Aggregate.SUM, 1 + r.nextInt(500), null, 5000),
                new VelocityCheck("CARD_AUTH", "card-1h-merchants", "card_hash", card, 3600, Aggregate.DISTINCT, 0,
                        "m-" + r.nextInt(50), 6)), false);
    }

    /**
     * CPU seconds of Redis' main thread (user + system): unlike {@code usec_per_call}, which is wall
     * time and grows whenever the scheduler preempts Redis mid-script on a busy machine, this only
     * counts what Redis ran (command parsing and replies included).
     */
    static double mainThreadCpu(RedisServer redis) {
        String cpu = String.valueOf(redis.command("INFO", "cpu"));
        return Double.parseDouble(find(cpu, "used_cpu_user_main_thread:([0-9.]+)"))
                + Double.parseDouble(find(cpu, "used_cpu_sys_main_thread:([0-9.]+)"));
    }

    static String find(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        if (!m.find()) {
            throw new IllegalStateException("no " + regex + " in:\n" + text);
        }
        return m.group(1);
    }

    private VelocityCostBenchmark() {
    }
}
