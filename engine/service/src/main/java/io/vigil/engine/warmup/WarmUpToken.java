package io.vigil.engine.warmup;

import io.vertx.core.http.HttpHeaders;
import jakarta.enterprise.context.ApplicationScoped;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * The secret that marks the warm-up's own HTTP requests ({@link WarmUp}'s HTTP phase): random per
 * process, never logged or exported, so only the engine itself can send a decision that leaves no
 * trace (its own velocity keys and stream, no exported answer metrics). With caller authentication on,
 * it also stands in for the caller's credential, from loopback only ({@code DataPortAuth}), so that the
 * warm-up runs the data port's HTTP/TLS stack too (docs/adr/0024-warm-up-through-authenticated-port.md).
 * It is accepted only while the warm-up runs: {@link #retire()}d before the engine reports ready.
 */
@ApplicationScoped
public class WarmUpToken {

    /** Request header carrying the token. */
    public static final CharSequence HEADER = HttpHeaders.createOptimized("X-Vigil-Warm-Up");

    private final byte[] token;
    private final String text;
    private volatile boolean retired;

    public WarmUpToken() {
        byte[] random = new byte[32];
        new SecureRandom().nextBytes(random);
        text = HexFormat.of().formatHex(random);
        token = text.getBytes(StandardCharsets.US_ASCII);
    }

    String value() {
        return text;
    }

    /** True only for this process' token (compared in constant time), and only until it is retired. */
    public boolean matches(String presented) {
        return presented != null && !retired && MessageDigest.isEqual(token, presented.getBytes(StandardCharsets.US_ASCII));
    }

    /** No request is a warm-up request any more: the warm-up ended (or is off). */
    void retire() {
        retired = true;
    }
}
