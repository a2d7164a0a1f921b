package io.vigil.engine.velocity.bench;

import io.vertx.core.Vertx;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.Request;
import io.vigil.engine.outbox.OutboxInstructions;
import io.vigil.engine.velocity.VelocityScriptClient;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * AOF <b>bytes</b> per durable decision and where they come from, repeatable on a busy machine (not a
 * test; run by {@code environments/local/bin/bench-velocity.sh aof}, docs/adr/0027). The script starts a
 * plain {@code redis-server} with make run's redis.conf and passes its port and directory. This class
 * fills the hot-card steady state of {@link VelocityInstructionsBenchmark}, then, for {@code CALLS}
 * CARD_AUTH v2 decisions, measures {@code aof_current_size} (INFO persistence) before and after each
 * kind of work: the velocity calls, the writer's XADDs, the relay's XREADGROUP, XACK and XDEL
 * ({@link OutboxInstructions}, the engine's and relay's own command shapes). It then reads the
 * measured span of the incremental AOF file and sums its bytes by propagated command name (what Redis
 * actually writes: a script's effects, XREADGROUP's per-entry XCLAIM).
 */
public final class AofBytesBenchmark {

    static final int CALLS = Integer.getInteger("bench.aof.calls", 2048);

    public static void main(String[] args) {
        VelocityInstructionsBenchmark.runOrExit(AofBytesBenchmark::run);
    }

    static void run() throws Exception {
        int port = Integer.getInteger("bench.aof.port");
        Path dir = Path.of(System.getProperty("bench.aof.dir"));
        Vertx vertx = Vertx.vertx();
        Redis redis = VelocityInstructionsBenchmark.redis(vertx, port);
        VelocityScriptClient velocity = VelocityCostBenchmark.client(vertx, redis, VelocityCostBenchmark.HOT_CAP);
        VelocityInstructionsBenchmark.await(redis.send(Request.cmd(Command.FLUSHALL)));
        long t0 = VelocityCostBenchmark.T0;
        long step = VelocityInstructionsBenchmark.HOUR / VelocityInstructionsBenchmark.WARM;
        VelocityInstructionsBenchmark.calls(vertx, velocity, 1_000_000, VelocityInstructionsBenchmark.WARM, t0, step,
                VelocityInstructionsBenchmark::hot);
        long start = t0 + VelocityInstructionsBenchmark.HOUR;
        OutboxInstructions outbox = new OutboxInstructions(redis);

        Path incr = incrFile(dir);
        long fileFrom = Files.size(incr);
        long aofFrom = aofSize(redis);
        long call = measure(redis, () -> VelocityInstructionsBenchmark.calls(vertx, velocity, 2_000_000, CALLS, start,
                step, VelocityInstructionsBenchmark::hot));
        OutboxInstructions.Result r = outbox.run(work -> measure(redis, work::run), VelocityInstructionsBenchmark::hot,
                2_000_000, CALLS, VelocityInstructionsBenchmark.WRITER_BATCH, VelocityInstructionsBenchmark.RELAY_COUNT);
        long aofTo = aofSize(redis);
        if (!incr.equals(incrFile(dir))) {
            throw new IllegalStateException("the AOF was rewritten during the measurement: run again");
        }
        Map<String, long[]> byCommand = byCommand(incr, fileFrom, Files.size(incr));

        double n = CALLS;
        System.out.println("| CARD_AUTH v2 durable decision: AOF bytes in all | velocity call | XADD (writer) "
                + "| XREADGROUP (relay) | XACK | XDEL | event bytes | load |");
        System.out.println("|---|---|---|---|---|---|---|---|");
        System.out.printf(Locale.ROOT, "| %,.0f | %,.0f | %,.0f | %,.0f | %,.0f | %,.0f | %,d | %s |%n",
                (aofTo - aofFrom) / n, call / n, r.writerIr() / n, r.readIr() / n, r.ackIr() / n, r.deleteIr() / n,
                r.eventBytes() / r.events(), VelocityCostBenchmark.loadAverage());
        System.out.println();
        System.out.println("| propagated command (incr AOF) | commands per decision | bytes per decision |");
        System.out.println("|---|---|---|");
        byCommand.forEach((name, v) -> System.out.printf(Locale.ROOT, "| %s | %.2f | %,.0f |%n", name, v[0] / n, v[1] / n));
        fill(vertx, velocity, outbox, redis, start + step * CALLS, step);
        velocity.close();
        redis.close();
        vertx.close().toCompletionStage().toCompletableFuture().get();
        System.exit(0);
    }

    /**
     * With {@code -Dbench.aof.fill-mb=M}: more decisions of the same kind until the AOF has grown by M MB
     * (under the rewrite threshold), so that the script can time the reload of that much AOF.
     */
    static void fill(Vertx vertx, VelocityScriptClient velocity, OutboxInstructions outbox, Redis redis, long at,
                     long step) throws Exception {
        long target = Long.getLong("bench.aof.fill-mb", 0) << 20;
        long from = aofSize(redis);
        long base = 3_000_000;
        while (target > 0 && aofSize(redis) - from < target) {
            VelocityInstructionsBenchmark.calls(vertx, velocity, base, CALLS, at, step, VelocityInstructionsBenchmark::hot);
            outbox.run(work -> {
                work.run();
                return 0;
            }, VelocityInstructionsBenchmark::hot, base, CALLS, VelocityInstructionsBenchmark.WRITER_BATCH,
                    VelocityInstructionsBenchmark.RELAY_COUNT);
            base += CALLS;
            at += step * CALLS;
        }
        if (target > 0) {
            System.out.printf(Locale.ROOT, "%nfilled: %,d decisions, AOF %,d bytes%n", base - 3_000_000, aofSize(redis));
        }
    }

    /** AOF bytes Redis wrote during {@code work} (written before each reply: flushAppendOnlyFile runs first). */
    static long measure(Redis redis, VelocityInstructionsBenchmark.Work work) throws Exception {
        long before = aofSize(redis);
        work.run();
        return aofSize(redis) - before;
    }

    static long aofSize(Redis redis) throws Exception {
        String info = VelocityInstructionsBenchmark.await(redis.send(Request.cmd(Command.INFO).arg("persistence")))
                .toString();
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("aof_current_size:")) {
                return Long.parseLong(line.substring("aof_current_size:".length()).trim());
            }
        }
        throw new IllegalStateException("no aof_current_size in INFO persistence: is appendonly on?");
    }

    static Path incrFile(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir.resolve("appendonlydir"))) {
            return files.filter(p -> p.getFileName().toString().endsWith(".incr.aof")).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no *.incr.aof in " + dir + "/appendonlydir"));
        }
    }

    /** Commands (RESP arrays, as the AOF stores them) in [from, to) of the file: name to {count, bytes}. */
    static Map<String, long[]> byCommand(Path file, long from, long to) throws IOException {
        byte[] b = new byte[Math.toIntExact(to - from)];
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
            f.seek(from);
            f.readFully(b);
        }
        Map<String, long[]> out = new TreeMap<>();
        int[] at = {0};
        while (at[0] < b.length) {
            int start = at[0];
            expect(b, at, '*');
            int args = Integer.parseInt(line(b, at));
            String name = null;
            for (int i = 0; i < args; i++) {
                expect(b, at, '$');
                int len = Integer.parseInt(line(b, at));
                if (i == 0) {
                    name = new String(b, at[0], len, StandardCharsets.US_ASCII).toUpperCase(Locale.ROOT);
                }
                at[0] += len + 2;
            }
            long[] v = out.computeIfAbsent(name, k -> new long[2]);
            v[0]++;
            v[1] += at[0] - start;
        }
        return out;
    }

    private static void expect(byte[] b, int[] at, char c) {
        if (b[at[0]] != c) {
            throw new IllegalStateException("AOF: expected '" + c + "' at byte " + at[0] + " of the measured span");
        }
        at[0]++;
    }

    private static String line(byte[] b, int[] at) {
        int s = at[0];
        while (b[at[0]] != '\r') {
            at[0]++;
        }
        String v = new String(b, s, at[0] - s, StandardCharsets.US_ASCII);
        at[0] += 2;
        return v;
    }
}
