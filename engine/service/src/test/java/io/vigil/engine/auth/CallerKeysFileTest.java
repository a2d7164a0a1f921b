package io.vigil.engine.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.jose4j.jwk.JsonWebKey;
import org.jose4j.jwk.JsonWebKeySet;
import org.jose4j.jwk.RsaJsonWebKey;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A mounted JWKS file (a Secret or ConfigMap): re-read when it changes, the last good keys kept when it
 * turns unreadable, and the settings that must refuse to start.
 */
class CallerKeysFileTest {
    @TempDir
    Path dir;

    /** The defaults of {@link AuthConfig.Jwt} with a file source; fields change what a test needs. */
    static class Settings implements AuthConfig.Jwt {
        Optional<URI> url = Optional.empty();
        Optional<Path> file = Optional.empty();
        Optional<String> issuer = Optional.of(JwtIssuer.ISSUER);
        List<String> algorithms = List.of("RS256", "ES256");
        int cacheSize = 100;

        public Optional<URI> jwksUrl() {
            return url;
        }

        public Optional<Path> jwksFile() {
            return file;
        }

        public Optional<String> issuer() {
            return issuer;
        }

        public Optional<List<String>> audience() {
            return Optional.of(List.of(JwtIssuer.AUDIENCE));
        }

        public Duration clockSkew() {
            return Duration.ofSeconds(30);
        }

        public int maxTokenBytes() {
            return 8192;
        }

        public int cacheSize() {
            return cacheSize;
        }

        public List<String> algorithms() {
            return algorithms;
        }

        public Duration refreshInterval() {
            return Duration.ofMinutes(10);
        }

        public Duration refreshFloor() {
            return Duration.ofMillis(100);
        }

        public Duration refreshMaxBackoff() {
            return Duration.ofMillis(200);
        }

        public Duration filePollInterval() {
            return Duration.ofMillis(100);
        }
    }

    /** Settings reading the key, published as jwks.json in this test's directory. */
    private Settings readingFileOf(RsaJsonWebKey key) throws Exception {
        Settings s = new Settings();
        s.file = Optional.of(publish(key));
        return s;
    }

    /** The keys as jwks.json in this test's directory. */
    private Path publish(RsaJsonWebKey... keys) throws Exception {
        Path file = dir.resolve("jwks.json");
        publish(file, keys);
        return file;
    }

    private static void publish(Path file, RsaJsonWebKey... keys) throws Exception {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, new JsonWebKeySet(List.<JsonWebKey>of(keys)).toJson(JsonWebKey.OutputControlLevel.PUBLIC_ONLY));
        Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    private static CallerTokens.Verdict eventually(CallerTokens tokens, RsaJsonWebKey key, boolean accepted) throws InterruptedException {
        CallerTokens.Verdict v = null;
        for (int i = 0; i < 100; i++) {
            // a new token each time: a verified one would come from the cache
            v = tokens.verify("Bearer " + JwtIssuer.sign(JwtIssuer.claims("vigil.evaluate"), key));
            if ((v.caller() != null) == accepted) {
                return v;
            }
            Thread.sleep(50);
        }
        return v;
    }

    @Test
    void aChangedFileIsReReadAndAnUnreadableOneKeepsTheLastKeys() throws Exception {
        RsaJsonWebKey first = JwtIssuer.key("first");
        RsaJsonWebKey second = JwtIssuer.key("second");
        Path file = publish(first);
        Settings s = new Settings();
        s.file = Optional.of(file);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (CallerKeys keys = new CallerKeys(s, registry, System::currentTimeMillis)) {
            CallerTokens tokens = new CallerTokens(s, keys, registry, System::currentTimeMillis);
            keys.start();
            assertThat(eventually(tokens, first, true).caller().subject()).isEqualTo("payment-switch");

            publish(file, second); // rotation: the old key withdrawn
            assertThat(eventually(tokens, second, true).caller()).isNotNull();
            assertThat(eventually(tokens, first, false).refusal()).isEqualTo(Refusal.UNKNOWN_KEY);

            Files.writeString(file, "{ not a jwks");
            double failed = 0;
            for (int i = 0; i < 100 && failed == 0; i++) {
                Thread.sleep(50);
                failed = registry.get("vigil.auth.jwks.fetches").tag("result", "failed").counter().count();
            }
            assertThat(failed).isGreaterThan(0);
            assertThat(eventually(tokens, second, true).caller()).as("the last good keys are kept").isNotNull();
        }
    }

    @Test
    void unsafeOrIncompleteSettingsRefuseToStart() {
        Settings both = new Settings();
        both.file = Optional.of(dir.resolve("jwks.json"));
        both.url = Optional.of(URI.create("http://127.0.0.1:1/jwks"));
        assertThatThrownBy(() -> new CallerKeys(both, new SimpleMeterRegistry(), System::currentTimeMillis))
                .hasMessageContaining("exactly one of jwks-url and jwks-file");

        Settings hmac = new Settings();
        hmac.file = Optional.of(dir.resolve("jwks.json"));
        hmac.algorithms = List.of("RS256", "HS256");
        assertThatThrownBy(() -> new CallerTokens(hmac, null, new SimpleMeterRegistry(), System::currentTimeMillis))
                .hasMessageContaining("HS256 is not accepted");

        Settings noIssuer = new Settings();
        noIssuer.issuer = Optional.empty();
        assertThatThrownBy(() -> new CallerTokens(noIssuer, null, new SimpleMeterRegistry(), System::currentTimeMillis))
                .hasMessageContaining("vigil.auth.jwt.issuer: required");
    }

    /**
     * A token seen before is answered from memory (the table of recent hits in front of the cache):
     * no second signature check, however often it comes, alone or among other callers, and refused as
     * expired once the clock passes its exp plus the skew, whichever level answers.
     */
    @Test
    void aSeenTokenIsNotVerifiedAgainAndIsRefusedOnceExpired() throws Exception {
        RsaJsonWebKey key = JwtIssuer.key("k");
        Settings s = readingFileOf(key);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong(System.currentTimeMillis());
        try (CallerKeys keys = new CallerKeys(s, registry, System::currentTimeMillis)) {
            keys.start();
            CallerTokens tokens = new CallerTokens(s, keys, registry, now::get);
            List<String> callers = new java.util.ArrayList<>();
            for (int i = 0; i < 50; i++) {
                callers.add("Bearer " + JwtIssuer.sign(JwtIssuer.claims("vigil.evaluate"), key));
            }
            for (int round = 0; round < 20; round++) {
                for (String c : callers) {
                    // a new String per request, as the HTTP decoder makes one
                    CallerTokens.Verdict v = tokens.verify(new String(c.toCharArray()));
                    assertThat(v.caller()).as("round %d", round).isNotNull();
                    assertThat(v.caller().may("vigil.evaluate")).isTrue();
                }
            }
            assertThat(registry.get("vigil.auth.token.verifications").counter().count()).as("one check per token").isEqualTo(50);

            // exp has a resolution of one second: on a slow machine the 50 tokens were signed across a
            // second boundary (CI once saw the last ones still valid), so the clock passes the latest
            long exp = 0;
            for (String c : callers) {
                exp = Math.max(exp, tokens.verify(c).caller().expiresAtMillis());
            }
            now.set(exp + s.clockSkew().toMillis() + 1);
            for (String c : callers) {
                assertThat(tokens.verify(c).refusal()).isEqualTo(Refusal.EXPIRED);
            }
        }
    }

    /**
     * Callers whose headers fall in the same set of the table of recent tokens all stay in it while they
     * fit its ways: alternating, none goes to the verified-token cache again. One caller more than the
     * set has ways does (the counter sees table misses), and is answered by the cache, not a new
     * signature check.
     */
    @Test
    void tokensSharingASetAreAnsweredByTheTableOfRecentTokensWhileTheyFitItsWays() throws Exception {
        RsaJsonWebKey key = JwtIssuer.key("k");
        Settings s = readingFileOf(key);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        int ways = CallerTokens.RECENT_WAYS;
        try (CallerKeys keys = new CallerKeys(s, registry, System::currentTimeMillis)) {
            keys.start();
            // Real signed tokens until one more than the ways share a set.
            java.util.Map<Integer, List<String>> bySet = new java.util.HashMap<>();
            List<String> crowd = null;
            for (int i = 0; i < 50_000 && crowd == null; i++) {
                String header = "Bearer " + JwtIssuer.sign(JwtIssuer.claims("vigil.evaluate"), key);
                List<String> set = bySet.computeIfAbsent(CallerTokens.setOf(header), k -> new java.util.ArrayList<>());
                set.add(header);
                if (set.size() == ways + 1) {
                    crowd = List.copyOf(set);
                }
            }
            assertThat(crowd).as(ways + 1 + " tokens in one set").isNotNull();
            List<String> fitting = crowd.subList(0, ways);

            CallerTokens tokens = new CallerTokens(s, keys, registry, System::currentTimeMillis);
            var lookups = registry.get("vigil.auth.token.cache.lookups").counter();
            for (String h : fitting) {
                assertThat(tokens.verify(h).caller()).isNotNull(); // verified, then kept in the table
            }
            double afterFirstSight = lookups.count();
            for (int round = 0; round < 100; round++) {
                for (String h : fitting) {
                    // A new string per request, as from the HTTP decoder: equal content, not the same object.
                    assertThat(tokens.verify(new String(h.toCharArray())).caller()).isNotNull();
                }
            }
            assertThat(lookups.count()).as("cache lookups while callers of one set alternate").isEqualTo(afterFirstSight);

            CallerTokens crowded = new CallerTokens(s, keys, registry, System::currentTimeMillis);
            for (String h : crowd) {
                assertThat(crowded.verify(h).caller()).isNotNull();
            }
            double before = lookups.count();
            for (int round = 0; round < 10; round++) {
                for (String h : crowd) {
                    assertThat(crowded.verify(new String(h.toCharArray())).caller()).isNotNull();
                }
            }
            assertThat(lookups.count()).as("one caller more than the ways misses the table").isGreaterThan(before);
            assertThat(registry.get("vigil.auth.token.verifications").counter().count())
                    .as("a miss of the table is answered by the cache, not a new signature check").isEqualTo(2 * ways + 1);
        }
    }
}
