package io.vigil.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Locale;
import java.util.function.IntSupplier;

/**
 * Measures the same operations as {@link RulesBenchmark} and {@link DecisionEventBenchmark} in
 * operations per second of this thread's CPU time, not wall time. On a shared, oversubscribed machine JMH's wall-clock throughput mostly
 * measures how often the scheduler ran the thread; CPU time gives the per-core cost of an operation.
 * JMH remains the reference (warm-up, dead-code protection, -prof gc for allocation).
 *
 * <p>{@code java [-Dvigil.mix=4096] -cp benchmarks.jar io.vigil.bench.CpuTimeRunner [cpuSecondsPerRound] [rounds] [name filter]}
 */
public final class CpuTimeRunner {
    private static volatile int sink;
    private static String filter = "";

    private CpuTimeRunner() {
    }

    public static void main(String[] args) throws Exception {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 2;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        filter = args.length > 2 ? args[2] : "";
        RulesBenchmark b = new RulesBenchmark();
        b.ruleset = "CARD_AUTH/v2/ruleset.yaml";
        b.mix = Integer.getInteger("vigil.mix", 4096);
        b.setup();
        run("evaluateNoVelocity", () -> b.evaluateNoVelocity().decision().ordinal(), seconds, rounds);
        run("evaluateWithVelocity", () -> b.evaluateWithVelocity().decision().ordinal(), seconds, rounds);
        run("parse", () -> {
            try {
                return b.parse().transactionId().length();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, seconds, rounds);
        run("parseAndEvaluateNoVelocity", () -> {
            try {
                return b.parseAndEvaluateNoVelocity().decision().ordinal();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, seconds, rounds);
        DecisionEventBenchmark events = new DecisionEventBenchmark();
        events.ruleset = b.ruleset;
        events.mix = 256;
        events.setup();
        run("eventJson", () -> events.eventJson().length, seconds, rounds);
        run("answerJson", events::answerJson, seconds, rounds);
    }

    private static void run(String name, IntSupplier op, double seconds, int rounds) {
        if (!name.contains(filter)) {
            return;
        }
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long budget = (long) (seconds * 1e9);
        // Warm-up: as many rounds as measured, so the JIT has compiled the hot path.
        for (int r = 0; r < rounds; r++) {
            measure(mx, op, budget);
        }
        double[] results = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            results[r] = measure(mx, op, budget);
        }
        java.util.Arrays.sort(results);
        System.out.printf(Locale.ROOT, "%-28s median %,12.0f ops per CPU-second (min %,.0f, max %,.0f, %d rounds)%n",
                name, results[rounds / 2], results[0], results[rounds - 1], rounds);
    }

    private static double measure(ThreadMXBean mx, IntSupplier op, long budgetNanos) {
        long ops = 0;
        int acc = 0;
        long start = mx.getCurrentThreadCpuTime();
        long used;
        do {
            for (int i = 0; i < 4096; i++) {
                acc += op.getAsInt();
            }
            ops += 4096;
            used = mx.getCurrentThreadCpuTime() - start;
        } while (used < budgetNanos);
        sink = acc;
        return ops / (used / 1e9);
    }
}
