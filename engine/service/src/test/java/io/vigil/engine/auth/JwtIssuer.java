package io.vigil.engine.auth;

import com.sun.net.httpserver.HttpServer;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.jose4j.jwk.JsonWebKey;
import org.jose4j.jwk.JsonWebKeySet;
import org.jose4j.jwk.RsaJsonWebKey;
import org.jose4j.jwk.RsaJwkGenerator;
import org.jose4j.jws.AlgorithmIdentifiers;
import org.jose4j.jws.JsonWebSignature;
import org.jose4j.jwt.JwtClaims;
import org.jose4j.lang.JoseException;

/**
 * A real token issuer for the engine under test: RSA keys made here, a JWKS served over HTTP by the
 * JDK's server on a free port (which can be taken down and brought back), and tokens signed with them.
 */
public class JwtIssuer implements QuarkusTestResourceLifecycleManager {
    public static final String ISSUER = "https://issuer.vigil.test";
    public static final String AUDIENCE = "vigil-engine";
    public static final String METRICS_TOKEN = "scrape-" + UUID.randomUUID();
    static volatile JwtIssuer current;

    private HttpServer server;
    private final List<RsaJsonWebKey> published = new ArrayList<>();
    final AtomicInteger fetches = new AtomicInteger();
    volatile boolean down;
    RsaJsonWebKey signing;

    @Override
    public Map<String, String> start() {
        try {
            signing = key("k1");
            published.add(signing);
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            server.createContext("/jwks", exchange -> {
                fetches.incrementAndGet();
                byte[] body = down ? "issuer down".getBytes(StandardCharsets.UTF_8) : jwks().getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().add("Content-Type", "application/json");
                exchange.sendResponseHeaders(down ? 503 : 200, body.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            });
            server.start();
            Path metricsToken = Files.createTempFile("vigil-metrics-token", "");
            Files.writeString(metricsToken, METRICS_TOKEN + "\n");
            metricsToken.toFile().deleteOnExit();
            current = this;
            Map<String, String> c = new HashMap<>();
            c.put("vigil.auth.data.jwt-enabled", "true");
            c.put("vigil.auth.data.required-scope", "vigil.evaluate");
            c.put("vigil.auth.management.jwt-enabled", "true");
            c.put("vigil.auth.management.metrics-token-file", metricsToken.toString());
            c.put("vigil.auth.jwt.jwks-url", "http://127.0.0.1:" + server.getAddress().getPort() + "/jwks");
            c.put("vigil.auth.jwt.issuer", ISSUER);
            c.put("vigil.auth.jwt.audience", AUDIENCE + ",another-audience");
            c.put("vigil.auth.jwt.max-token-bytes", "4096");
            c.put("vigil.auth.jwt.refresh-interval", "1h");
            c.put("vigil.auth.jwt.refresh-floor", "200ms");
            c.put("vigil.auth.jwt.refresh-max-backoff", "400ms");
            return c;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void stop() {
        if (server != null) {
            server.stop(0);
        }
        current = null;
    }

    static RsaJsonWebKey key(String kid) {
        try {
            RsaJsonWebKey k = RsaJwkGenerator.generateJwk(2048);
            k.setKeyId(kid);
            k.setAlgorithm(AlgorithmIdentifiers.RSA_USING_SHA256);
            return k;
        } catch (JoseException e) {
            throw new IllegalStateException(e);
        }
    }

    synchronized void publish(RsaJsonWebKey k) {
        published.add(k);
    }

    private synchronized String jwks() {
        List<JsonWebKey> keys = new ArrayList<>(published);
        return new JsonWebKeySet(keys).toJson(JsonWebKey.OutputControlLevel.PUBLIC_ONLY);
    }

    /** Claims of a good token: this issuer, this audience, five minutes left, the given scopes, a unique id. */
    static JwtClaims claims(String... scopes) {
        JwtClaims c = new JwtClaims();
        c.setIssuer(ISSUER);
        c.setAudience(AUDIENCE);
        c.setSubject("payment-switch");
        c.setIssuedAtToNow();
        c.setExpirationTimeMinutesInTheFuture(5);
        c.setJwtId(UUID.randomUUID().toString());
        c.setStringClaim("scope", String.join(" ", scopes));
        return c;
    }

    String token(String... scopes) {
        return sign(claims(scopes), signing);
    }

    String token(Consumer<JwtClaims> change, String... scopes) {
        JwtClaims c = claims(scopes);
        change.accept(c);
        return sign(c, signing);
    }

    static String sign(JwtClaims claims, RsaJsonWebKey key) {
        try {
            JsonWebSignature jws = new JsonWebSignature();
            jws.setPayload(claims.toJson());
            jws.setKey(key.getPrivateKey());
            jws.setKeyIdHeaderValue(key.getKeyId());
            jws.setAlgorithmHeaderValue(AlgorithmIdentifiers.RSA_USING_SHA256);
            return jws.getCompactSerialization();
        } catch (JoseException e) {
            throw new IllegalStateException(e);
        }
    }
}
