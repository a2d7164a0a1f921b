package io.vigil.engine.velocity;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.smallrye.faulttolerance.api.CircuitBreakerState;
import io.smallrye.faulttolerance.api.TypedGuard;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Redis;
import io.vigil.engine.ruleset.KeyRulesets;
import io.vigil.engine.ruleset.LoadedRuleset;
import io.vigil.engine.ruleset.RulesetRegistry;
import io.vigil.engine.ruleset.RulesetSnapshot;
import io.vigil.rules.model.Rule;
import io.vigil.rules.model.RulesetDocument;
import io.vigil.rules.model.Velocity;
import io.vigil.rules.velocity.Aggregate;
import io.vigil.rules.velocity.VelocityRequest;
import io.vigil.rules.velocity.VelocityResults;
import io.vigil.rules.velocity.VelocityStore;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Typed;
import jakarta.enterprise.util.TypeLiteral;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.faulttolerance.exceptions.CircuitBreakerOpenException;
import org.jboss.logging.Logger;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The velocity store on Redis: {@link VelocityScriptClient} behind a circuit breaker, with metrics.
 *
 * <p>The breaker is SmallRye Fault Tolerance's programmatic {@link TypedGuard} rather than the
 * {@code @CircuitBreaker} annotation: its thresholds come from {@code vigil.velocity.circuit-breaker.*}
 * (what the operator sets) instead of per-method MicroProfile keys, it runs on the calling thread
 * (no offload: the call is non-blocking) and it reports state changes to the gauge below.
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
    RulesetRegistry rulesets;
    @ConfigProperty(name = "quarkus.redis.client-type", defaultValue = "standalone")
    String clientType;

    private VelocityScriptClient client;
    private TypedGuard<CompletionStage<double[]>> breaker;
    private final AtomicInteger circuitState = new AtomicInteger(0);
    private final AtomicBoolean answered = new AtomicBoolean();
    private final Set<String> warnedThresholds = ConcurrentHashMap.newKeySet();
    private Timer writeRoundTrip;
    private Timer readRoundTrip;
    private Counter redisErrors;
    private Counter replyErrors;
    private Counter circuitOpenRefusals;
    private Counter timeouts;

    @PostConstruct
    void init() {
        boolean cluster = "cluster".equalsIgnoreCase(clientType);
        client = new VelocityScriptClient(vertx, redis, cluster, config.timeout().toMillis(), config.bucketsPerWindow(),
                config.distinctCap());
        VelocityConfig.CircuitBreaker cb = config.circuitBreaker();
        breaker = TypedGuard.create(new TypeLiteral<CompletionStage<double[]>>() {
                })
                .withDescription("velocity store (Redis)")
                .withThreadOffload(false)
                .withCircuitBreaker()
                .name("velocity")
                .requestVolumeThreshold(cb.requestVolume())
                .failureRatio(cb.failureRatio())
                .delay(cb.delay().toMillis(), ChronoUnit.MILLIS)
                .successThreshold(cb.successThreshold())
                .onStateChange(this::circuitChanged)
                .done()
                .build();

        writeRoundTrip = roundTrip("count");
        readRoundTrip = roundTrip("read_only");
        redisErrors = errors("redis");
        replyErrors = errors("reply");
        circuitOpenRefusals = errors("circuit_open");
        timeouts = Counter.builder("vigil.velocity.timeouts")
                .description("Velocity script calls not answered within vigil.velocity.timeout (each also feeds the breaker)")
                .register(registry);
        Gauge.builder("vigil.velocity.circuit.state", circuitState, AtomicInteger::get)
                .description("Velocity circuit breaker: 0 closed, 1 half-open (probing), 2 open (not calling Redis)")
                .register(registry);
        FunctionCounter.builder("vigil.velocity.keys.touched", client, VelocityScriptClient::keysTouched)
                .description("Redis keys named by velocity script calls (one velocity hash per dimension value and ruleset, markers)")
                .register(registry);
        rulesets.onActivation(this::warnUnreachableDistinctThresholds);
        LOG.infof("velocity store: Redis (%s), timeout %s, %d buckets per window, distinct cap %d, breaker %d calls / %.2f ratio / %s delay",
                cluster ? "cluster" : "standalone", config.timeout(), config.bucketsPerWindow(), config.distinctCap(),
                cb.requestVolume(), cb.failureRatio(), cb.delay());
    }

    @PreDestroy
    void close() {
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

    /**
     * A distinct count saturates at the cap ({@code vigil.velocity.distinct-cap}), so a distinct rule
     * whose threshold is above it can never match: say so once per ruleset version and rule.
     */
    void warnUnreachableDistinctThresholds(RulesetSnapshot snapshot) {
        for (String rule : unreachableDistinctRules(snapshot, config.distinctCap())) {
            if (warnedThresholds.add(rule)) {
                LOG.warnf("velocity: %s is above vigil.velocity.distinct-cap %d: the distinct count saturates at the cap,"
                        + " so this rule can never match", rule, config.distinctCap());
            }
        }
    }

    /** Enabled distinct rules of the active rulesets whose threshold is above {@code cap}, described. */
    static List<String> unreachableDistinctRules(RulesetSnapshot snapshot, int cap) {
        List<String> found = new ArrayList<>();
        BigDecimal limit = BigDecimal.valueOf(cap);
        for (KeyRulesets key : snapshot.keys()) {
            for (LoadedRuleset partition : key.partitions()) {
                RulesetDocument document = partition.compiled().document();
                if (document == null) {
                    continue;
                }
                for (Rule rule : document.rules()) {
                    Velocity v = rule.velocity();
                    if (rule.enabled() && v != null && v.aggregate() == Aggregate.DISTINCT && v.threshold() != null
                            && v.threshold().compareTo(limit) > 0) {
                        found.add("ruleset " + partition.key() + " v" + partition.version() + " (" + partition.partition()
                                + ") rule " + rule.ruleId() + ": distinct threshold " + v.threshold().toPlainString());
                    }
                }
            }
        }
        return found;
    }

    private void circuitChanged(CircuitBreakerState state) {
        circuitState.set(switch (state) {
            case CLOSED -> 0;
            case HALF_OPEN -> 1;
            case OPEN -> 2;
        });
        if (state == CircuitBreakerState.OPEN) {
            LOG.warnf("velocity circuit breaker OPEN: not calling Redis for %s, then probing", config.circuitBreaker().delay());
        } else {
            LOG.infof("velocity circuit breaker %s", state);
        }
    }

    @Override
    public CompletionStage<VelocityResults> check(VelocityRequest request) {
        long start = System.nanoTime();
        long now = clock.millis();
        CompletionStage<double[]> call;
        try {
            call = breaker.get(() -> client.run(request, now));
        } catch (RuntimeException e) {
            call = CompletableFuture.failedFuture(e);
        }
        Timer timer = request.readOnly() ? readRoundTrip : writeRoundTrip;
        return call.handle((values, failure) -> {
            if (failure == null) {
                timer.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
                answered.set(true);
                return VelocityResults.of(values);
            }
            return VelocityResults.unavailable(failed(unwrap(failure)));
        });
    }

    private String failed(Throwable failure) {
        if (failure instanceof CircuitBreakerOpenException) {
            circuitOpenRefusals.increment();
            return "velocity circuit breaker open";
        }
        if (failure instanceof TimeoutException) {
            timeouts.increment();
            return failure.getMessage();
        }
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
