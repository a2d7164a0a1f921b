package io.vigil.engine.velocity;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisOptions;
import io.vigil.rules.velocity.VelocityRequest;
import io.vigil.rules.velocity.VelocityResults;
import io.vigil.rules.velocity.VelocityStore;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Typed;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.time.InstantSource;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The velocity store on Redis: {@link VelocityScriptClient} behind a {@link VelocityGuard} (circuit
 * breaker and adaptive concurrency limit), with metrics.
 *
 * <p>One time bound per request: the decision path's deadline. The store adds no timer per call; a
 * periodic check ({@code vigil.velocity.timeout}/4) opens the breaker when calls are in flight and
 * Redis has answered nothing for {@code vigil.velocity.timeout} (frozen, or unreachable without an
 * error).
 *
 * <p>Never throws and never completes exceptionally: every failure is an
 * {@link VelocityResults#unavailable(String)} answer, which the engine reports as DEGRADED /
 * VELOCITY_UNAVAILABLE and handles with its failure policy.
 *
 * <p>{@code @Typed}: this bean is not itself a {@link VelocityStore} candidate;
 * {@link VelocityStoreProducer} decides (Redis when {@code vigil.velocity.enabled}, else none).
 */
@ApplicationScoped
@Typed(RedisVelocityStore.class)
public class RedisVelocityStore implements VelocityStore {

    private static final Logger LOG = Logger.getLogger(RedisVelocityStore.class);

    /** Round-trip histogram boundaries: fine below 1 ms, where a healthy local Redis answers. */
    static final Duration[] ROUND_TRIP_BUCKETS = {
            micros(50), micros(100), micros(150), micros(200), micros(300), micros(400), micros(500), micros(750),
            Duration.ofMillis(1), micros(1500), Duration.ofMillis(2), Duration.ofMillis(3), Duration.ofMillis(5),
            Duration.ofMillis(10), Duration.ofMillis(25), Duration.ofMillis(50), Duration.ofMillis(100),
            Duration.ofMillis(250)};

    static final VelocityResults CIRCUIT_OPEN = VelocityResults.unavailable("velocity circuit breaker open");
    static final VelocityResults SHED = VelocityResults.unavailable("velocity concurrency limit reached (overload)");

    @Inject
    VelocityConfig config;
    @Inject
    Vertx vertx;
    @Inject
    Redis redis;
    @Inject
    InstantSource clock;
    @Inject
    MeterRegistry registry;
    @Inject
    VelocityRedisOptions redisOptions;
    @ConfigProperty(name = "quarkus.redis.client-type", defaultValue = "standalone")
    String clientType;

    private VelocityScriptClient client;
    private VelocityGuard guard;
    private long watchdog = -1;
    private long pulse = -1;
    private long lastTick;
    private long lastPulse;
    private final AtomicInteger circuitState = new AtomicInteger(0);
    private final AtomicBoolean answered = new AtomicBoolean();
    private final AtomicLong lastAnsweredMillis = new AtomicLong();
    private final WarmUpKeys warmUpKeys = new WarmUpKeys();
    private final LongAdder warmUpWrites = new LongAdder();
    private final VelocityStore traffic = new Keyspace(null, new LongAdder());
    private final VelocityStore warmUp = new Keyspace(warmUpKeys, warmUpWrites);
    private Timer writeRoundTrip;
    private Timer readRoundTrip;
    private Counter redisErrors;
    private Counter replyErrors;
    private Counter circuitOpenRefusals;
    private Counter shed;
    private Counter silences;
    private Counter expired;
    private boolean probeHoldsRequest;

    @PostConstruct
    void init() {
        boolean cluster = "cluster".equalsIgnoreCase(clientType);
        // Quarkus builds its Redis clients (and calls the customizer) at runtime init, before this bean
        RedisOptions laneOptions = redisOptions.velocity();
        if (laneOptions == null && !cluster) {
            LOG.warn("velocity store: the Redis client's options were not seen; every call goes through the pooled client");
        }
        client = VelocityScriptClient.withLanes(vertx, redis, cluster, config.bucketsPerWindow(), config.distinctCap(),
                laneOptions, config.idempotencyWindow());
        VelocityConfig.CircuitBreaker cb = config.circuitBreaker();
        VelocityConfig.Limit limit = config.limit();
        probeHoldsRequest = cb.probeHoldsRequest();
        guard = new VelocityGuard(cb.requestVolume(), cb.failureRatio(), cb.delay().toNanos(), cb.successThreshold(),
                limit.targetRoundTrip().toNanos(), limit.min(), limit.max(), this::circuitChanged);
        long silence = config.timeout().toNanos();
        long period = Math.max(1, config.timeout().toMillis() / 4);
        lastTick = System.nanoTime();
        watchdog = vertx.setPeriodic(period, id -> watch(silence, TimeUnit.MILLISECONDS.toNanos(period)));
        long target = limit.targetRoundTrip().toNanos();
        lastPulse = System.nanoTime();
        pulse = vertx.setPeriodic(PULSE_MILLIS, id -> pulse(target));

        writeRoundTrip = roundTrip("count");
        readRoundTrip = roundTrip("read_only");
        redisErrors = errors("redis");
        replyErrors = errors("reply");
        circuitOpenRefusals = errors("circuit_open");
        shed = errors("shed");
        silences = Counter.builder("vigil.velocity.timeouts")
                .description("Times Redis answered nothing for vigil.velocity.timeout with calls in flight (each opens the breaker)")
                .register(registry);
        expired = Counter.builder("vigil.velocity.expired")
                .description("Velocity calls still unanswered after vigil.velocity.timeout: no longer counted in flight"
                        + " (their requests were answered at their deadline long before)")
                .register(registry);
        Gauge.builder("vigil.velocity.circuit.state", circuitState, AtomicInteger::get)
                .description("Velocity circuit breaker: 0 closed, 1 half-open (probing), 2 open (not calling Redis)")
                .register(registry);
        Gauge.builder("vigil.velocity.limit", guard, VelocityGuard::limit)
                .description("Velocity calls allowed in flight (adaptive: shrinks when round trips exceed vigil.velocity.limit.target-round-trip)")
                .register(registry);
        Gauge.builder("vigil.velocity.in.flight", guard, VelocityGuard::inFlight)
                .description("Velocity calls in flight")
                .register(registry);
        Gauge.builder("vigil.velocity.connections", client, VelocityScriptClient::lanes)
                .description("Event loops with a velocity connection of their own (one each once they sent a call)")
                .register(registry);
        FunctionCounter.builder("vigil.velocity.keys.touched", client, VelocityScriptClient::keysTouched)
                .description("Redis keys and arguments named by velocity script calls")
                .register(registry);
        LOG.infof("velocity store: Redis (%s), silence timeout %s, %d buckets per window, distinct cap %d, breaker %d calls / %.2f ratio / %s delay, limit %d..%d in flight (target round trip %s)",
                cluster ? "cluster" : "standalone", config.timeout(), config.bucketsPerWindow(), config.distinctCap(),
                cb.requestVolume(), cb.failureRatio(), cb.delay(), limit.min(), limit.max(), limit.targetRoundTrip());
    }

    /** How often the event loop's punctuality is sampled (ms). */
    static final long PULSE_MILLIS = 10;
    /** The limit ignores slow round trips this long after the event loop was seen late. */
    static final long BUSY_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    /**
     * Watchdog tick: first end the calls that waited longer than {@code silence} (lost, or on a Redis
     * frozen for good; they cannot help anyone now), then look for silence among the calls that can
     * still be answered. A tick that came late means the engine itself was not running: the silence is
     * the machine's, and the count restarts.
     */
    private void watch(long silence, long periodNanos) {
        long now = System.nanoTime();
        boolean late = now - lastTick > 2 * periodNanos;
        lastTick = now;
        int gone = guard.expire(now, silence);
        if (gone > 0) {
            expired.increment(gone);
        }
        int before = circuitState.get();
        guard.silentFor(now, silence, late);
        if (before != 2 && circuitState.get() == 2) {
            silences.increment();
        }
    }

    /**
     * Samples the punctuality of one event loop every {@link #PULSE_MILLIS}: late by more than the
     * target round trip means the machine (or this JVM) is busy, and slow round trips meanwhile are
     * not Redis queueing (ADR 0010).
     */
    private void pulse(long target) {
        long now = System.nanoTime();
        long lateBy = now - lastPulse - TimeUnit.MILLISECONDS.toNanos(PULSE_MILLIS);
        lastPulse = now;
        if (lateBy > target) {
            guard.busy(now + BUSY_NANOS);
        }
    }

    @PreDestroy
    void close() {
        if (watchdog >= 0) {
            vertx.cancelTimer(watchdog);
        }
        if (pulse >= 0) {
            vertx.cancelTimer(pulse);
        }
        if (client != null) {
            client.close();
        }
    }

    private Timer roundTrip(String mode) {
        return Timer.builder("vigil.velocity.round.trip")
                .description("Velocity script round trip (all checks of one transaction), answered calls only")
                .tag("mode", mode)
                .serviceLevelObjectives(ROUND_TRIP_BUCKETS)
                .register(registry);
    }

    private Counter errors(String reason) {
        return Counter.builder("vigil.velocity.errors")
                .description("Velocity requests answered unavailable, by reason (timeouts are counted in vigil.velocity.timeouts)")
                .tag("reason", reason)
                .register(registry);
    }

    private void circuitChanged(VelocityGuard.State state) {
        circuitState.set(switch (state) {
            case CLOSED -> 0;
            case HALF_OPEN -> 1;
            case OPEN -> 2;
        });
        if (state == VelocityGuard.State.OPEN) {
            LOG.warnf("velocity circuit breaker OPEN: not calling Redis for %s, then probing", config.circuitBreaker().delay());
        } else {
            LOG.infof("velocity circuit breaker %s", state);
        }
    }

    @Override
    public CompletionStage<VelocityResults> check(VelocityRequest request) {
        return check(request, null);
    }

    /**
     * The warm-up's call (docs/adr/0020-warm-up-depth.md): the real path, guard, scripts, writes and
     * metrics included, on the warm-up's stand-ins of the keys ({@link WarmUpKeys}), which
     * {@link #endWarmUp} deletes.
     */
    @Override
    public CompletionStage<VelocityResults> checkWarmUp(VelocityRequest request) {
        return warmUp.check(request);
    }

    @Override
    public VelocityStore forTraffic() {
        return traffic;
    }

    @Override
    public VelocityStore forWarmUp() {
        return warmUp;
    }

    /**
     * This store on one set of keys: the real ones, or the warm-up's. Both sides are this one class, so
     * the decision path's call compiles for one class and does not deoptimise at ready (docs/adr/0029).
     */
    private final class Keyspace implements VelocityStore {
        /** Null: the real keys. */
        private final WarmUpKeys namespace;
        /** Calls that wrote (counted on both sides, read for the warm-up's). */
        private final LongAdder writes;

        Keyspace(WarmUpKeys namespace, LongAdder writes) {
            this.namespace = namespace;
            this.writes = writes;
        }

        @Override
        public CompletionStage<VelocityResults> check(VelocityRequest request) {
            if (!request.readOnly()) {
                writes.increment();
            }
            return RedisVelocityStore.this.check(request, namespace);
        }
    }

    /** Velocity calls allowed in flight now (the adaptive limit). */
    public int limit() {
        return guard.limit();
    }

    /** Velocity calls in flight (admitted, not yet answered or expired). */
    public int inFlight() {
        return guard.inFlight();
    }

    /** Warm-up keys not remembered for deletion (past {@link WarmUpKeys#MAX_REMEMBERED}): left to their TTL. */
    public long warmUpKeysForgotten() {
        return warmUpKeys.forgotten();
    }

    /** Warm-up velocity calls that wrote (to warm-up keys). */
    public long warmUpWrites() {
        return warmUpWrites.sum();
    }

    /**
     * Deletes the warm-up's keys (those named so far); completes with how many, or exceptionally when
     * Redis refused. Call it once the warm-up's calls were answered.
     */
    public CompletionStage<Integer> endWarmUp() {
        return warmUpKeys.unlink(redis, "cluster".equalsIgnoreCase(clientType)).toCompletionStage();
    }

    private CompletionStage<VelocityResults> check(VelocityRequest request, WarmUpKeys namespace) {
        long start = System.nanoTime();
        VelocityGuard.Call admitted = guard.admit(start);
        if (admitted == VelocityGuard.CIRCUIT_OPEN) {
            circuitOpenRefusals.increment();
            return CompletableFuture.completedFuture(CIRCUIT_OPEN);
        }
        if (admitted == VelocityGuard.LIMIT) {
            shed.increment();
            return CompletableFuture.completedFuture(SHED);
        }
        // A probe whose request does not wait for it is read-only: the request is answered without
        // velocity, so the probe must not count its transaction either.
        boolean detached = admitted.probe && !probeHoldsRequest;
        VelocityRequest sent = detached && !request.readOnly()
                ? new VelocityRequest(request.transactionId(), request.checks(), true) : request;
        CompletionStage<double[]> call;
        try {
            call = client.run(sent, clock.millis(), namespace);
        } catch (RuntimeException e) {
            call = CompletableFuture.failedFuture(e);
        }
        Timer timer = sent.readOnly() ? readRoundTrip : writeRoundTrip;
        CompletionStage<VelocityResults> answer = call.handle((values, failure) -> {
            long end = System.nanoTime();
            guard.done(admitted, end, failure != null);
            if (failure == null) {
                timer.record(end - start, TimeUnit.NANOSECONDS);
                if (!answered.get()) {
                    answered.set(true);
                }
                lastAnsweredMillis.lazySet(clock.millis());
                return VelocityResults.of(values);
            }
            return VelocityResults.unavailable(failed(unwrap(failure)));
        });
        if (detached) {
            // the probe goes on and ends in the guard; its request does not wait for a Redis that is
            // most likely still down (VelocityConfig.CircuitBreaker#probeHoldsRequest)
            circuitOpenRefusals.increment();
            return CompletableFuture.completedFuture(CIRCUIT_OPEN);
        }
        return answer;
    }

    private String failed(Throwable failure) {
        if (failure instanceof VelocityReplyException) {
            replyErrors.increment();
        } else {
            redisErrors.increment();
        }
        return "redis: " + failure.getMessage();
    }

    private static Throwable unwrap(Throwable t) {
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /**
     * When Redis last answered a velocity call (epoch ms, the engine's clock), 0 if never: what
     * "storage accessible" means on the health endpoint.
     */
    public long lastAnsweredMillis() {
        return lastAnsweredMillis.get();
    }

    /** True once Redis answered a velocity call or the startup probe. */
    public boolean answeredOnce() {
        return answered.get();
    }

    /** 0 closed, 1 half-open, 2 open. */
    public int circuitState() {
        return circuitState.get();
    }

    /**
     * Asks Redis for something cheap (SCRIPT LOAD, which also warms the script cache) outside the
     * breaker; readiness uses it until the first real answer.
     */
    public CompletionStage<Boolean> probe() {
        return client.loadScript(redis).handle((sha, failure) -> {
            if (failure == null) {
                answered.set(true);
                lastAnsweredMillis.set(clock.millis());
                return true;
            }
            LOG.debugf("velocity probe failed: %s", failure.getMessage());
            return false;
        });
    }

    private static Duration micros(long us) {
        return Duration.ofNanos(us * 1000);
    }
}
