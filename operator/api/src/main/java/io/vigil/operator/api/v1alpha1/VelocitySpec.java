package io.vigil.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.ResourceRequirements;

@JsonInclude(JsonInclude.Include.NON_NULL)
public class VelocitySpec {

    // Required, no default: the spec names its Redis (managed or external), nothing is managed implicitly.
    @Required
    @JsonPropertyDescription("The Redis holding velocity counters and the decision stream: managed by the operator (redis-operator) or external; exactly one must be set.")
    public Redis redis = new Redis();

    @JsonPropertyDescription("The engine's Redis connection pool.")
    @Default("{}")
    public Pool pool = new Pool();

    // The engine's own default (vigil.velocity.idempotency-window): a payment switch retries within
    // seconds to a minute, and the markers are most of Redis' memory (docs/adr/0028, docs/velocity.md).
    @Default("10m")
    @Pattern(Durations.POSITIVE_PATTERN)
    @JsonPropertyDescription("How long a transaction's answer is kept for its retries (vigil.velocity.idempotency-window): a retry within it gets the original answer and is not counted again; a retry later than it is evaluated and counted as a new transaction. The marker lives min(this, the ruleset's longest window + a bucket), ~280 bytes each: ~336 MB of Redis at 2,000 decisions/s with 10m. Set it at least as long as the longest velocity window for exact idempotency.")
    public String idempotencyWindow = "10m";

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(value = "has(self.managed) != has(self.external)",
            message = "set exactly one of velocity.redis.managed (a Redis the operator declares to redis-operator; managed: {} for the defaults) or velocity.redis.external (an existing Redis)")
    public static class Redis {
        @JsonPropertyDescription("A Redis run by redis-operator (redis.redis.opstreelabs.in/v1beta2), owned by this FraudEngine. Created only when set.")
        public ManagedRedis managed;

        @JsonPropertyDescription("An existing Redis; nothing is created.")
        public ExternalRedis external;

        public boolean hasExternal() {
            return external != null;
        }

        /** The spec asks the operator to run this Redis (the schema refuses neither and both). */
        public boolean hasManaged() {
            return managed != null;
        }

        public ManagedRedis managedOrDefault() {
            return managed != null ? managed : new ManagedRedis();
        }
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(value = "!has(self.size) || (self.mode == 'standalone' ? self.size == 1 : self.size >= 2)",
            message = "a standalone Redis has size 1; replication needs size >= 2")
    public static class ManagedRedis {
        @Default("standalone")
        @Pattern("^(standalone|replication)$")
        @JsonPropertyDescription("standalone (one pod) or replication (primary + replicas, failover by sentinel).")
        public String mode = "standalone";

        @Min(1)
        @Max(9)
        @JsonPropertyDescription("Redis pods (default 1 for standalone, 3 for replication).")
        public Integer size;

        @Default("3")
        @Min(3)
        @Max(7)
        @JsonPropertyDescription("Sentinel pods in replication mode.")
        public Integer sentinels = 3;

        @Default("1Gi")
        @Pattern(Quantities.PATTERN)
        @JsonPropertyDescription("Persistent volume size per Redis pod.")
        public String storage = "1Gi";

        @Default("quay.io/opstree/redis:v7.0.15")
        public String image = "quay.io/opstree/redis:v7.0.15";

        @JsonPropertyDescription("Secret key with the Redis password (optional); wired into redis-operator, the engine, the relay and KEDA.")
        public SecretKeyRef passwordSecretRef;

        public ResourceRequirements resources;

        public boolean replication() {
            return "replication".equals(mode);
        }

        public int sizeOrDefault() {
            return size != null ? size : replication() ? 3 : 1;
        }
    }

    public static class ExternalRedis {
        @Required
        @Pattern("^[^:/\\s]+:[0-9]{1,5}$")
        @JsonPropertyDescription("host:port of the Redis.")
        public String address;

        @JsonPropertyDescription("Secret key holding the Redis password (optional).")
        public SecretKeyRef passwordSecretRef;
    }

    public static class Pool {
        @Default("16")
        @Min(1)
        @Max(1024)
        @JsonPropertyDescription("Maximum Redis connections per engine pod (quarkus.redis.max-pool-size).")
        public Integer maxConnections = 16;

        @Default("2048")
        @Min(1)
        @JsonPropertyDescription("Pipelining depth: commands in flight per connection (quarkus.redis.max-waiting-handlers).")
        public Integer maxWaitingHandlers = 2048;

        @Default("1024")
        @Min(0)
        @JsonPropertyDescription("Requests that may wait for a free connection (quarkus.redis.max-pool-waiting); beyond it velocity is unavailable for that request.")
        public Integer maxPoolWaiting = 1024;

        // The engine's own default (vigil.velocity.timeout): shorter opens the breaker on a VM stall (docs/velocity.md).
        @Default("500ms")
        @Pattern(Durations.PATTERN)
        @JsonPropertyDescription("Timeout of the velocity round trip (vigil.velocity.timeout); the request deadline still applies.")
        public String timeout = "500ms";
    }
}
