package io.vigil.engine.velocity;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;

/**
 * The velocity store's settings ({@code vigil.velocity.*}); the Redis connection itself is
 * {@code quarkus.redis.*} (hosts, client-type, max-pool-size, max-pool-waiting, max-waiting-handlers).
 * The operator sets both from the FraudEngine spec.
 */
@ConfigMapping(prefix = "vigil.velocity")
public interface VelocityConfig {

    /**
     * Seed URI(s) of the velocity Redis, comma-separated for a cluster. Read through
     * {@code quarkus.redis.hosts=${vigil.velocity.redis-hosts:...}} in application.properties.
     */
    @WithDefault("redis://127.0.0.1:16379")
    String redisHosts();

    /** {@code standalone}, {@code cluster} or {@code sentinel}; fills {@code quarkus.redis.client-type}. */
    @WithDefault("standalone")
    String redisClientType();

    /** Off: velocity rules always see "unavailable" (DEGRADED / VELOCITY_UNAVAILABLE); Redis is never touched. */
    @WithDefault("true")
    boolean enabled();

    /**
     * Calls in flight and no answer from Redis for this long: Redis is taken as frozen or unreachable
     * and the breaker opens. Not a per-call timer: the request's own deadline
     * ({@code vigil.engine.deadline}) answers the caller long before.
     */
    @WithDefault("500ms")
    Duration timeout();

    /** Buckets per window (at least 10): a window's error bound is one bucket. */
    @WithDefault("10")
    int bucketsPerWindow();

    /**
     * Members kept per distinct check and dimension value (at least 1). Beyond it the member seen
     * longest ago is evicted and the check answers the cap: a distinct threshold above the cap can
     * never be reached, so a ruleset with one does not validate here (rules library's DistinctCap).
     */
    @WithDefault("1000")
    int distinctCap();

    /**
     * How long a transaction's answers are kept for its retries (its idempotency marker's TTL): the
     * marker lives min(longest window of its checks + a bucket, this). A retry after it is counted
     * again. 10 minutes by default: a payment switch retries an authorization within seconds to a
     * minute, and the markers are most of a busy Redis' memory (280 bytes each: ~336 MB at 2,000/s
     * with 10 minutes, where a 24 h window would keep every decision's marker 26 h and fill 1 GiB in
     * ~23 minutes; docs/adr/0028-aof-rewrites-off-the-decision-path.md). Set it at least as long as the
     * ruleset's longest window for exact idempotency (docs/velocity.md, "Idempotency").
     */
    @WithDefault("10m")
    Duration idempotencyWindow();

    CircuitBreaker circuitBreaker();

    Limit limit();

    /** The adaptive concurrency limit on velocity calls in flight (admission control under overload). */
    interface Limit {
        /** Round trips above this shrink the limit (by 10 %); below it, it grows again. */
        @WithDefault("2ms")
        Duration targetRoundTrip();

        @WithDefault("8")
        int min();

        @WithDefault("256")
        int max();
    }

    interface CircuitBreaker {
        /** Calls in the rolling window the failure ratio is computed over. */
        @WithDefault("20")
        int requestVolume();

        /** Ratio of failed calls in the rolling window that opens the breaker. */
        @WithDefault("0.5")
        double failureRatio();

        /** How long an open breaker refuses calls before letting a probe through. */
        @WithDefault("1s")
        Duration delay();

        /** Successful probes that close a half-open breaker. */
        @WithDefault("1")
        int successThreshold();

        /**
         * Whether the request whose call probes a half-open breaker waits for the probe's answer. Off
         * (default): it is answered DEGRADED at once, like the requests refused while open, and the
         * probe's answer only tells the breaker whether Redis is back. Redis is most likely still
         * down, and waiting made that request the slowest answer of an outage: up to the deadline
         * (issue 22, docs/velocity.md "Circuit breaker"). On: the old behaviour, for an A/B.
         */
        @WithDefault("false")
        boolean probeHoldsRequest();
    }
}
