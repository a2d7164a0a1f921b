package io.vigil.engine.velocity.bench;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisOptions;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;
import io.vigil.engine.outbox.OutboxInstructions;
import io.vigil.engine.velocity.VelocityKeys;
import io.vigil.engine.velocity.VelocityScriptClient;
import io.vigil.rules.velocity.Aggregate;
import io.vigil.rules.velocity.VelocityCheck;
import io.vigil.rules.velocity.VelocityRequest;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Redis CPU of one velocity call as <b>instructions</b>, repeatable on a busy machine (not a test;
 * run by {@code environments/local/bin/bench-velocity.sh instructions}, docs/benchmarks.md).
 *
 * <p>The script starts {@code redis-server} under {@code valgrind --tool=callgrind --instr-atstart=no}
 * and passes its port and pid. This class fills the hot-card steady state of
 * {@link VelocityCostBenchmark} (200 cards sharing the CARD_AUTH v2 traffic of one simulated hour:
 * every short window full, the distinct-merchants check at its cap of 50) with instrumentation off,
 * then switches it on ({@code callgrind_control}) and counts Redis' user-space instructions (Ir) for:
 * <ol>
 * <li>PING, sent exactly like the calls (the per-command cost of the event loop: the baseline);</li>
 * <li>the velocity client's calls (whatever build of {@link VelocityScriptClient} is first on the
 * class path), in batches of {@link #BATCH} submitted in one event-loop turn, one batch at a time;</li>
 * <li>the floor: the native commands one such call must run on the same keys (GET marker, per
 * dimension value one HMGET and one HSET of its fields, one ZADD per distinct check, SET marker),
 * pipelined without a script, same batches.</li>
 * <li>the rest of a CARD_AUTH v2 durable decision ({@link OutboxInstructions}): its stream entry
 * {@code XADD}ed as the engine's writer sends it ({@link #WRITER_BATCH} entries per pipeline), then
 * the relay's {@code XREADGROUP}, {@code XACK} and {@code XDEL} ({@link #RELAY_COUNT} per command);
 * Ir per event, not net of anything.</li>
 * </ol>
 * Kernel time (system calls) is not in Ir; batching is what keeps it small.
 */
public final class VelocityInstructionsBenchmark {

    static final int CALLS = Integer.getInteger("bench.instr.calls", 2048);
    static final int WARM = Integer.getInteger("bench.instr.warm", 25_000);
    static final int BATCH = 32;
    static final long HOUR = 3_600_000L;
    /** The outbox part (a durable decision's stream entry, written and relayed); off with -Dbench.instr.outbox=false. */
    static final boolean OUTBOX = !"false".equals(System.getProperty("bench.instr.outbox"));
    /** Entries per writer pipeline: 2,000 decisions/s over the writer's 5 ms linger. */
    static final int WRITER_BATCH = Integer.getInteger("bench.instr.writer-batch", 10);
    /** The relay's entries-per-command (ADR 0022). */
    static final int RELAY_COUNT = Integer.getInteger("bench.instr.relay-count", 100);

    public static void main(String[] args) {
        runOrExit(VelocityInstructionsBenchmark::run);
    }

    /** Runs a benchmark's main work; on a failure exits 1 rather than leave the JVM up. */
    static void runOrExit(Work work) {
        try {
            work.run();
        } catch (Throwable t) {
            // Vert.x's threads would keep the JVM, and so the script's Redis, running for good
            t.printStackTrace();
            System.exit(1);
        }
    }

    /** The benchmarks' client of the script's Redis on {@code port}: pool and queues for batches of calls. */
    static Redis redis(Vertx vertx, int port) {
        return Redis.createClient(vertx, new RedisOptions().setConnectionString("redis://127.0.0.1:" + port)
                .setMaxPoolSize(4).setMaxPoolWaiting(4096).setMaxWaitingHandlers(4096));
    }

    static void run() throws Exception {
        int port = Integer.getInteger("bench.instr.port");
        String pid = System.getProperty("bench.instr.pid");
        String label = System.getProperty("bench.instr.label", "current");
        Vertx vertx = Vertx.vertx();
        Redis redis = redis(vertx, port);
        VelocityScriptClient velocity = VelocityCostBenchmark.client(vertx, redis, VelocityCostBenchmark.HOT_CAP);
        await(redis.send(Request.cmd(Command.FLUSHALL)));

        // steady state, not measured: one simulated hour of hot-card traffic
        long t0 = VelocityCostBenchmark.T0;
        long step = HOUR / WARM; // the measured calls continue at the warm-up's rate
        calls(vertx, velocity, 1_000_000, WARM, t0, step, VelocityInstructionsBenchmark::hot);
        calls(vertx, velocity, 1_000_000, WARM, t0, step, VelocityInstructionsBenchmark::monitoring);
        long start = t0 + HOUR;

        callgrind(pid, "-i", "on");
        idlePerSecond = measure(pid, () -> Thread.sleep(2000)) / 2.0;
        long ping = measure(pid, () -> batches(vertx, CALLS, i -> List.of(Request.cmd(Command.PING)), redis));
        // the client as the engine runs it; then, if this build has one, the generic script on the same state
        Map<String, VelocityScriptClient> variants = new LinkedHashMap<>();
        variants.put(label, velocity);
        VelocityScriptClient generic = generic(vertx, redis);
        if (generic != null) {
            variants.put(label + ", generic script", generic);
        }
        // both script kinds: CARD_AUTH v2 (10 checks, first match) and CARD_MONITORING v1 (3 checks, all-match)
        Map<String, LongFunction<VelocityRequest>> kinds = new LinkedHashMap<>();
        kinds.put("CARD_AUTH v2", VelocityInstructionsBenchmark::hot);
        kinds.put("CARD_MONITORING v1", VelocityInstructionsBenchmark::monitoring);
        Map<String, Long> measured = new LinkedHashMap<>();
        Map<String, Long> floors = new LinkedHashMap<>();
        long base = 2_000_000;
        long at = start;
        for (var kind : kinds.entrySet()) {
            for (var v : variants.entrySet()) {
                long from = base;
                long t = at;
                String name = v.getKey() + ", " + kind.getKey();
                measured.put(name, measure(pid, () -> calls(vertx, v.getValue(), from, CALLS, t, step, kind.getValue())));
                profile(pid, name);
                floors.put(name, 0L);
                base += CALLS;
                at += step * CALLS;
            }
            long floorAt = at;
            long floorFrom = base;
            long floor = measure(pid, () -> batches(vertx, CALLS,
                    i -> nativeCommands(kind.getValue().apply(floorFrom + i), floorAt + step * i), redis));
            floors.replaceAll((name, f) -> name.endsWith(kind.getKey()) ? floor : f);
            base += CALLS;
            at += step * CALLS;
        }
        // the rest of a durable decision: its stream entry written by the engine's writer, relayed
        OutboxInstructions.Result outbox = OUTBOX
                ? new OutboxInstructions(redis).run(work -> measure(pid, work::run), VelocityInstructionsBenchmark::hot,
                        base, CALLS, WRITER_BATCH, RELAY_COUNT)
                : null;
        callgrind(pid, "-i", "off");

        double pingPer = (double) ping / CALLS;
        for (var m : measured.entrySet()) {
            double floorPer = (double) floors.get(m.getKey()) / CALLS - pingPer;
            double callPer = (double) m.getValue() / CALLS - pingPer;
            System.out.printf(Locale.ROOT, "| %s | %,.0f | %,.0f | %,.0f | %.2f× | %,.0f | %s |%n",
                    m.getKey(), callPer, floorPer, pingPer, callPer / floorPer, idlePerSecond,
                    VelocityCostBenchmark.loadAverage());
        }
        if (outbox != null) {
            double writer = (double) outbox.writerIr() / outbox.events();
            double relay = (double) outbox.relayIr() / outbox.events();
            double call = (double) measured.get(label + ", CARD_AUTH v2") / CALLS;
            System.out.println();
            System.out.println("| Build | CARD_AUTH v2 durable decision: Ir in all | velocity call (with its PING share) "
                    + "| XADD (writer) | relay: XREADGROUP, XACK, XDEL | of which XREADGROUP / XACK / XDEL | event bytes "
                    + "| writer: entries per pipeline | relay: commands per 100 events | load |");
            System.out.println("|---|---|---|---|---|---|---|---|---|---|");
            System.out.printf(Locale.ROOT, "| %s | %,.0f | %,.0f | %,.0f | %,.0f | %,.0f / %,.0f / %,.0f | %,d | %.1f | %.1f | %s |%n",
                    label, call + writer + relay, call, writer, relay, (double) outbox.readIr() / outbox.events(),
                    (double) outbox.ackIr() / outbox.events(), (double) outbox.deleteIr() / outbox.events(),
                    outbox.eventBytes() / outbox.events(),
                    (double) outbox.events() / outbox.writerPipelines(), 100.0 * outbox.relayCommands() / outbox.events(),
                    VelocityCostBenchmark.loadAverage());
        }
        if (generic != null) {
            generic.close();
        }
        velocity.close();
        redis.close();
        vertx.close().toCompletionStage().toCompletableFuture().get();
        System.exit(0);
    }

    /**
     * {@code n} hot-card transactions from number {@code base}, {@link #BATCH} submitted in one
     * event-loop turn (so the client writes them as one batch, as the engine does), one batch at a time.
     */
    static void calls(Vertx vertx, VelocityScriptClient velocity, long base, int n, long start, long step,
                      LongFunction<VelocityRequest> kind) throws Exception {
        io.vertx.core.Context loop = vertx.getOrCreateContext();
        for (int b = 0; b < n; b += BATCH) {
            int first = b;
            int last = Math.min(n, b + BATCH);
            List<CompletableFuture<double[]>> done = new ArrayList<>();
            CountDownLatch sent = new CountDownLatch(1);
            loop.runOnContext(v -> {
                for (int i = first; i < last; i++) {
                    done.add(velocity.run(kind.apply(base + i), start + step * i).toCompletableFuture());
                }
                sent.countDown();
            });
            sent.await();
            CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        }
    }

    /** The generic-script client of this build, or null (builds before generated scripts). */
    static VelocityScriptClient generic(Vertx vertx, Redis redis) throws Exception {
        try {
            return (VelocityScriptClient) VelocityScriptClient.class
                    .getMethod("generic", Vertx.class, Redis.class, boolean.class, int.class, int.class)
                    .invoke(null, vertx, redis, false, 10, VelocityCostBenchmark.HOT_CAP);
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    static VelocityRequest hot(long i) {
        return VelocityCostBenchmark.cardAuthV2(i, VelocityCostBenchmark.HOT_CARDS);
    }

    static VelocityRequest monitoring(long i) {
        return VelocityCostBenchmark.cardMonitoringV1(i, VelocityCostBenchmark.HOT_CARDS);
    }

    /**
     * With {@code -Dbench.instr.profile=true}, dumps callgrind's counters of the phase just measured
     * (callgrind.out.N beside the server's; read with {@code callgrind_annotate}): where a call's
     * instructions go, by Redis and Lua function.
     */
    static void profile(String pid, String phase) throws Exception {
        if (Boolean.getBoolean("bench.instr.profile")) {
            System.out.println("profile dump: " + phase);
            callgrind(pid, "-d");
        }
    }

    /**
     * The native commands of one CARD_AUTH v2 call on the layout of ADR 0006, without a script: GET
     * marker; per dimension value HMGET of |exp and each check's field; HSET of each count/sum check's
     * ring (8 * 13 bytes); ZADD per distinct check; SET marker PX (1 + 16 bytes per check). Values are
     * plausible, not computed: this is the work Redis cannot avoid whatever runs the logic.
     * ({@code bench.instr.floor=adr5}: ADR 0005's fields, a state and the current slot per count/sum
     * check, as text.)
     */
    static List<Request> nativeCommands(VelocityRequest request, long now) {
        Map<String, List<VelocityCheck>> byHash = new LinkedHashMap<>();
        String markerTag = null;
        for (VelocityCheck c : request.checks()) {
            String tag = VelocityKeys.tag(c.dimension(), c.dimensionValue());
            markerTag = markerTag == null ? tag : markerTag;
            byHash.computeIfAbsent(tag, t -> new ArrayList<>()).add(c);
        }
        String rs = request.checks().get(0).rulesetKey();
        String marker = VelocityKeys.markerKey(markerTag, rs, request.transactionId());
        List<Request> reads = new ArrayList<>();
        List<Request> writes = new ArrayList<>();
        reads.add(Request.cmd(Command.GET).arg(marker));
        StringBuilder answers = new StringBuilder();
        for (var e : byHash.entrySet()) {
            String hash = VelocityKeys.velocityKey(e.getKey(), rs);
            Request read = Request.cmd(Command.HMGET).arg(hash).arg("|exp");
            Request write = Request.cmd(Command.HSET).arg(hash);
            boolean written = false;
            for (VelocityCheck c : e.getValue()) {
                String id = VelocityKeys.wireId(c);
                answers.append(id).append("=7\n");
                read.arg(id);
                boolean adr5 = "adr5".equals(System.getProperty("bench.instr.floor"));
                if (c.aggregate() == Aggregate.DISTINCT) {
                    writes.add(Request.cmd(Command.ZADD).arg(VelocityKeys.distinctKey(e.getKey(), rs, id))
                            .arg("GT").arg(now).arg(c.distinctValue()));
                } else if (!adr5) {
                    write.arg(id).arg(RING);
                    written = true;
                } else {
                    long bucket = c.windowSeconds() * 100L;
                    String slot = id + '|' + ((now / bucket) % 11);
                    read.arg(slot);
                    write.arg(slot).arg(3).arg(id).arg((now / bucket) + " " + (now / bucket - 10) + " 17");
                    written = true;
                }
            }
            reads.add(read);
            if (written) {
                writes.add(write);
            }
        }
        writes.add(Request.cmd(Command.SET).arg(marker)
                .arg("adr5".equals(System.getProperty("bench.instr.floor")) ? answers.toString() : MARKER)
                .arg("PX").arg(90_000_000));
        reads.addAll(writes);
        return reads;
    }

    static final String RING = "r".repeat(8 * 13);
    static final String MARKER = "m".repeat(1 + 16 * 10);

    interface Work {
        void run() throws Exception;
    }

    /** Instructions of an idle Redis per second (its cron at hz 1, the event loop's timeouts). */
    static double idlePerSecond;

    /**
     * Instructions Redis ran during {@code work}, less what it runs idle in that time (a few
     * hundred thousand per second: under 1 % of a phase, but it grows with the machine's load).
     */
    static long measure(String pid, Work work) throws Exception {
        callgrind(pid, "-z");
        long began = System.nanoTime();
        work.run();
        double seconds = (System.nanoTime() - began) / 1e9;
        String out = callgrind(pid, "-e", "Ir");
        Matcher m = Pattern.compile("Th\\s+\\d+\\s+([0-9,]+)").matcher(out);
        long total = 0;
        boolean any = false;
        while (m.find()) {
            total += Long.parseLong(m.group(1).replace(",", ""));
            any = true;
        }
        if (!any) {
            throw new IllegalStateException("no Ir in callgrind_control output:\n" + out);
        }
        return total - Math.round(idlePerSecond * seconds);
    }

    /** {@code n} units of commands, {@link #BATCH} units per pipeline (one write), one pipeline at a time. */
    static void batches(Vertx vertx, int n, java.util.function.IntFunction<List<Request>> unit, Redis redis)
            throws Exception {
        for (int b = 0; b < n; b += BATCH) {
            List<Request> batch = new ArrayList<>();
            for (int i = b; i < b + BATCH; i++) {
                batch.addAll(unit.apply(i));
            }
            await(redis.batch(batch));
        }
    }

    static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    }

    static String callgrind(String pid, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add("callgrind_control");
        cmd.addAll(List.of(args));
        cmd.add(pid);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IllegalStateException(String.join(" ", cmd) + " failed:\n" + out);
        }
        return out;
    }

    private VelocityInstructionsBenchmark() {
    }
}
