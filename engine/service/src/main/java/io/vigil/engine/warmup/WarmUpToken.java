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
 * trace (read-only velocity, no event, no exported answer metrics). The phase runs only when the data port asks
 * callers for no credentials; with caller authentication on, the request would be refused first.
 */
@ApplicationScoped
public class WarmUpToken {

    /** Request header carrying the token. */
    public static final CharSequence HEADER = HttpHeaders.createOptimized("X-Vigil-Warm-Up");

    private final byte[] token;
    private final String text;

    public WarmUpToken() {
        byte[] random = new byte[16];
        new SecureRandom().nextBytes(random);
        text = HexFormat.of().formatHex(random);
        token = text.getBytes(StandardCharsets.US_ASCII);
    }

    String value() {
        return text;
    }

    /** True only for this process' token (compared in constant time). */
    public boolean matches(String presented) {
        return presented != null && MessageDigest.isEqual(token, presented.getBytes(StandardCharsets.US_ASCII));
    }
}
