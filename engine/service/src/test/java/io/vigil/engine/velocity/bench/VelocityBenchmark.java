package io.vigil.engine.velocity.bench;

import io.vertx.core.Vertx;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisOptions;
import io.vigil.engine.velocity.VelocityScriptClient;
import io.vigil.rules.velocity.Aggregate;
import io.vigil.rules.velocity.VelocityCheck;
import io.vigil.rules.velocity.VelocityRequest;
import io.vigil.testing.redis.RedisServer;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Velocity benchmark (not a test; run by environments/local/bin/bench-velocity.sh):
 *
 * <ol>
 * <li>velocity round trip of one transaction hitting 3 velocity rules (count, sum, distinct on the
 * card), through the engine's own script client, against a local redis-server: latency with one
 * call in flight, throughput with many in flight;</li>
 * <li>AUTH throughput of the packaged engine ({@code engine/service/target/quarkus-app}) with a
 * ruleset with those 3 velocity rules vs the same ruleset without them, driven by {@code wrk},
 * alternating runs in the same session so the ratio is meaningful on a shared machine.</li>
 * </ol>
 *
 * Prints a Markdown report. Settings (system properties): {@code bench.seconds} (per measurement,
 * default 10), {@code bench.rounds} (AUTH with/without alternations, default 2),
 * {@code bench.connections} (wrk connections, default 32), {@code bench.skipAuth}.
 */
public final class VelocityBenchmark {

    static final int SECONDS = Integer.getInteger("bench.seconds", 10);
    static final int ROUNDS = Integer.getInteger("bench.rounds", 2);
    static final int CONNECTIONS = Integer.getInteger("bench.connections", 32);
    static final int CARDS = 10_000;
    static final StringBuilder REPORT = new StringBuilder();

    public static void main(String[] args) throws Exception {
        Path root = Path.of(System.getProperty("bench.root", ".")).toAbsolutePath().normalize();
        line("## Velocity");
        line("");
        line("Run " + java.time.Instant.now() + " on " + Runtime.getRuntime().availableProcessors() + " cores (load average "
                + String.format(Locale.ROOT, "%.1f", java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage())
                + " at start), " + redisVersion() + ", Java " + Runtime.version() + ".");
        line("");
        try (RedisServer redis = RedisServer.builder().arg("--maxmemory-policy", "noeviction").start()) {
            roundTrip(redis);
            if (!Boolean.getBoolean("bench.skipAuth")) {
                authThroughput(root, redis);
            }
        }
        System.out.println();
        System.out.println(REPORT);
        Path out = root.resolve(".local/bench");
        Files.createDirectories(out);
        Path file = out.resolve("velocity-" + System.currentTimeMillis() + ".md");
        Files.writeString(file, REPORT.toString());
        System.out.println("report: " + file);
        System.exit(0);
    }

    // ---- 1. round trip ----------------------------------------------------------------------

    static VelocityRequest transaction(long n) {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        String card = "bench-card-" + r.nextInt(CARDS);
        return new VelocityRequest("bench-" + n, List.of(
                new VelocityCheck("CARD_AUTH", "card-5m-count", "card_hash", card, 300, Aggregate.COUNT, 0, null, 8),
                new VelocityCheck("CARD_AUTH", "card-1h-amount", "card_hash", card, 3600, Aggregate.SUM, 1 + r.nextInt(500), null, 5000),
                new VelocityCheck("CARD_AUTH", "card-1h-merchants", "card_hash", card, 3600, Aggregate.DISTINCT, 0,
                        "m-" + r.nextInt(50), 6)), false);
    }

    static void roundTrip(RedisServer server) throws Exception {
        Vertx vertx = Vertx.vertx();
        Redis redis = Redis.createClient(vertx, new RedisOptions().setConnectionString(server.uri())
                .setMaxPoolSize(16).setMaxPoolWaiting(4096).setMaxWaitingHandlers(4096));
        VelocityScriptClient client = new VelocityScriptClient(vertx, redis, false, 10);
        AtomicLong ids = new AtomicLong();
        long deadline;

        // warm-up: JIT, script cache, windows populated for every card
        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Math.max(3, SECONDS / 2));
        while (System.nanoTime() < deadline) {
            client.run(transaction(ids.incrementAndGet()), System.currentTimeMillis()).toCompletableFuture().get();
        }

        // latency: one call in flight
        long[] samples = new long[2_000_000];
        int count = 0;
        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SECONDS);
        long started = System.nanoTime();
        while (System.nanoTime() < deadline && count < samples.length) {
            VelocityRequest tx = transaction(ids.incrementAndGet());
            long t = System.nanoTime();
            client.run(tx, System.currentTimeMillis()).toCompletableFuture().get();
            samples[count++] = System.nanoTime() - t;
        }
        double sequentialRate = count / ((System.nanoTime() - started) / 1e9);
        long[] sorted = Arrays.copyOf(samples, count);
        Arrays.sort(sorted);

        server.command("CONFIG", "RESETSTAT");
        // throughput: a closed loop of N calls in flight
        line("### Velocity round trip (3 rules: count 5 min, sum 1 h, distinct 1 h; " + CARDS + " cards)");
        line("");
        line("Engine's script client (Vert.x Redis client, pool 16) → local redis-server, one `EVALSHA` per transaction.");
        line("");
        line("| In flight | Transactions/s | p50 | p90 | p99 | p99.9 |");
        line("|---|---|---|---|---|---|");
        line(String.format(Locale.ROOT, "| 1 | %,.0f | %s | %s | %s | %s |", sequentialRate,
                us(pct(sorted, 50)), us(pct(sorted, 90)), us(pct(sorted, 99)), us(pct(sorted, 99.9))));
        for (int inFlight : new int[]{16, 64}) {
            double[] result = closedLoop(client, ids, inFlight);
            line(String.format(Locale.ROOT, "| %d | %,.0f | %s | %s | %s | %s |", inFlight, result[0],
                    us((long) result[1]), us((long) result[2]), us((long) result[3]), us((long) result[4])));
        }
        line("");
        String stats = String.valueOf(server.command("INFO", "commandstats"));
        Matcher m = Pattern.compile("cmdstat_evalsha:calls=(\\d+),usec=(\\d+),usec_per_call=([0-9.]+)").matcher(stats);
        if (m.find()) {
            line("Redis-side cost of the script (`INFO commandstats`, evalsha): " + m.group(3) + " µs per call over "
                    + m.group(1) + " calls, i.e. one Redis core saturates near "
                    + String.format(Locale.ROOT, "%,.0f", 1e6 / Double.parseDouble(m.group(3))) + " transactions/s.");
            line("");
        }
        Object dbsize = server.command("DBSIZE");
        String mem = String.valueOf(server.command("INFO", "memory"));
        Matcher used = Pattern.compile("used_memory:(\\d+)").matcher(mem);
        if (used.find()) {
            line(String.format(Locale.ROOT, "Keyspace after the run: %s keys, %.1f MiB (%,d cards, markers of every transaction in the last hour).",
                    dbsize, Long.parseLong(used.group(1)) / 1048576.0, CARDS));
            line("");
        }
        redis.close();
        vertx.close().toCompletionStage().toCompletableFuture().get();
    }

    static double[] closedLoop(VelocityScriptClient client, AtomicLong ids, int inFlight) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(SECONDS);
        AtomicLong done = new AtomicLong();
        long[][] lat = new long[inFlight][];
        int[] n = new int[inFlight];
        List<CompletableFuture<Void>> loops = new ArrayList<>();
        long start = System.nanoTime();
        for (int i = 0; i < inFlight; i++) {
            int slot = i;
            lat[i] = new long[1_000_000];
            CompletableFuture<Void> finished = new CompletableFuture<>();
            loops.add(finished);
            next(client, ids, end, done, lat[slot], n, slot, finished);
        }
        CompletableFuture.allOf(loops.toArray(new CompletableFuture[0])).get(SECONDS + 60L, TimeUnit.SECONDS);
        double rate = done.get() / ((System.nanoTime() - start) / 1e9);
        int total = 0;
        for (int c : n) {
            total += c;
        }
        long[] all = new long[total];
        int k = 0;
        for (int i = 0; i < inFlight; i++) {
            System.arraycopy(lat[i], 0, all, k, n[i]);
            k += n[i];
        }
        Arrays.sort(all);
        return new double[]{rate, pct(all, 50), pct(all, 90), pct(all, 99), pct(all, 99.9)};
    }

    static void next(VelocityScriptClient client, AtomicLong ids, long end, AtomicLong done, long[] lat, int[] n, int slot,
                     CompletableFuture<Void> finished) {
        if (System.nanoTime() >= end) {
            finished.complete(null);
            return;
        }
        long t = System.nanoTime();
        client.run(transaction(ids.incrementAndGet()), System.currentTimeMillis()).whenComplete((v, e) -> {
            if (e != null) {
                finished.completeExceptionally(e);
                return;
            }
            if (n[slot] < lat.length) {
                lat[n[slot]++] = System.nanoTime() - t;
            }
            done.incrementAndGet();
            next(client, ids, end, done, lat, n, slot, finished);
        });
    }

    // ---- 2. AUTH with vs without velocity ---------------------------------------------------

    static final String BASE_RULES = """
            ruleset_key: CARD_AUTH
            ruleset_version: 1
            execution_mode: FIRST_MATCH
            default_action: APPROVE
            lists:
              blocked_cards: [c-stolen-0001, c-stolen-0002]
            rules:
              - rule_id: blocked-card
                priority: 1000
                condition: {field: card_hash, op: in_list, value: blocked_cards}
                action: {decision: DECLINE, reason_code: BLOCKED_CARD}
              - rule_id: high-amount-cnp
                priority: 500
                condition:
                  and:
                    - {field: card_present, op: eq, value: false}
                    - {field: amount, op: gt, value: 10000}
                action: {decision: REVIEW, reason_code: HIGH_AMOUNT_CNP}
              - rule_id: risky-mcc
                priority: 400
                condition: {field: merchant_category_code, op: in, values: ["7995", "5967"]}
                action: {decision: REVIEW, reason_code: RISKY_MCC}
            """;

    // Thresholds never reached by the traffic (merchants drawn from 50); the distinct one at most the
    // engine's distinct cap (1,000), above which a ruleset does not validate.
    static final String VELOCITY_RULES = """
              - rule_id: card-5m-count
                priority: 850
                velocity: {dimension: card_hash, window_seconds: 300, aggregate: count, threshold: 1000000}
                action: {decision: DECLINE, reason_code: VELOCITY_CARD_5M}
              - rule_id: card-1h-amount
                priority: 840
                velocity: {dimension: card_hash, window_seconds: 3600, aggregate: sum, of: amount, threshold: 1000000000}
                action: {decision: REVIEW, reason_code: VELOCITY_CARD_AMOUNT_1H}
              - rule_id: card-1h-merchants
                priority: 830
                velocity: {dimension: card_hash, window_seconds: 3600, aggregate: distinct, of: merchant_id, threshold: 1000}
                action: {decision: REVIEW, reason_code: VELOCITY_CARD_MERCHANTS_1H}
            """;

    static final String WRK_SCRIPT = """
            local counter = 0
            local prefix = ""
            function init(args)
              prefix = args[1] .. "-" .. tostring(math.random(1, 1000000000))
              math.randomseed(os.time() + math.random(1, 100000))
            end
            function request()
              counter = counter + 1
              local body = string.format('{"transaction_id":"%s-%d","card_hash":"bench-card-%d","amount":%d,'
                .. '"currency":"EUR","merchant_id":"m-%d","merchant_category_code":"5411","device_id":"dev-%d",'
                .. '"country_code":"DE","card_present":false}',
                prefix, counter, math.random(1, 10000), math.random(1, 500), math.random(1, 50), math.random(1, 5000))
              return wrk.format("POST", "/v1/evaluate/auth", {["Content-Type"] = "application/json"}, body)
            end
            """;

    static void authThroughput(Path root, RedisServer redis) throws Exception {
        Path app = root.resolve("engine/service/target/quarkus-app/quarkus-run.jar");
        if (!Files.exists(app)) {
            line("_AUTH throughput skipped: " + app + " missing (build with `./mvnw -pl engine/service -am package -DskipTests`)._");
            return;
        }
        Path wrk = Path.of("/usr/bin/wrk");
        if (!Files.isExecutable(wrk)) {
            line("_AUTH throughput skipped: wrk not installed (`apt-get install -y wrk`)._");
            return;
        }
        Path work = Files.createTempDirectory("vigil-bench-");
        Path without = work.resolve("without");
        Path with = work.resolve("with");
        Files.createDirectories(without.resolve("CARD_AUTH/v1"));
        Files.createDirectories(with.resolve("CARD_AUTH/v1"));
        Files.writeString(without.resolve("CARD_AUTH/v1/ruleset.yaml"), BASE_RULES);
        Files.writeString(with.resolve("CARD_AUTH/v1/ruleset.yaml"), BASE_RULES + VELOCITY_RULES);
        Path script = work.resolve("auth.lua");
        Files.writeString(script, WRK_SCRIPT);

        line("### AUTH throughput with vs without the 3 velocity rules");
        line("");
        line("Packaged engine (`quarkus-run.jar`, default settings: 5 ms deadline, pool 16) and `wrk` (1 thread, "
                + CONNECTIONS + " connections, " + SECONDS + " s per run after a " + Math.max(3, SECONDS / 2)
                + " s warm-up) on the same machine; runs alternate so both see the same background load.");
        line("Base ruleset: 3 plain rules; \"with\": the same plus count/sum/distinct velocity rules on the card "
                + "(thresholds out of reach so every request evaluates every rule).");
        line("");
        line("| Run | Ruleset | Requests/s | p50 | p99 | NORMAL | DEGRADED |");
        line("|---|---|---|---|---|---|---|");
        List<Double> withRates = new ArrayList<>();
        List<Double> withoutRates = new ArrayList<>();
        for (int round = 1; round <= ROUNDS; round++) {
            withoutRates.add(runEngine(app, without, redis, wrk, script, "without", round));
            withRates.add(runEngine(app, with, redis, wrk, script, "with", round));
        }
        double w = median(withRates);
        double wo = median(withoutRates);
        line("");
        line(String.format(Locale.ROOT, "**Ratio with / without velocity (medians): %.2f** (%,.0f vs %,.0f requests/s; target ≥ 0.7).", w / wo, w, wo));
        line("");
    }

    static double runEngine(Path app, Path rulesets, RedisServer redis, Path wrk, Path script, String label, int round)
            throws Exception {
        int http = freePort();
        int management = freePort();
        Path log = rulesets.resolveSibling("engine-" + label + "-" + round + ".log");
        Process engine = new ProcessBuilder(javaBin(), "-Xmx512m",
                "-Dquarkus.http.port=" + http, "-Dquarkus.http.host=127.0.0.1",
                "-Dquarkus.management.port=" + management, "-Dquarkus.management.host=127.0.0.1",
                "-Dvigil.rulesets.dir=" + rulesets, "-Dvigil.velocity.redis-hosts=" + redis.uri(),
                "-Dquarkus.redis.outbox.hosts=" + redis.uri(), "-Dquarkus.log.level=WARN",
                "-jar", app.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            awaitReady(management, engine, log);
            String url = "http://127.0.0.1:" + http;
            String threads = "-t1";
            wrk(wrk, threads, url, script, Math.max(3, SECONDS / 2), label); // warm-up
            double[] before = modes(management);
            String out = wrk(wrk, threads, url, script, SECONDS, label);
            double[] after = modes(management);
            double rate = Double.parseDouble(find(out, "Requests/sec:\\s+([0-9.]+)"));
            String p50 = find(out, "50%\\s+(\\S+)");
            String p99 = find(out, "99%\\s+(\\S+)");
            line(String.format(Locale.ROOT, "| %d | %s | %,.0f | %s | %s | %,.0f | %,.0f |", round, label, rate, p50, p99,
                    after[0] - before[0], after[1] - before[1]));
            return rate;
        } finally {
            engine.destroy();
            if (!engine.waitFor(20, TimeUnit.SECONDS)) {
                engine.destroyForcibly();
            }
        }
    }

    static String wrk(Path wrk, String threads, String url, Path script, int seconds, String label) throws Exception {
        Process p = new ProcessBuilder(wrk.toString(), threads, "-c" + CONNECTIONS, "-d" + seconds + "s", "--latency",
                "-s", script.toString(), url, "--", label).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(seconds + 60L, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("wrk failed:\n" + out);
        }
        if (out.contains("Non-2xx")) {
            throw new IllegalStateException("engine answered non-2xx:\n" + out);
        }
        return out;
    }

    /** Answers by engine mode so far: [NORMAL, DEGRADED] (AUTH endpoint). */
    static double[] modes(int management) throws Exception {
        String metrics = get("http://127.0.0.1:" + management + "/q/metrics");
        double normal = 0;
        double degraded = 0;
        for (String l : metrics.split("\n")) {
            if (l.startsWith("vigil_evaluate_seconds_count") && l.contains("endpoint=\"auth\"")) {
                double v = Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1));
                if (l.contains("mode=\"NORMAL\"")) {
                    normal += v;
                } else if (l.contains("mode=\"DEGRADED\"")) {
                    degraded += v;
                }
            }
        }
        return new double[]{normal, degraded};
    }

    static void awaitReady(int management, Process engine, Path log) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            if (!engine.isAlive()) {
                throw new IllegalStateException("engine exited:\n" + Files.readString(log));
            }
            try {
                HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                                URI.create("http://127.0.0.1:" + management + "/q/health/ready")).timeout(Duration.ofSeconds(2)).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("engine not ready within 120 s:\n" + Files.readString(log));
    }

    static String get(String url) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    // ---- helpers ------------------------------------------------------------------------------

    static String find(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        if (!m.find()) {
            throw new IllegalStateException("no " + regex + " in:\n" + text);
        }
        return m.group(1);
    }

    static long pct(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }

    static String us(long nanos) {
        return nanos >= 1_000_000 ? String.format(Locale.ROOT, "%.2f ms", nanos / 1e6) : String.format(Locale.ROOT, "%.0f µs", nanos / 1e3);
    }

    static double median(List<Double> values) {
        double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    static String javaBin() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    static String redisVersion() {
        try {
            Process p = new ProcessBuilder("redis-server", "--version").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            Matcher m = Pattern.compile("v=(\\S+)").matcher(out);
            return m.find() ? "redis-server " + m.group(1) : "redis-server";
        } catch (IOException e) {
            return "redis-server";
        }
    }

    static void line(String s) {
        REPORT.append(s).append('\n');
        System.out.println(s);
    }

    private VelocityBenchmark() {
    }
}
