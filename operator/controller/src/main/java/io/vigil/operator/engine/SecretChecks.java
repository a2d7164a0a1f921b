package io.vigil.operator.engine;

import io.fabric8.kubernetes.api.model.Secret;
import io.vigil.operator.engine.desired.MountedSecret;
import io.vigil.operator.engine.desired.MountedSecret.Content;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;
import org.jose4j.jwk.EllipticCurveJsonWebKey;
import org.jose4j.jwk.JsonWebKey;
import org.jose4j.jwk.JsonWebKeySet;
import org.jose4j.jwk.OctetKeyPairJsonWebKey;
import org.jose4j.jwk.RsaJsonWebKey;
import org.jose4j.lang.JoseException;

/**
 * Whether the Secrets an engine pod would mount ({@link MountedSecret}) hold what the engine reads, so
 * a missing or malformed one is a status condition instead of pods stuck mounting it or crash-looping
 * on it. The checks follow the engine's own: a JWKS with a public signature key (symmetric and
 * encryption keys are dropped there too), PEM certificates, a PEM private key that belongs to the
 * server certificate, a non-blank metrics token, a hashing key of at least 16 bytes. Pure.
 */
public final class SecretChecks {
    public static final String SECRET_MISSING = "SecretMissing";
    public static final String SECRET_KEY_MISSING = "SecretKeyMissing";
    public static final String SECRET_INVALID = "SecretInvalid";
    /** A served or trusted certificate is past its notAfter: said in status, nothing held (pods already serve it). */
    public static final String CERTIFICATE_EXPIRED = "CertificateExpired";
    /** A served or trusted certificate expires within {@link #EXPIRES_SOON}: a warning in status. */
    public static final String CERTIFICATE_EXPIRES_SOON = "CertificateExpiresSoon";
    /** The same horizon as the VigilCertificateExpiresSoon alert. */
    public static final Duration EXPIRES_SOON = Duration.ofDays(14);

    /**
     * @param reason {@link #SECRET_MISSING}, {@link #SECRET_KEY_MISSING} or {@link #SECRET_INVALID} (the Secret is
     *               not usable: the engine is held), or {@link #CERTIFICATE_EXPIRED} / {@link #CERTIFICATE_EXPIRES_SOON}
     *               (usable, reported only)
     */
    public record SecretProblem(String reason, MountedSecret secret, String message) {
        /** Whether no pod may mount the Secret as it is (the engine's configuration is held). */
        public boolean blocking() {
            return !CERTIFICATE_EXPIRED.equals(reason) && !CERTIFICATE_EXPIRES_SOON.equals(reason);
        }
    }

    private SecretChecks() {
    }

    /**
     * Every problem of the mounted Secrets, in mount order; a missing Secret is named once.
     *
     * @param lookup the Secret of the engine's namespace with that name, or null
     */
    public static List<SecretProblem> check(List<MountedSecret> mounted, Function<String, Secret> lookup) {
        return check(mounted, lookup, Instant.now());
    }

    /**
     * As {@link #check(List, Function)}, with certificates' expiry judged at {@code now}: a served chain by
     * its earliest notAfter, a CA bundle by its latest (an old CA expiring during a rotation is normal).
     */
    public static List<SecretProblem> check(List<MountedSecret> mounted, Function<String, Secret> lookup, Instant now) {
        List<SecretProblem> out = new ArrayList<>();
        Set<String> missing = new HashSet<>();
        X509Certificate serverCertificate = null;
        for (MountedSecret m : mounted) {
            Secret secret = lookup.apply(m.secret());
            if (secret == null) {
                if (missing.add(m.secret())) {
                    out.add(new SecretProblem(SECRET_MISSING, m, "Secret " + m.secret() + " (" + m.field() + ") does not exist"
                            + (m.writtenBy() == null ? "" : " yet: " + m.writtenBy() + " writes it once issued")));
                }
                continue;
            }
            Map<String, String> data = secret.getData() == null ? Map.of() : secret.getData();
            if (!data.containsKey(m.key())) {
                out.add(new SecretProblem(SECRET_KEY_MISSING, m, "Secret " + m.secret() + " (" + m.field() + ") has no key "
                        + m.key() + " (its keys: " + new TreeSet<>(data.keySet()) + ")"));
                continue;
            }
            try {
                byte[] value = Base64.getDecoder().decode(data.get(m.key()) == null ? "" : data.get(m.key()));
                Object parsed = parse(m.content(), value);
                if (m.content() == Content.CERTIFICATE_CHAIN || m.content() == Content.CA_CERTIFICATES) {
                    expiry(m, certificates(value), now).ifPresent(out::add);
                }
                if (m.content() == Content.CERTIFICATE_CHAIN) {
                    serverCertificate = (X509Certificate) parsed;
                } else if (m.content() == Content.PRIVATE_KEY && serverCertificate != null) {
                    checkKeyPair(serverCertificate, (PrivateKey) parsed);
                }
            } catch (IllegalArgumentException | IOException | GeneralSecurityException | JoseException e) {
                out.add(new SecretProblem(SECRET_INVALID, m, "Secret " + m.secret() + " key " + m.key() + " (" + m.field() + "): "
                        + e.getMessage()));
            }
        }
        return out;
    }

    /** The key's content as the engine would read it (the chain's first certificate, the private key), or an exception saying why not. */
    static Object parse(Content content, byte[] value) throws IOException, GeneralSecurityException, JoseException {
        switch (content) {
            case BEARER_TOKEN -> {
                if (new String(value, StandardCharsets.UTF_8).isBlank()) {
                    throw new IllegalArgumentException("the metrics token is empty");
                }
                return value;
            }
            case HASH_KEY -> {
                if (value.length < 16) {
                    throw new IllegalArgumentException("holds " + value.length + " bytes; a hashing key needs at least 16");
                }
                return value;
            }
            case JWKS -> {
                long usable = 0;
                for (JsonWebKey k : new JsonWebKeySet(new String(value, StandardCharsets.UTF_8)).getJsonWebKeys()) {
                    if ((k instanceof RsaJsonWebKey || k instanceof EllipticCurveJsonWebKey || k instanceof OctetKeyPairJsonWebKey)
                            && !"enc".equals(k.getUse())) {
                        usable++;
                    }
                }
                if (usable == 0) {
                    throw new IllegalArgumentException("the JWKS holds no public signature key (symmetric and encryption keys are not used)");
                }
                return usable;
            }
            case CERTIFICATE_CHAIN, CA_CERTIFICATES -> {
                List<X509Certificate> certificates = certificates(value);
                if (certificates.isEmpty()) {
                    throw new CertificateException("no PEM certificate (-----BEGIN CERTIFICATE-----) in it");
                }
                return certificates.get(0);
            }
            case PRIVATE_KEY -> {
                List<Object> objects = pem(value);
                for (Object o : objects) {
                    if (o instanceof PEMKeyPair pair) {
                        // the private part only: an EC key block need not carry its public key
                        return new JcaPEMKeyConverter().getPrivateKey(pair.getPrivateKeyInfo());
                    }
                    if (o instanceof PrivateKeyInfo info) {
                        return new JcaPEMKeyConverter().getPrivateKey(info);
                    }
                    if (o instanceof PEMEncryptedKeyPair || o instanceof PKCS8EncryptedPrivateKeyInfo) {
                        throw new IllegalArgumentException("the private key is encrypted; the engine reads unencrypted PEM keys only");
                    }
                }
                throw new IllegalArgumentException("no PEM private key (-----BEGIN [RSA |EC ]PRIVATE KEY-----) in it");
            }
            default -> throw new IllegalStateException("unknown content " + content);
        }
    }

    private static List<X509Certificate> certificates(byte[] value) throws IOException, CertificateException {
        List<X509Certificate> certificates = new ArrayList<>();
        for (Object o : pem(value)) {
            if (o instanceof X509CertificateHolder h) {
                certificates.add(new JcaX509CertificateConverter().getCertificate(h));
            }
        }
        return certificates;
    }

    /**
     * The next instant after {@code now} at which the expiry verdict of these Secrets changes with no event:
     * a deciding certificate (as {@link #check(List, Function, Instant)} picks it) crossing the
     * {@link #EXPIRES_SOON} line or its notAfter. Empty when none will (no certificate, or all expired).
     * Missing or unreadable keys are skipped: {@code check} reports them, and fixing them is an event.
     */
    public static Optional<Instant> nextExpiryChange(List<MountedSecret> mounted, Function<String, Secret> lookup, Instant now) {
        Optional<Instant> next = Optional.empty();
        for (MountedSecret m : mounted) {
            if (m.content() != Content.CERTIFICATE_CHAIN && m.content() != Content.CA_CERTIFICATES) {
                continue;
            }
            Secret secret = lookup.apply(m.secret());
            String encoded = secret == null || secret.getData() == null ? null : secret.getData().get(m.key());
            if (encoded == null) {
                continue;
            }
            Optional<X509Certificate> deciding;
            try {
                deciding = deciding(m, certificates(Base64.getDecoder().decode(encoded)));
            } catch (IllegalArgumentException | IOException | CertificateException e) {
                continue;
            }
            if (deciding.isEmpty()) {
                continue;
            }
            Instant notAfter = deciding.get().getNotAfter().toInstant();
            for (Instant crossing : List.of(notAfter.minus(EXPIRES_SOON), notAfter)) {
                if (crossing.isAfter(now) && (next.isEmpty() || crossing.isBefore(next.get()))) {
                    next = Optional.of(crossing);
                }
            }
        }
        return next;
    }

    /** The certificate whose notAfter decides: a served chain's earliest, a CA bundle's latest. */
    private static Optional<X509Certificate> deciding(MountedSecret m, List<X509Certificate> certificates) {
        Comparator<X509Certificate> byNotAfter = Comparator.comparing(X509Certificate::getNotAfter);
        return m.content() == Content.CA_CERTIFICATES ? certificates.stream().max(byNotAfter) : certificates.stream().min(byNotAfter);
    }

    /** Expired or expiring soon, naming the certificate and its notAfter (a date, so the message is stable between checks). */
    private static Optional<SecretProblem> expiry(MountedSecret m, List<X509Certificate> certificates, Instant now) {
        Optional<X509Certificate> deciding = deciding(m, certificates);
        if (deciding.isEmpty()) {
            return Optional.empty();
        }
        X509Certificate c = deciding.get();
        Instant notAfter = c.getNotAfter().toInstant();
        String which = "Secret " + m.secret() + " key " + m.key() + " (" + m.field() + "): certificate "
                + c.getSubjectX500Principal().getName();
        if (!notAfter.isAfter(now)) {
            return Optional.of(new SecretProblem(CERTIFICATE_EXPIRED, m, which + " expired at " + notAfter));
        }
        if (notAfter.isBefore(now.plus(EXPIRES_SOON))) {
            return Optional.of(new SecretProblem(CERTIFICATE_EXPIRES_SOON, m, which + " expires at " + notAfter
                    + " (within " + EXPIRES_SOON.toDays() + " days)"));
        }
        return Optional.empty();
    }

    /** PEM objects in order; text that is not PEM yields none, a PEM block with broken content throws. */
    private static List<Object> pem(byte[] value) throws IOException {
        List<Object> out = new ArrayList<>();
        try (PEMParser parser = new PEMParser(new StringReader(new String(value, StandardCharsets.US_ASCII)))) {
            for (Object o = parser.readObject(); o != null; o = parser.readObject()) {
                out.add(o);
            }
        } catch (IOException | RuntimeException e) {
            throw new IOException("malformed PEM: " + e.getMessage(), e);
        }
        return out;
    }

    /** The private key must be the certificate's: a signature made with it verifies with the certificate's public key. */
    private static void checkKeyPair(X509Certificate certificate, PrivateKey key) throws GeneralSecurityException {
        PublicKey publicKey = certificate.getPublicKey();
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC", "ECDSA" -> "SHA256withECDSA";
            case "Ed25519", "EdDSA" -> "Ed25519";
            default -> null; // an algorithm the JDK names otherwise: not compared
        };
        if (algorithm == null) {
            return;
        }
        if (!key.getAlgorithm().equals(publicKey.getAlgorithm()) && !(algorithm.equals("SHA256withECDSA") && publicKey.getAlgorithm().startsWith("EC"))) {
            throw new IllegalArgumentException("the private key (" + key.getAlgorithm() + ") does not belong to the certificate "
                    + certificate.getSubjectX500Principal().getName() + " in tls.crt (" + publicKey.getAlgorithm() + " key)");
        }
        byte[] probe = "vigil key pair check".getBytes(StandardCharsets.US_ASCII);
        Signature sign = Signature.getInstance(algorithm);
        sign.initSign(key);
        sign.update(probe);
        byte[] signature = sign.sign();
        Signature verify = Signature.getInstance(algorithm);
        verify.initVerify(publicKey);
        verify.update(probe);
        if (!verify.verify(signature)) {
            throw new IllegalArgumentException("the private key does not belong to the certificate "
                    + certificate.getSubjectX500Principal().getName() + " in tls.crt");
        }
    }
}
