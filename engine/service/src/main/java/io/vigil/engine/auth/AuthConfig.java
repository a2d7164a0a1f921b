package io.vigil.engine.auth;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Caller authentication ({@code vigil.auth.*}, ADR 0013): who may call the data port and the
 * management port. Everything is off by default; the operator turns it on from the FraudEngine's
 * {@code spec.auth}. TLS itself (certificates, client-certificate requirement) is Quarkus's TLS
 * registry ({@code quarkus.tls.*}, {@code quarkus.http.ssl.client-auth}); this mapping only adds what
 * Quarkus does not do on plain Vert.x routes.
 */
@ConfigMapping(prefix = "vigil.auth")
public interface AuthConfig {

    Jwt jwt();

    Data data();

    Management management();

    /** Bearer tokens: where the keys come from and what a token must say (both ports). */
    interface Jwt {
        /** JWKS of the issuer, fetched off the event loop; exactly one of jwks-url and jwks-file when a port uses JWT. */
        Optional<URI> jwksUrl();

        /** A mounted JWKS document (Secret or ConfigMap), re-read when it changes. */
        Optional<Path> jwksFile();

        /** Required {@code iss}. */
        Optional<String> issuer();

        /** Accepted {@code aud} values (a token must name at least one). */
        Optional<List<String>> audience();

        /** Tolerated clock difference for {@code exp}, {@code nbf} and {@code iat}. */
        @WithDefault("30s")
        Duration clockSkew();

        /** Longest accepted token (characters after {@code Bearer }); longer is refused unparsed. */
        @WithDefault("8192")
        int maxTokenBytes();

        /** Verified tokens kept (each until it expires); beyond it the least used are dropped. */
        @WithDefault("10000")
        int cacheSize();

        /** Accepted signature algorithms: asymmetric only, so {@code none} and HMAC never verify. */
        @WithDefault("RS256,RS384,RS512,PS256,PS384,PS512,ES256,ES384,ES512")
        List<String> algorithms();

        /** How often the JWKS URL is fetched while it answers. */
        @WithDefault("10m")
        Duration refreshInterval();

        /** Never two fetches closer than this, even when tokens name unknown keys (the seeds' 10 s refresh). */
        @WithDefault("30s")
        Duration refreshFloor();

        /** Longest wait between fetches while the issuer fails (doubling from the floor). */
        @WithDefault("5m")
        Duration refreshMaxBackoff();

        /** How often a mounted JWKS file is checked for new content. */
        @WithDefault("10s")
        Duration filePollInterval();
    }

    interface Data {
        /** Bearer JWT required on {@code /v1/*} of the data port. */
        @WithDefault("false")
        boolean jwtEnabled();

        /**
         * A client certificate is required on {@code /v1/*}: the port serves TLS ({@code quarkus.tls.data.*},
         * {@code quarkus.http.tls-configuration-name=data}) and asks every client for a certificate, which
         * the handshake checks against the configured CA; a client that sends none is answered 401
         * {@code no_certificate} here (the build-time {@code client-auth=request} lets it through the
         * handshake so the refusal is counted and explained rather than a bare TLS alert).
         */
        @WithDefault("false")
        boolean clientCertificateRequired();

        /** A scope or role the token must carry ({@code scope}, {@code scp}, {@code roles} or {@code groups} claim). */
        Optional<String> requiredScope();

        /**
         * With a client certificate required (mutual TLS): callers allowed by their certificate's subject
         * DN (RFC 2253, e.g. {@code CN=switch-a,O=Acme}) or URI SAN (a SPIFFE ID such as
         * {@code spiffe://acme.example/ns/payments/sa/switch}). Empty: any certificate from the trusted CA.
         */
        Optional<List<String>> allowedSubjects();
    }

    interface Management {
        /** Bearer JWT required on the management port (except the kubelet's probes). */
        @WithDefault("false")
        boolean jwtEnabled();

        /** Scope or role that reads: GET/HEAD (rulesets, health detail, metrics, OpenAPI). */
        @WithDefault("vigil.read")
        String readScope();

        /** Scope or role that changes or computes: every other method (activate, validate, simulate, replay). */
        @WithDefault("vigil.write")
        String writeScope();

        /**
         * A file holding a static bearer credential that may read the metrics path only: what Prometheus
         * sends ({@code authorization.credentials_file}) since it cannot fetch short-lived tokens.
         */
        Optional<Path> metricsTokenFile();
    }
}
