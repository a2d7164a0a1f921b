package io.vigil.engine.auth;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.jose4j.jwa.AlgorithmConstraints;
import org.jose4j.jwt.JwtClaims;
import org.jose4j.jwt.MalformedClaimException;
import org.jose4j.jwt.consumer.ErrorCodes;
import org.jose4j.jwt.consumer.InvalidJwtException;
import org.jose4j.jwt.consumer.JwtConsumer;
import org.jose4j.jwt.consumer.JwtConsumerBuilder;
import org.jose4j.jwt.consumer.JwtContext;
import org.jose4j.lang.InvalidAlgorithmException;
import org.jose4j.lang.UnresolvableKeyException;

/**
 * Bearer tokens to callers. A token seen before is answered from memory (keyed by the whole
 * {@code Authorization} value, so a hit costs a hash and a compare: no parsing, no crypto, no
 * allocation); a new one is verified once with jose4j against {@link CallerKeys} and kept until its
 * {@code exp} (plus the skew). Runs on the event loop: nothing here waits on I/O.
 *
 * <p>Two levels. The bounded cache of verified tokens (Caffeine: size bound, per-entry expiry) is the
 * authority. In front of it, a small four-way table of recent hits: profiled under load
 * (auth-cost.sh with JFR), Caffeine's read bookkeeping (read buffer, inline maintenance of its
 * eviction and expiry policies) was most of JWT's cost per request, while a repeat caller needs
 * none of it. A slot holds an immutable entry and is read and written without locks: a lost
 * write or a stale slot is only a miss, answered by the cache below; expiry is checked on every hit.
 * A hit costs the header's string hash (computed once per header string), an int compare per way,
 * and one exact compare of the whole header: tokens of one issuer share their first ~100 characters
 * (the JOSE header), so the hash keeps a full compare for the way that holds this very token.
 */
public final class CallerTokens {
    static final String BEARER = "Bearer ";

    /** A verified caller: who, what it may do, and until when. */
    public record Caller(String subject, Set<String> scopes, long expiresAtMillis) {
        public boolean may(String scope) {
            return scope == null || scopes.contains(scope);
        }
    }

    /** Either a caller or a refusal; refusals are shared constants. */
    public record Verdict(Caller caller, Refusal refusal) {
        private static final Verdict[] REFUSED = new Verdict[Refusal.values().length];

        static {
            for (Refusal r : Refusal.values()) {
                REFUSED[r.ordinal()] = new Verdict(null, r);
            }
        }

        public static Verdict refused(Refusal r) {
            return REFUSED[r.ordinal()];
        }
    }

    /** Slots of the table of recent hits (a power of two): a few thousand callers fit without many collisions. */
    static final int RECENT_SLOTS = 4096;
    /**
     * Ways per set (a power of two). With two, 300 callers in 2,048 sets leave about one set with three
     * of them, whose requests went to Caffeine each time (seen in the 2,000/s profile); in 1,024 sets of
     * four, 300 callers overflow one with a chance of ~2 %.
     */
    static final int RECENT_WAYS = 4;

    /** A verified token, its header's hash and its verdict; immutable, so a racy read of a slot sees it whole. */
    private record Recent(String authorization, int hash, Verdict verdict) {
    }

    private final Recent[] recent = new Recent[RECENT_SLOTS];
    private final AuthConfig.Jwt config;
    private final CallerKeys keys;
    private final LongSupplier clock;
    private final long skewMillis;
    private final Cache<String, Verdict> verified;
    private final JwtConsumer consumer;
    private final Counter verifications;
    private final Counter cacheLookups;

    CallerTokens(AuthConfig.Jwt config, CallerKeys keys, MeterRegistry registry, LongSupplier clock) {
        String issuer = config.issuer().filter(s -> !s.isBlank()).orElseThrow(
                () -> new IllegalStateException("vigil.auth.jwt.issuer: required when JWT authentication is on"));
        List<String> audience = config.audience().filter(a -> !a.isEmpty()).orElseThrow(
                () -> new IllegalStateException("vigil.auth.jwt.audience: required when JWT authentication is on"));
        for (String alg : config.algorithms()) {
            if (alg.equalsIgnoreCase("none") || alg.toUpperCase(java.util.Locale.ROOT).startsWith("HS")) {
                throw new IllegalStateException("vigil.auth.jwt.algorithms: " + alg
                        + " is not accepted (only asymmetric signatures; none and HMAC would let a key holder or anyone mint tokens)");
            }
        }
        this.config = config;
        this.keys = keys;
        this.clock = clock;
        this.skewMillis = config.clockSkew().toMillis();
        this.verified = Caffeine.newBuilder()
                .maximumSize(config.cacheSize())
                .expireAfter(Expiry.<String, Verdict>creating((token, v) -> java.time.Duration.ofMillis(
                        Math.max(0, v.caller().expiresAtMillis() + skewMillis - clock.getAsLong()))))
                .executor(Runnable::run) // maintenance inline: no common-pool tasks per insert
                .build();
        Set<String> accepted = Set.copyOf(config.algorithms());
        this.consumer = new JwtConsumerBuilder()
                .setRequireExpirationTime()
                .setAllowedClockSkewInSeconds((int) config.clockSkew().toSeconds())
                .setExpectedIssuer(issuer)
                .setExpectedAudience(audience.toArray(String[]::new))
                .setJwsAlgorithmConstraints(new AlgorithmConstraints(AlgorithmConstraints.ConstraintType.PERMIT,
                        config.algorithms().toArray(String[]::new)))
                .setEnableRequireIntegrity() // refuses unsigned (alg none) even before the algorithm list
                .setVerificationKeyResolver((jws, nested) -> {
                    // Before the key lookup, which would otherwise call an HS256 or none token an unknown key.
                    if (!accepted.contains(jws.getAlgorithmHeaderValue())) {
                        throw new AlgorithmNotAccepted();
                    }
                    CallerKeys.Loaded loaded = keys.current();
                    if (loaded == null) {
                        throw new NoKeysYet();
                    }
                    return loaded.resolver().resolveKey(jws, nested);
                })
                .build();
        this.verifications = Counter.builder("vigil.auth.token.verifications")
                .description("Tokens whose signature was checked (cache misses); the rest were answered from the cache")
                .register(registry);
        this.cacheLookups = Counter.builder("vigil.auth.token.cache.lookups")
                .description("Token checks the table of recent tokens did not answer, looked up in the verified-token cache")
                .register(registry);
        Gauge.builder("vigil.auth.token.cache.size", verified, Cache::estimatedSize)
                .description("Verified tokens cached until they expire").register(registry);
    }

    /** The verdict on an {@code Authorization} header value (null when absent). */
    public Verdict verify(String authorization) {
        if (authorization == null) {
            return Verdict.refused(Refusal.MISSING);
        }
        int hash = authorization.hashCode();
        int set = setOf(hash);
        for (int way = set; way < set + RECENT_WAYS; way++) {
            Recent seen = recent[way];
            if (seen != null && seen.hash() == hash && seen.authorization().equals(authorization)) {
                return unexpired(seen.verdict());
            }
        }
        cacheLookups.increment();
        Verdict hit = verified.getIfPresent(authorization);
        if (hit != null) {
            remember(set, hash, authorization, hit);
            return unexpired(hit);
        }
        if (!authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return Verdict.refused(Refusal.MISSING);
        }
        if (authorization.length() - BEARER.length() > config.maxTokenBytes()) {
            return Verdict.refused(Refusal.TOO_LARGE);
        }
        String token = authorization.substring(BEARER.length()).trim();
        if (token.isEmpty() || token.chars().filter(c -> c == '.').count() != 2) {
            return Verdict.refused(Refusal.MALFORMED); // not a JWS compact serialization (a JWE has five parts)
        }
        verifications.increment();
        Verdict v = check(token);
        if (v.caller() != null) {
            verified.put(authorization, v);
            remember(set, hash, authorization, v);
        }
        return v;
    }

    /** The first slot of the header's set in the table of recent tokens; its ways are that slot and the next {@code RECENT_WAYS - 1}. */
    static int setOf(String authorization) {
        return setOf(authorization.hashCode());
    }

    private static int setOf(int hash) {
        return (hash ^ (hash >>> 16)) & (RECENT_SLOTS - 1) & -RECENT_WAYS;
    }

    /** Into an empty way of the set, else over the way the hash's higher bits pick (a cheap, stable choice). */
    private void remember(int set, int hash, String authorization, Verdict v) {
        int way = set + ((hash >>> 24) & (RECENT_WAYS - 1));
        for (int w = set; w < set + RECENT_WAYS; w++) {
            if (recent[w] == null) {
                way = w;
                break;
            }
        }
        recent[way] = new Recent(authorization, hash, v);
    }

    /** Caffeine drops a token at exp + skew; checked on every hit too, so neither a late cleanup nor a recent slot admits it. */
    private Verdict unexpired(Verdict v) {
        return v.caller().expiresAtMillis() + skewMillis > clock.getAsLong() ? v : Verdict.refused(Refusal.EXPIRED);
    }

    private Verdict check(String token) {
        JwtClaims claims;
        try {
            JwtContext context = consumer.process(token);
            claims = context.getJwtClaims();
        } catch (InvalidJwtException e) {
            return Verdict.refused(refusalOf(e));
        }
        try {
            return new Verdict(new Caller(claims.getSubject(), scopes(claims), claims.getExpirationTime().getValueInMillis()), null);
        } catch (MalformedClaimException e) {
            return Verdict.refused(Refusal.CLAIMS);
        }
    }

    private Refusal refusalOf(InvalidJwtException e) {
        for (Throwable c = e.getCause(); c != null; c = c.getCause()) {
            if (c instanceof AlgorithmNotAccepted || c instanceof InvalidAlgorithmException) {
                return Refusal.ALGORITHM;
            }
            if (c instanceof NoKeysYet) {
                keys.requestEarlyRefresh();
                return Refusal.KEYS_UNAVAILABLE;
            }
            if (c instanceof UnresolvableKeyException) {
                keys.requestEarlyRefresh(); // the issuer may have rotated to a key we have not fetched yet
                return Refusal.UNKNOWN_KEY;
            }
        }
        if (e.hasExpired()) {
            return Refusal.EXPIRED;
        }
        if (e.hasErrorCode(ErrorCodes.ISSUER_INVALID) || e.hasErrorCode(ErrorCodes.ISSUER_MISSING)) {
            return Refusal.ISSUER;
        }
        if (e.hasErrorCode(ErrorCodes.AUDIENCE_INVALID) || e.hasErrorCode(ErrorCodes.AUDIENCE_MISSING)) {
            return Refusal.AUDIENCE;
        }
        if (e.hasErrorCode(ErrorCodes.SIGNATURE_INVALID)) {
            return Refusal.SIGNATURE;
        }
        if (e.hasErrorCode(ErrorCodes.SIGNATURE_MISSING) || e.hasErrorCode(ErrorCodes.INTEGRITY_MISSING)) {
            return Refusal.ALGORITHM;
        }
        if (e.hasErrorCode(ErrorCodes.NOT_YET_VALID) || e.hasErrorCode(ErrorCodes.ISSUED_AT_INVALID_FUTURE)) {
            return Refusal.NOT_YET_VALID;
        }
        if (e.hasErrorCode(ErrorCodes.EXPIRATION_MISSING) || e.hasErrorCode(ErrorCodes.MALFORMED_CLAIM)) {
            return Refusal.CLAIMS;
        }
        return Refusal.MALFORMED;
    }

    /** Scopes and roles from {@code scope} (space-separated, OAuth 2), {@code scp}, {@code roles} and {@code groups}. */
    static Set<String> scopes(JwtClaims claims) {
        Set<String> out = new HashSet<>();
        for (String name : new String[] {"scope", "scp", "roles", "groups"}) {
            Object v = claims.getClaimValue(name);
            if (v instanceof String s) {
                for (String part : s.trim().split("\\s+")) {
                    if (!part.isEmpty()) {
                        out.add(part);
                    }
                }
            } else if (v instanceof Collection<?> c) {
                for (Object o : c) {
                    if (o instanceof String s) {
                        out.add(s);
                    }
                }
            }
        }
        return Set.copyOf(out);
    }

    long cachedTokens() {
        verified.cleanUp();
        return verified.estimatedSize();
    }

    /** The resolver's signal that the header names an algorithm outside the accepted list. */
    static final class AlgorithmNotAccepted extends UnresolvableKeyException {
        AlgorithmNotAccepted() {
            super("algorithm not accepted");
        }
    }

    /** The resolver's signal that no JWKS was ever loaded (an engine problem, not the caller's). */
    static final class NoKeysYet extends UnresolvableKeyException {
        NoKeysYet() {
            super("no JWKS loaded yet");
        }
    }
}
