package io.vigil.engine.warmup;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.runtime.LaunchMode;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vigil.engine.http.DataRoutes;
import io.vigil.engine.VigilConfig;
import io.vigil.engine.decision.DecisionPath;
import io.vigil.engine.decision.DecisionRecord;
import io.vigil.engine.http.AnswerJson;
import io.vigil.engine.http.CallerDecision;
import io.vigil.engine.http.JsonWriter;
import io.vigil.engine.ruleset.RulesetRegistry;
import io.vigil.engine.outbox.OutboxSink;
import io.vigil.engine.velocity.RedisVelocityStore;
import io.vigil.engine.velocity.VelocityConfig;
import io.vigil.engine.velocity.WarmUpKeys;
import io.vigil.rules.eval.EngineErrorCode;
import io.vigil.rules.eval.EngineMode;
import io.vigil.rules.eval.EvaluationType;
import io.vigil.rules.eval.Outcome;
import io.vigil.rules.txn.InvalidTransactionException;
import io.vigil.rules.txn.Transaction;
import io.vigil.rules.txn.TransactionReader;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.logging.Logger;

/**
 * Ready means warm: before the engine reports ready it runs synthetic decisions through the real path
 * — the transaction reader, {@link DecisionPath#warm} (ruleset pick, prepare, a read-only velocity
 * round trip on the event loop within the real deadline, decide) and the answer JSON — until the JIT
 * has compiled them, the Redis connections are open and the generated velocity scripts are in Redis'
 * script cache: at least {@code vigil.engine.warm-up.decisions}, then until
 * {@code normal-streak} in a row were answered NORMAL within the deadline (or {@code max-duration}).
 *
 * <p>To the depth of real traffic, without a trace (docs/adr/0020-warm-up-depth.md): velocity calls
 * write, as real ones do, but on the store's warm-up keys ({@code vigil-warm-up:}-prefixed, which no
 * real key can be); decision events take the outbox's code (reservation, encoding, the writer's
 * pipelined XADD on its Redis connection) into a stream of their own ({@code <stream>:warm-up}) that
 * the relay never reads; answer metrics go to a registry that is never exported. Both the keys and the
 * stream are deleted before ready. Velocity round-trip metrics do include these calls.
 *
 * <p>Then, through the data port still, until the JIT is quiet ({@link JitQuietPhase}, ADR 0029): a count
 * of decisions left the HTTP server's code below C2's thresholds, and the first seconds after ready spent
 * a core compiling it while real callers waited.
 *
 * <p>Bounded: {@code max-duration} for the in-process decisions, {@link #HTTP_PHASE_MAX} for the counted ones
 * through the data port (run even when the first phase used all its time), {@code jit-quiet.max-duration}
 * for those until the JIT is quiet, then the outbox's shutdown
 * timeout and the velocity timeout for the clean-up; one log line says what ran and how long it took, and the gauge
 * {@code vigil_warm_up_seconds} keeps it.
 */
@ApplicationScoped
public class WarmUp {

    private static final Logger LOG = Logger.getLogger(WarmUp.class);
    /** The longest wait for one warm-up decision's answer. */
    static final Duration ANSWER_WAIT = Duration.ofSeconds(10);
    /** The HTTP phase's own bound, after the in-process phase (which ends by its streak or max-duration). */
    static final Duration HTTP_PHASE_MAX = Duration.ofSeconds(15);
    /** The velocity keys' deletion waits at most this long (some 10,000 keys; a busy Redis took over 1 s). */
    private static final long CLEAN_UP_MILLIS = 10_000;
    private static final String[] MCCS = {"5411", "7995", "5999", "4829", "6011", "5812", "5732"};
    private static final String[] COUNTRIES = {"DE", "US", "FR", "GB", "NL", "BR"};
    // Values in the forms callers send (upper case) and some in others: a branch, a string comparison or
    // a regex the warm-up never took is compiled without it, and the first real transaction that takes
    // it deoptimises the compiled method (an "uncommon trap": interpreted until compiled again). Seen
    // right after ready with real traffic: 39 decision-path methods in 5 s (TransactionReader.read,
    // Node$TextRegex.eval, DecisionPath$Request.answer...), when the warm-up sent none of the fields
    // below (docs/adr/0025-redis-cpu-weight.md, "Not settled").
    private static final String[] ENTRY_MODES = {"CHIP", "CONTACTLESS", "ECOM", "MANUAL", "SWIPE", "chip", "ecommerce"};
    private static final String[] TRANSACTION_TYPES = {"PURCHASE", "PURCHASE", "REFUND", "CASH_ADVANCE", "QUASI_CASH"};
    private static final String[] MERCHANTS = {"GROCERY", "DIRECT_MARKETING", "GIFT CARD SHOP", "TRAVEL", "DIGITAL_GOODS"};
    private static final String[] NETWORKS = {"VISA", "MASTERCARD", "AMEX", "DISCOVER"};
    private static final String[] CURRENCIES = {"EUR", "USD", "GBP", "JPY"};
    private static final String[] EMAILS = {"@example.org", "@mailinator.com", "@example.ru"};
    private static final String[] PHONES = {"+33612345678", "+2348012345678", "+14155550100"};
    private static final String[] POSTAL_CODES = {"75001", "97230", "10115", "SW1A 1AA"};
    private static final String[] THREE_DS = {"AUTHENTICATED", "FAILED", "NOT_ATTEMPTED", "UNAVAILABLE", "ATTEMPTED", "NOT_ENROLLED"};
    private static final double[] AMOUNTS = {4.5, 19.99, 150, 720, 2500, 9800, 137.4, 48210.07, 365000.5};

    @Inject
    VigilConfig config;
    @Inject
    VelocityConfig velocityConfig;
    @Inject
    Instance<RedisVelocityStore> velocityStore;
    @Inject
    DecisionPath decisions;
    @Inject
    RulesetRegistry rulesets;
    @Inject
    Vertx vertx;
    @Inject
    WarmUpToken token;
    @Inject
    MeterRegistry meters;
    @Inject
    Instance<OutboxSink> sinks;

    private final TransactionReader reader = new TransactionReader();
    private volatile State state = State.WAITING;
    private volatile int decisionsRun;
    private volatile int normalInARow;
    private volatile int httpDecisionsRun;
    /** Warm-up requests through the data port that got no answer within {@link #ANSWER_WAIT}. */
    private final AtomicInteger httpUnanswered = new AtomicInteger();
    private volatile Thread thread;
    private boolean cleanedUp;
    /** A warm-up decision was shed for want of room in the warm-up's outbox: the loop pauses. */
    private volatile boolean shedSeen;
    private static final long SHED_PAUSE_MILLIS = 5;
    private volatile long velocityWrites;
    private volatile long velocityKeysDeleted;
    private volatile long garbageCollectionMillis = -1;
    private volatile long outboxEntries;
    /** The last phase, decisions until the JIT is quiet (ADR 0029); null until it ended, or when off. */
    private volatile JitQuietPhase jitQuiet;
    /** How long the warm-up took, clean-up included (s); 0 until it ended. */
    private volatile double seconds;

    enum State { WAITING, RUNNING, DONE, OFF }

    void start(@Observes StartupEvent event) {
        if (!config.engine().warmUp().enabled()) {
            token.retire();
            state = State.OFF;
            return;
        }
        Gauge.builder("vigil.warm.up.seconds", this, w -> w.seconds)
                .description("How long the warm-up before readiness took, clean-up included (0 until it ended)")
                .register(meters);
        Gauge.builder("vigil.warm.up.jit.quiet", this, w -> w.jitQuietOutcome().gauge)
                .description("Whether readiness came with the JIT quiet: 1 quiet, 0 at the cap with the JIT still compiling, -1 not waited for")
                .register(meters);
        Gauge.builder("vigil.warm.up.jit.quiet.seconds", this, w -> w.jitQuiet == null ? 0 : w.jitQuiet.seconds())
                .description("How long the warm-up went on for the JIT to be quiet (s)")
                .register(meters);
        Thread t = new Thread(this::run, "vigil-warm-up");
        t.setDaemon(true);
        thread = t;
        t.start();
    }

    void stop(@Observes ShutdownEvent event) {
        Thread t = thread;
        if (t != null) {
            t.interrupt();
        }
    }

    State state() {
        return state;
    }

    int decisionsRun() {
        return decisionsRun;
    }

    int normalInARow() {
        return normalInARow;
    }

    int httpDecisionsRun() {
        return httpDecisionsRun;
    }

    /** Warm-up requests through the data port not answered within {@link #ANSWER_WAIT} (each is logged with its path). */
    int httpUnanswered() {
        return httpUnanswered.get();
    }

    /** Warm-up velocity calls that wrote (to warm-up keys). */
    long velocityWrites() {
        return velocityWrites;
    }

    JitQuietPhase.Outcome jitQuietOutcome() {
        JitQuietPhase phase = jitQuiet;
        return phase == null ? JitQuietPhase.Outcome.NOT_RUN : phase.outcome();
    }

    /** Decisions through the data port while waiting for the JIT to be quiet. */
    long jitQuietDecisions() {
        JitQuietPhase phase = jitQuiet;
        return phase == null ? 0 : phase.decisions();
    }

    /** The JVM's compilation time (ms) while waiting for the JIT to be quiet. */
    long jitQuietCompilationMillis() {
        JitQuietPhase phase = jitQuiet;
        return phase == null ? 0 : phase.compilationMillis();
    }

    /** Milliseconds of the full collection before ready; -1 when none ran. */
    long garbageCollectionMillis() {
        return garbageCollectionMillis;
    }

    /**
     * One full collection while not yet ready (VigilConfig.WarmUp#collectGarbage). Explicit GC must not be
     * disabled for this ({@code -XX:+DisableExplicitGC} turns it into a no-op; the pause is then ~0).
     */
    private void collectGarbage() {
        long t0 = System.nanoTime();
        System.gc();
        garbageCollectionMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        LOG.infof("warm-up: full garbage collection before ready in %d ms (heap used after: %d MB)",
                garbageCollectionMillis, (Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory()) >> 20);
    }

    /** Warm-up keys deleted when the warm-up ended. */
    long velocityKeysDeleted() {
        return velocityKeysDeleted;
    }

    /** Warm-up decision events the outbox's writer appended to the warm-up stream (deleted since). */
    long outboxEntries() {
        return outboxEntries;
    }

    /** Warm-up answers whose metrics were recorded, in a registry apart from the exported one. */
    long answersRecordedApart() {
        return decisions.warmUpAnswersRecorded();
    }

    /** True once warm (or warm-up is off). */
    public boolean warm() {
        State s = state;
        return s == State.DONE || s == State.OFF;
    }

    private void run() {
        VigilConfig.WarmUp settings = config.engine().warmUp();
        long start = System.nanoTime();
        long deadline = start + settings.maxDuration().toNanos();
        try {
            // what readiness waits for anyway: the AUTH ruleset, and Redis having answered once
            while (!rulesets.current().has(DecisionPath.AUTH_KEY)
                    || (velocityConfig.enabled() && !velocityStore.get().answeredOnce())) {
                if (System.nanoTime() > deadline) {
                    LOG.warn("warm-up: no AUTH ruleset or no velocity answer yet; ready without warm-up");
                    return;
                }
                Thread.sleep(50);
            }
            state = State.RUNNING;
            decisions.startWarmUp();
            Context context = vertx.getOrCreateContext();
            Semaphore slots = new Semaphore(Math.max(1, settings.concurrency()));
            AtomicInteger streak = new AtomicInteger();
            int i = 0;
            while (i < settings.decisions() || streak.get() < settings.normalStreak()) {
                if (System.nanoTime() > deadline) {
                    // still through the data port: the HTTP stack is what a busy node's first callers
                    // otherwise meet cold (the start bench at load 23 skipped it: 1,279 compilations in
                    // the first 10 s after ready, the route's among them)
                    LOG.warnf("warm-up: %d decisions in %s, the last %d in a row NORMAL (target %d); through the data"
                                    + " port, then ready anyway", i, settings.maxDuration(), streak.get(), settings.normalStreak());
                    break;
                }
                slots.acquire();
                awaitVelocityRoom(slots, Math.max(1, settings.concurrency()), deadline);
                if (shedSeen) {
                    shedSeen = false;
                    Thread.sleep(SHED_PAUSE_MILLIS);
                }
                int n = i++;
                context.runOnContext(v -> decide(n, slots, streak));
                decisionsRun = i;
                normalInARow = streak.get();
            }
            awaitAnswers(slots, Math.max(1, settings.concurrency()), "in-process"); // the last ones
            normalInARow = streak.get();
            int overHttp = throughTheDataPort(settings, System.nanoTime() + HTTP_PHASE_MAX.toNanos());
            cleanUp();
            if (settings.collectGarbage()) {
                collectGarbage();
            }
            LOG.infof("warm-up: %d synthetic decisions in %d ms (%d of them through the data port, %d until the JIT was quiet: %s),"
                            + " the last %d in a row NORMAL; %d velocity writes on %d warm-up keys and %d events in %s, then deleted; ready",
                    i + overHttp, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), overHttp, jitQuietDecisions(),
                    jitQuietOutcome().name().toLowerCase(Locale.ROOT), streak.get(),
                    velocityWrites, velocityKeysDeleted, outboxEntries, outboxStream());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (state == State.RUNNING) {
                cleanUp(); // the time-out and interrupt paths: still nothing left behind
            }
            seconds = (System.nanoTime() - start) / 1e9;
            token.retire(); // before ready: from now on no request is a warm-up request
            state = State.DONE;
        }
    }

    /**
     * Holds the warm-up's decisions under way (this one included) to the velocity limiter's adaptive
     * limit, waiting (polling, bounded by the warm-up's deadline) while they would exceed it. A call past
     * the limit is shed at once: on a busy machine (the limit at its minimum, below the warm-up's
     * concurrency) the loop otherwise spun through hundreds of thousands of instant DEGRADED answers,
     * each resetting the NORMAL streak, none warming the Redis path (seen on the start bench at load 24,
     * and in WarmUpTest with a limit of 4). The decisions under way are counted rather than the store's
     * calls in flight: a dispatched decision reaches the store only when the event loop runs it.
     */
    /**
     * Waits for the warm-up's decisions under way to be answered, at most {@link #ANSWER_WAIT}: a
     * warm-up must end in its time whatever happens to one of its decisions (the quiet start bench once
     * saw one request through the data port never answered, and readiness waited for it for good).
     */
    private static void awaitAnswers(Semaphore slots, int concurrency, String phase) throws InterruptedException {
        if (!slots.tryAcquire(concurrency, ANSWER_WAIT.toNanos(), TimeUnit.NANOSECONDS)) {
            LOG.warnf("warm-up: %d %s decisions not answered within %s; going on without them",
                    concurrency - slots.availablePermits(), phase, ANSWER_WAIT);
        }
    }

    private void awaitVelocityRoom(Semaphore slots, int concurrency, long deadline) throws InterruptedException {
        if (!velocityConfig.enabled()) {
            return;
        }
        RedisVelocityStore store = velocityStore.get();
        while (concurrency - slots.availablePermits() > store.limit() && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
    }

    /**
     * Deletes what the warm-up wrote: its outbox stream (after its writer wrote what it held) and its
     * velocity keys. Runs once, after every warm-up decision was answered; each step is bounded (the
     * outbox's shutdown timeout, the velocity timeout).
     */
    private void cleanUp() {
        if (cleanedUp) {
            return;
        }
        cleanedUp = true;
        outboxEntries = decisions.endWarmUp();
        if (!velocityConfig.enabled()) {
            return;
        }
        RedisVelocityStore store = velocityStore.get();
        velocityWrites = store.warmUpWrites();
        if (store.warmUpKeysForgotten() > 0) {
            LOG.warnf("warm-up: %d of its velocity keys (%s*) were not kept for deletion; they expire with their windows",
                    store.warmUpKeysForgotten(), WarmUpKeys.PREFIX);
        }
        try {
            // a call answered by its deadline may still be on its way to Redis: let it land first
            long until = System.nanoTime() + velocityConfig.timeout().toNanos();
            while (store.inFlight() > 0 && System.nanoTime() < until) {
                Thread.sleep(10);
            }
            velocityKeysDeleted = store.endWarmUp().toCompletableFuture()
                    .get(CLEAN_UP_MILLIS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            LOG.warnf("warm-up: its velocity keys (%s*) were not all deleted (%s); they expire with their windows",
                    WarmUpKeys.PREFIX, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private String outboxStream() {
        return sinks.isResolvable() ? sinks.get().warmUpStream() : "no stream (outbox off)";
    }

    /**
     * The HTTP phase: synthetic decisions sent to the engine's own data port on loopback, through the
     * real route, marked with this process' {@link WarmUpToken} so they stay warm-up decisions. The
     * in-process phase leaves the HTTP server's code, its request contexts and the route cold; the first
     * real requests then ran interpreted and deoptimised compiled code by the hundred on a machine
     * they saturated (docs/performance.md, "The engine's first minute"). Over TLS when the data port
     * serves TLS, as callers reach it; with caller authentication on, the token stands in for the
     * caller's credential (from loopback, while the warm-up runs: docs/adr/0024-warm-up-through-authenticated-port.md).
     */
    private int throughTheDataPort(VigilConfig.WarmUp settings, long deadline) throws InterruptedException {
        if (settings.httpDecisions() <= 0 && !settings.jitQuiet().enabled()) {
            return 0;
        }
        DataPort target = DataPort.find();
        if (target == null) {
            LOG.info("warm-up: not through the data port (no port found)");
            return 0;
        }
        int port = target.port;
        int concurrency = Math.max(1, settings.concurrency());
        // trustAll: the peer is this process' own listening socket on loopback, not a server to authenticate;
        // what goes over it is synthetic and the token dies with the warm-up (ADR 0024)
        HttpClient client = vertx.createHttpClient(new HttpClientOptions().setDefaultHost("127.0.0.1").setDefaultPort(port)
                .setSsl(target.tls).setTrustAll(target.tls).setVerifyHost(false)
                .setKeepAlive(true), new PoolOptions().setHttp1MaxSize(concurrency));
        Semaphore slots = new Semaphore(concurrency);
        AtomicInteger answered = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        Map<Integer, PortRequest> open = new ConcurrentHashMap<>();
        JitQuietPhase gate = JitQuietPhase.of(settings.jitQuiet());
        try {
            for (int i = 0; ; i++) {
                // the counted decisions within the phase's bound, then more until the JIT is quiet (or its own cap)
                if ((i >= settings.httpDecisions() || System.nanoTime() >= deadline)
                        && (gate == null || gate.done(answered.get()))) {
                    break;
                }
                slots.acquire();
                int n = 1_000_000 + i;
                boolean monitoring = monitoringTurn(n);
                PortRequest sent = new PortRequest(n, monitoring ? DataRoutes.MONITORING : DataRoutes.AUTH);
                open.put(n, sent);
                Buffer body = Buffer.buffer(body(n, monitoring));
                client.request(new RequestOptions().setMethod(HttpMethod.POST).setURI(sent.uri)
                                .setIdleTimeout(ANSWER_WAIT.toMillis()))
                        .compose(request -> {
                            sent.stage = "sent, no response head";
                            // header names as callers write them: Title-Case (Go's net/http, curl, the bench's
                            // generator) on every other request, lower case (Vert.x's and Netty's clients) on the
                            // rest; Netty's header parsing compared only lower-case names before ready otherwise
                            if (n % 2 == 1) {
                                request.putHeader("Content-Type", "application/json")
                                        .putHeader("Content-Length", String.valueOf(body.length()));
                            } else {
                                request.putHeader(HttpHeaders.CONTENT_TYPE, "application/json");
                            }
                            return request.putHeader(WarmUpToken.HEADER, token.value()).send(body);
                        })
                        .compose(response -> {
                            // the request's idle timeout ends with the head (Vert.x 4.5): the body has its own bound below
                            sent.stage = "response head HTTP " + response.statusCode() + " received, its body never ended";
                            return response.body().map(b -> response.statusCode());
                        })
                        .timeout(ANSWER_WAIT.toMillis(), TimeUnit.MILLISECONDS)
                        .onComplete(result -> {
                            open.remove(n);
                            if (result.succeeded() && result.result() == 200) {
                                httpDecisionsRun = answered.incrementAndGet();
                            } else if (result.failed() && result.cause() instanceof TimeoutException) {
                                httpUnanswered.incrementAndGet();
                                LOG.warnf("warm-up request through the data port not answered within %s: %s", ANSWER_WAIT, sent);
                            } else if (failed.getAndIncrement() == 0) {
                                LOG.warnf("warm-up through the data port (%s://127.0.0.1:%d): %s (%s)", target.tls ? "https" : "http", port,
                                        result.succeeded() ? "HTTP " + result.result() : result.cause(), sent);
                            }
                            slots.release();
                        });
            }
            awaitAnswers(slots, concurrency, "data-port");
            if (gate != null) {
                jitQuiet = gate;
            }
            for (PortRequest r : open.values()) {
                LOG.warnf("warm-up request through the data port still open: %s", r); // each has its own bound: never seen
            }
        } finally {
            client.close();
        }
        return answered.get();
    }

    /**
     * One warm-up request through the data port and how far it got, which is what the log names when
     * it is not answered: on the quiet machine (00:54) one of 4,000 was never answered while the engine
     * had recorded an answer for every one, and nothing said where it stopped (issue 22).
     */
    static final class PortRequest {
        final int n;
        final String uri;
        volatile String stage = "waiting for a connection";

        PortRequest(int n, String uri) {
            this.n = n;
            this.uri = uri;
        }

        @Override
        public String toString() {
            return "POST " + uri + " (transaction vigil-warm-up-" + n + "): " + stage;
        }
    }

    /**
     * Where the warm-up reaches the data port: its TLS port when the data port serves TLS (a TLS
     * configuration is named, or plain requests are disabled or redirected), as callers reach it; else the
     * plain port. Quarkus sets the system property to the port it bound when the configured one is 0
     * (random, as in tests).
     */
    record DataPort(int port, boolean tls) {
        static DataPort find() {
            Config c = ConfigProvider.getConfig();
            String insecure = c.getOptionalValue("quarkus.http.insecure-requests", String.class).orElse("enabled");
            boolean tls = !"enabled".equalsIgnoreCase(insecure)
                    || c.getOptionalValue("quarkus.http.tls-configuration-name", String.class).filter(n -> !n.isBlank()).isPresent();
            boolean test = LaunchMode.current() == LaunchMode.TEST;
            String key = tls ? (test ? "quarkus.http.test-ssl-port" : "quarkus.http.ssl-port")
                    : (test ? "quarkus.http.test-port" : "quarkus.http.port");
            String bound = System.getProperty(key);
            int port = bound != null ? Integer.parseInt(bound) : c.getOptionalValue(key, Integer.class).orElse(-1);
            return port > 0 ? new DataPort(port, tls) : null;
        }
    }

    /** One synthetic decision on the event loop: parse, decide, render, like a request. */
    private void decide(int n, Semaphore slots, AtomicInteger streak) {
        boolean monitoring = monitoringTurn(n);
        try {
            Transaction txn = reader.read(body(n, monitoring));
            Outcome caller = monitoring ? CallerDecision.of(txn) : null;
            decisions.warm(monitoring ? EvaluationType.MONITORING : EvaluationType.AUTH, txn, caller, record -> {
                AnswerJson.write(JsonWriter.get(), record, n % 2 == 0).toBuffer();
                count(record, streak);
                slots.release();
            });
        } catch (InvalidTransactionException | RuntimeException e) {
            LOG.debugf(e, "warm-up decision %d failed", n);
            streak.set(0);
            slots.release();
        }
    }

    private void count(DecisionRecord record, AtomicInteger streak) {
        if (record.errorCode() == EngineErrorCode.LOAD_SHED) {
            // no room in the warm-up's outbox: its writer is behind this closed loop, which runs faster
            // than any real traffic it prepares for. Neither NORMAL nor a failure of the path: the loop
            // pauses (a shed answer is instant, and it spun through ~900,000 of them at load 14)
            shedSeen = true;
            return;
        }
        // with velocity off (vigil.velocity.enabled=false) nothing can be NORMAL: JIT is all there is to warm
        if (record.mode() == EngineMode.NORMAL || !velocityConfig.enabled()) {
            streak.incrementAndGet();
        } else {
            streak.set(0);
        }
    }

    /**
     * A synthetic transaction: fields and values vary so that every branch of the rulesets and the
     * velocity call shapes they make (which dimensions a transaction carries) are taken.
     */
    /** Every fifth warm-up decision goes to MONITORING when a monitoring ruleset is loaded (both phases alike). */
    private boolean monitoringTurn(int n) {
        return n % 5 == 4 && rulesets.current().has(DecisionPath.MONITORING_KEY);
    }

    static byte[] body(int n, boolean monitoring) {
        StringBuilder b = new StringBuilder(512);
        b.append("{\"transaction_id\":\"vigil-warm-up-").append(n).append('"');
        b.append(",\"card_hash\":\"vigil-warm-up-card-").append(n % 997).append('"');
        double amount = AMOUNTS[n % AMOUNTS.length];
        // an integer on the wire too (1500, not 1500.00): the number parser has a path for each
        // and in the other forms a JSON number may take (callers' serialisers differ: 137.4, 1.5E3, 19.990000):
        // Jackson's number parsing and Double.toString have a branch for each
        b.append(",\"amount\":").append(switch (n % 7) {
            case 6 -> String.valueOf((long) amount);
            case 5 -> String.valueOf(amount);
            case 4 -> n % 2 == 0 ? String.format(Locale.ROOT, "%.6f", amount) : String.format(Locale.ROOT, "%.3E", amount);
            default -> String.format(Locale.ROOT, "%.2f", amount);
        });
        b.append(",\"currency\":\"").append(CURRENCIES[n % CURRENCIES.length]).append('"');
        b.append(",\"merchant_id\":\"vigil-warm-up-merchant-").append(n % 31).append('"');
        String merchant = MERCHANTS[n % MERCHANTS.length];
        b.append(",\"merchant_name\":\"VIGIL WARM-UP ").append(merchant).append(' ').append(n % 53).append('"');
        b.append(",\"merchant_category\":\"").append(merchant.replace(' ', '_')).append('"');
        b.append(",\"merchant_category_code\":\"").append(MCCS[n % MCCS.length]).append('"');
        b.append(",\"card_present\":").append(n % 3 == 0);
        if (n % 6 != 5) {
            b.append(",\"transaction_type\":\"").append(TRANSACTION_TYPES[n % TRANSACTION_TYPES.length]).append('"');
        }
        b.append(",\"entry_mode\":\"").append(ENTRY_MODES[n % ENTRY_MODES.length]).append('"');
        b.append(",\"country_code\":\"").append(COUNTRIES[n % COUNTRIES.length]).append('"');
        b.append(",\"card_network\":\"").append(NETWORKS[n % NETWORKS.length]).append('"');
        b.append(",\"card_bin\":\"").append(411111 + n % 9 * 10000).append('"');
        b.append(",\"card_logo\":\"").append(n % 2 == 0 ? "CLASSIC" : "PLATINUM").append('"');
        b.append(n % 5 == 1 ? ",\"occurred_at\":\"" : ",\"timestamp\":\"").append(timestamp(n)).append('"');
        if (n % 4 != 3) {
            b.append(",\"device_id\":\"vigil-warm-up-device-").append(n % 211).append('"');
        }
        if (n % 4 != 2) {
            b.append(",\"ip_address\":\"10.").append(n % 250).append(".0.").append(n % 7).append('"');
        }
        if (n % 4 != 1) {
            // local parts short and long, with digits (the rulesets' email regexes, e.g. ^[a-z]{1,3}[0-9]{5,}@, take
            // other paths through re2j on "u1a" or "ab12345" than on a long name)
            String local = switch (n % 3) {
                case 0 -> "u" + Integer.toString(n % 5000, 36);
                case 1 -> "ab" + (10000 + n % 90000);
                default -> "vigil-warm-up-" + n % 101;
            };
            b.append(",\"email\":\"").append(local).append(EMAILS[n % EMAILS.length]).append('"');
        }
        if (n % 3 != 2) {
            b.append(",\"phone\":\"").append(PHONES[n % PHONES.length]).append('"');
        }
        if (n % 5 != 4) {
            address(b, "billing_address", n);
        }
        if (n % 5 != 3) {
            address(b, "shipping_address", n + 1);
        }
        if (n % 6 == 1) {
            // only some of them, in another order, a score with decimals: rules on an absent custom field
            b.append(",\"custom_fields\":{\"three_ds_result\":\"").append(THREE_DS[n % THREE_DS.length])
                    .append("\",\"risk_score\":").append(n % 100).append(".25}");
        } else if (n % 6 != 4) {
            b.append(",\"custom_fields\":{\"risk_score\":").append(n * 7 % 100)
                    .append(",\"three_ds_result\":\"").append(THREE_DS[n % THREE_DS.length]).append('"')
                    .append(",\"account_age_days\":").append(n % 4 == 0 ? 1 : 400)
                    .append(",\"first_purchase\":").append(n % 4 == 1)
                    .append(",\"channel\":\"").append(n % 2 == 0 ? "app" : "web").append("\"}");
        }
        if (monitoring) {
            b.append(",\"decision\":\"").append(n % 3 == 0 ? "DECLINE" : "APPROVE").append('"');
        }
        b.append('}');
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * An RFC 3339 time in the forms callers send: every month (the reader's check of the day has a branch
     * for 28/29-, 30- and 31-day months, and a warm-up only in January left the 30-day one to the first
     * real transaction of November: FieldForms.isRfc3339 deoptimised after ready), the month's last day,
     * a leap year's February, milliseconds (most), none or microseconds, "Z" or an offset.
     */
    static String timestamp(int n) {
        int year = n % 8 == 5 ? 2028 : 2026; // with n % 12 == 1 and n % 10 == 9: February 29th
        int month = 1 + n % 12;
        int last = switch (month) {
            case 2 -> year % 4 == 0 ? 29 : 28;
            case 4, 6, 9, 11 -> 30;
            default -> 31;
        };
        int day = n % 10 == 9 ? last : 1 + n % 28;
        String fraction = switch (n % 9) {
            case 7 -> String.format(Locale.ROOT, ".%06d", (long) n * 7919 % 1_000_000);
            case 8 -> "";
            default -> String.format(Locale.ROOT, ".%03d", n % 1000);
        };
        String zone = switch (n % 10) {
            case 3 -> "+02:00";
            case 6 -> "-05:00";
            default -> "Z";
        };
        return String.format(Locale.ROOT, "%04d-%02d-%02dT%02d:%02d:%02d", year, month, day, n % 24, n % 60, n * 7 % 60)
                + fraction + zone;
    }

    private static void address(StringBuilder b, String name, int n) {
        b.append(",\"").append(name).append("\":{\"city\":\"").append(n % 3 == 0 ? "Lagos" : "Lyon").append("\",\"country\":\"")
                .append(n % 11 == 0 ? "RU" : COUNTRIES[n % COUNTRIES.length])
                .append("\",\"postal_code\":\"").append(POSTAL_CODES[n % POSTAL_CODES.length]).append('"');
        if (n % 2 == 0) {
            b.append(",\"state\":\"").append(n % 4 == 0 ? "ARA" : "IDF").append('"');
        }
        b.append('}');
    }
}
