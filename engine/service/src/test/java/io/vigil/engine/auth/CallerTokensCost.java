package io.vigil.engine.auth;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jose4j.jwk.JsonWebKey;
import org.jose4j.jwk.JsonWebKeySet;
import org.jose4j.jwk.RsaJsonWebKey;

/**
 * CPU per token check (not a test; ADR 0013, docs/performance.md "Caller authentication"): thread CPU
 * time of {@link CallerTokens#verify} for a token seen before (the cache) and for a new token (jose4j
 * parse + RSA-2048 signature check + claims), over {@code callers} real signed tokens.
 *
 *   java -cp <engine test class path> io.vigil.engine.auth.CallerTokensCost [callers] [rounds] [new tokens]
 */
public final class CallerTokensCost {
    public static void main(String[] args) throws Exception {
        int callers = args.length > 0 ? Integer.parseInt(args[0]) : 300;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
        int fresh = args.length > 2 ? Integer.parseInt(args[2]) : 2000;
        Path dir = Files.createTempDirectory("vigil-token-cost");
        RsaJsonWebKey key = JwtIssuer.key("cost");
        Path jwks = dir.resolve("jwks.json");
        Files.writeString(jwks, new JsonWebKeySet(List.<JsonWebKey>of(key)).toJson(JsonWebKey.OutputControlLevel.PUBLIC_ONLY));
        CallerKeysFileTest.Settings s = new CallerKeysFileTest.Settings();
        s.file = Optional.of(jwks);
        s.cacheSize = 10_000; // the engine's default
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        try (CallerKeys keys = new CallerKeys(s, registry, System::currentTimeMillis)) {
            keys.start();
            List<String> headers = new ArrayList<>();
            for (int i = 0; i < callers * 2 + fresh; i++) {
                headers.add("Bearer " + JwtIssuer.sign(JwtIssuer.claims("vigil.evaluate"), key));
            }
            // new tokens: each verified once (warm-up on a separate cache first)
            CallerTokens warm = new CallerTokens(s, keys, registry, System::currentTimeMillis);
            for (int i = 0; i < callers; i++) {
                check(warm.verify(headers.get(i)));
            }
            CallerTokens tokens = new CallerTokens(s, keys, registry, System::currentTimeMillis);
            long t0 = cpu.getCurrentThreadCpuTime();
            int misses = headers.size() - callers;
            for (int i = callers; i < headers.size(); i++) {
                check(tokens.verify(headers.get(i)));
            }
            long missNs = (cpu.getCurrentThreadCpuTime() - t0) / misses;
            // seen tokens: `callers` of them, reused round robin (copies: a header arrives as a new String)
            List<String> seen = new ArrayList<>(headers.subList(headers.size() - callers, headers.size()));
            for (int w = 0; w < 200; w++) {
                for (String h : seen) {
                    check(tokens.verify(new String(h)));
                }
            }
            long hits = 0;
            long t1 = cpu.getCurrentThreadCpuTime();
            for (int r = 0; r < rounds; r++) {
                for (String h : seen) {
                    check(tokens.verify(new String(h)));
                    hits++;
                }
            }
            long hitNs = (cpu.getCurrentThreadCpuTime() - t1) / hits;
            double verified = registry.get("vigil.auth.token.verifications").counter().count();
            System.out.printf("token length %d chars, %d callers: seen token %d ns CPU per check (%d checks, String copy included),"
                    + " new token %d ns (%d checks); signatures checked in all %.0f%n", headers.get(0).length() - 7, callers, hitNs, hits, missNs,
                    misses, verified);
        }
    }

    private static void check(CallerTokens.Verdict v) {
        if (v.caller() == null) {
            throw new IllegalStateException("refused: " + v.refusal());
        }
    }
}
