package io.vigil.engine.auth;

/**
 * Why a caller was refused: the {@code reason} label of {@code vigil_auth_refused_total}, the HTTP
 * status, the body's {@code code} and the RFC 6750 {@code error} of {@code WWW-Authenticate}.
 * The message never repeats the token.
 */
public enum Refusal {
    MISSING(401, null, "no bearer token (Authorization: Bearer <token>)"),
    MALFORMED(401, "invalid_token", "the bearer token is not a signed JWT"),
    TOO_LARGE(401, "invalid_token", "the bearer token is larger than the limit"),
    ALGORITHM(401, "invalid_token", "the token's signature algorithm is not accepted (none and HMAC never are)"),
    UNKNOWN_KEY(401, "invalid_token", "the token's signing key (kid) is not among the issuer's keys"),
    SIGNATURE(401, "invalid_token", "the token's signature does not verify"),
    EXPIRED(401, "invalid_token", "the token has expired"),
    NOT_YET_VALID(401, "invalid_token", "the token is not valid yet (nbf/iat in the future)"),
    ISSUER(401, "invalid_token", "the token's issuer (iss) is not the configured one"),
    AUDIENCE(401, "invalid_token", "the token's audience (aud) does not name this engine"),
    CLAIMS(401, "invalid_token", "the token lacks a required claim (exp) or has a malformed one"),
    /** The engine has no keys yet (issuer never answered): the engine's problem, so a 5xx in the SLI. */
    KEYS_UNAVAILABLE(503, null, "the engine has not loaded the issuer's keys yet"),
    INSUFFICIENT_SCOPE(403, "insufficient_scope", "the token does not carry the scope or role this call needs"),
    NO_CERTIFICATE(401, null, "no client certificate"),
    SUBJECT_NOT_ALLOWED(403, null, "the client certificate's subject is not an allowed caller");

    public final int status;
    /** RFC 6750 error code, null when the header carries none (no credentials at all). */
    public final String bearerError;
    public final String message;
    public final String label;

    Refusal(int status, String bearerError, String message) {
        this.status = status;
        this.bearerError = bearerError;
        this.message = message;
        this.label = name().toLowerCase(java.util.Locale.ROOT);
    }

    /** The body's {@code code}. */
    public String code() {
        return switch (status) {
            case 401 -> "UNAUTHENTICATED";
            case 403 -> "FORBIDDEN";
            default -> "AUTH_UNAVAILABLE";
        };
    }
}
