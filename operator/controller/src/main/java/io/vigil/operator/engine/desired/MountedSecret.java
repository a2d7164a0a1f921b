package io.vigil.operator.engine.desired;

/**
 * One key of a Secret the engine pod mounts for {@code spec.auth} or {@code spec.personalData}: where it
 * comes from (the spec field, for status messages), where it goes (volume and file name) and what the
 * engine expects to find in it (checked by the operator before any pod mounts it).
 *
 * @param field   the spec field naming it, e.g. {@code spec.auth.tls.clientCaSecretRef}
 * @param volume  the engine pod's volume holding it (one volume per Secret)
 * @param file    the file name inside the volume's mount
 * @param writtenBy who writes the Secret when it is not the user (a cert-manager Certificate), or null
 */
public record MountedSecret(String field, String secret, String key, String volume, String file, Content content, String writtenBy) {

    public MountedSecret(String field, String secret, String key, String volume, String file, Content content) {
        this(field, secret, key, volume, file, content, null);
    }

    /** What the engine expects in the key. */
    public enum Content {
        /** A JWKS document with at least one public signature key. */
        JWKS,
        /** A static bearer credential (not blank). */
        BEARER_TOKEN,
        /** PEM certificate chain, the server's first (tls.crt). */
        CERTIFICATE_CHAIN,
        /** PEM private key of the chain's first certificate (tls.key). */
        PRIVATE_KEY,
        /** PEM CA certificates. */
        CA_CERTIFICATES,
        /** An HMAC key of at least 16 bytes. */
        HASH_KEY
    }
}
