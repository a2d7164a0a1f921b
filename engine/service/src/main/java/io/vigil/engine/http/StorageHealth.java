package io.vigil.engine.http;

import io.vigil.engine.velocity.RedisVelocityStore;
import io.vigil.engine.velocity.VelocityConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.time.InstantSource;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * {@code storage_accessible} of {@code /v1/evaluate/health}: the velocity store answered recently.
 * Reads what the store already records ({@link RedisVelocityStore#lastAnsweredMillis()}, its
 * circuit state) and adds nothing to the velocity hot path. When the last answer is older than
 * {@code vigil.http.storage-freshness} (an idle engine), one cheap probe asks Redis, bounded by
 * {@code vigil.velocity.timeout}. Without a velocity store it is false.
 */
@ApplicationScoped
public class StorageHealth {
    static final int CIRCUIT_OPEN = 2;

    @Inject
    VelocityConfig velocity;
    @Inject
    Instance<RedisVelocityStore> redis;
    @Inject
    InstantSource clock;
    @Inject
    NoopRoute.HttpConfig http;

    public CompletionStage<Boolean> accessible() {
        if (!velocity.enabled()) {
            return CompletableFuture.completedFuture(false);
        }
        RedisVelocityStore store = redis.get();
        if (store.circuitState() == CIRCUIT_OPEN) {
            return CompletableFuture.completedFuture(false); // Redis failed or fell silent just now
        }
        long last = store.lastAnsweredMillis();
        if (last > 0 && clock.millis() - last <= http.storageFreshness().toMillis()) {
            return CompletableFuture.completedFuture(true);
        }
        return store.probe().toCompletableFuture()
                .completeOnTimeout(false, velocity.timeout().toMillis(), TimeUnit.MILLISECONDS);
    }
}
