package io.vigil.engine.auth;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.jboss.logging.Logger;
import org.jose4j.jwk.EllipticCurveJsonWebKey;
import org.jose4j.jwk.JsonWebKey;
import org.jose4j.jwk.JsonWebKeySet;
import org.jose4j.jwk.OctetKeyPairJsonWebKey;
import org.jose4j.jwk.RsaJsonWebKey;
import org.jose4j.keys.resolvers.JwksVerificationKeyResolver;
import org.jose4j.keys.resolvers.VerificationKeyResolver;
import org.jose4j.lang.JoseException;

/**
 * The issuer's public keys (a JWKS), from a URL or a mounted file, refreshed on one background thread
 * so the event loop never waits on the network. The last good set stays in use while the issuer is
 * down; fetches back off from {@code refresh-floor} (doubling) up to {@code refresh-max-backoff}, and a
 * token naming an unknown {@code kid} asks for an early fetch, never sooner than the floor after the
 * previous one. Symmetric ({@code oct}) and encryption-only keys are dropped: only public signature
 * keys can verify, which closes the HMAC-with-the-public-key confusion.
 */
public final class CallerKeys implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(CallerKeys.class);

    /** What a fetch yields: the keys, or why there are none. */
    record Loaded(VerificationKeyResolver resolver, int count, long loadedAtMillis, String version) {
    }

    private final AuthConfig.Jwt config;
    private final LongSupplier clock;
    private final ScheduledExecutorService refresher;
    private final HttpClient http;
    private final AtomicBoolean earlyRequested = new AtomicBoolean();
    private final Counter fetchedOk;
    private final Counter fetchFailed;
    private volatile Loaded current;
    private volatile long lastAttemptMillis = Long.MIN_VALUE / 2;
    private volatile int failures;
    private volatile String lastFileContent;

    CallerKeys(AuthConfig.Jwt config, MeterRegistry registry, LongSupplier clock) {
        if (config.jwksUrl().isPresent() == config.jwksFile().isPresent()) {
            throw new IllegalStateException("vigil.auth.jwt: set exactly one of jwks-url and jwks-file (JWT authentication is on)");
        }
        this.config = config;
        this.clock = clock;
        this.refresher = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "vigil-jwks-refresh");
            t.setDaemon(true);
            return t;
        });
        this.http = config.jwksUrl().isPresent()
                ? HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build() : null;
        this.fetchedOk = Counter.builder("vigil.auth.jwks.fetches").tag("result", "ok")
                .description("JWKS loads (URL fetches or file reads) by result").register(registry);
        this.fetchFailed = Counter.builder("vigil.auth.jwks.fetches").tag("result", "failed")
                .description("JWKS loads (URL fetches or file reads) by result").register(registry);
        Gauge.builder("vigil.auth.jwks.keys", this, k -> k.current == null ? 0 : k.current.count())
                .description("Signature keys in use (0: no JWKS loaded yet, every token refused with 503)").register(registry);
        Gauge.builder("vigil.auth.jwks.age.seconds", this,
                        k -> k.current == null ? Double.NaN : (clock.getAsLong() - k.current.loadedAtMillis()) / 1000.0)
                .description("Seconds since the keys in use were loaded (grows while the issuer is down)").register(registry);
    }

    /** Loads once now (waiting at most a few seconds) and then keeps refreshing in the background. */
    void start() {
        try {
            refresher.submit(this::refresh).get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            LOG.warnf("first JWKS load did not finish: %s; tokens are refused (503) until it does", e.toString());
        }
    }

    /** The key resolver in use, or null when no JWKS was ever loaded. */
    Loaded current() {
        return current;
    }

    /** A token named a key we do not have: fetch early (the issuer may have rotated), at most once per floor. */
    void requestEarlyRefresh() {
        if (config.jwksFile().isPresent() || !earlyRequested.compareAndSet(false, true)) {
            return;
        }
        long wait = Math.max(0, lastAttemptMillis + config.refreshFloor().toMillis() - clock.getAsLong());
        refresher.schedule(() -> {
            earlyRequested.set(false);
            refresh();
        }, wait, TimeUnit.MILLISECONDS);
    }

    private void refresh() {
        long delay;
        try {
            lastAttemptMillis = clock.getAsLong();
            String json = config.jwksUrl().isPresent() ? fetch(config.jwksUrl().get()) : readFile(config.jwksFile().get());
            if (json != null) {
                install(json);
            }
            failures = 0;
            fetchedOk.increment();
            delay = config.jwksUrl().isPresent() ? config.refreshInterval().toMillis() : config.filePollInterval().toMillis();
        } catch (Exception e) {
            int n = ++failures;
            fetchFailed.increment();
            delay = Math.min(config.refreshMaxBackoff().toMillis(), config.refreshFloor().toMillis() << Math.min(n - 1, 20));
            LOG.warnf("JWKS load from %s failed (%d in a row): %s; %s, next attempt in %d ms", source(), n, e.getMessage(),
                    current == null ? "no keys yet: tokens are refused (503)" : "keeping the " + current.count() + " keys loaded before",
                    delay);
        }
        if (!refresher.isShutdown()) {
            refresher.schedule(this::refresh, delay, TimeUnit.MILLISECONDS);
        }
    }

    private String fetch(URI url) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(5))
                .header("Accept", "application/json").GET().build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        if (r.statusCode() != 200) {
            throw new IOException("HTTP " + r.statusCode());
        }
        return r.body();
    }

    /** The file's content, or null when it is the same as last time (nothing to do). */
    private String readFile(Path file) throws IOException {
        String content = Files.readString(file, StandardCharsets.UTF_8);
        if (content.equals(lastFileContent)) {
            return null;
        }
        lastFileContent = content;
        return content;
    }

    private void install(String json) throws JoseException {
        List<JsonWebKey> usable = new ArrayList<>();
        for (JsonWebKey k : new JsonWebKeySet(json).getJsonWebKeys()) {
            boolean publicSignatureKey = (k instanceof RsaJsonWebKey || k instanceof EllipticCurveJsonWebKey
                    || k instanceof OctetKeyPairJsonWebKey) && !"enc".equals(k.getUse());
            if (publicSignatureKey) {
                usable.add(k);
            }
        }
        if (usable.isEmpty()) {
            throw new JoseException("the JWKS holds no public signature key");
        }
        current = new Loaded(new JwksVerificationKeyResolver(usable), usable.size(), clock.getAsLong(), Integer.toHexString(json.hashCode()));
        LOG.infof("JWKS from %s: %d signature keys in use", source(), usable.size());
    }

    private String source() {
        return config.jwksUrl().map(URI::toString).orElseGet(() -> config.jwksFile().get().toString());
    }

    @Override
    public void close() {
        refresher.shutdownNow();
    }
}
