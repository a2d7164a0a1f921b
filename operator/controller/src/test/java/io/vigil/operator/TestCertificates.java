package io.vigil.operator;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Real self-signed certificates and their keys as PEM, as cert-manager or openssl write them into a
 * kubernetes.io/tls Secret (BouncyCastle).
 */
public final class TestCertificates {

    /**
     * @param keyPkcs1 the key as a traditional PEM block (BEGIN RSA PRIVATE KEY, cert-manager's default for RSA); for EC
     *                 keys use {@code keyPkcs8}: BouncyCastle writes a JDK EC key's SEC1 block without its curve
     */
    public record Pem(String certificate, String keyPkcs1, String keyPkcs8) {
    }

    private TestCertificates() {
    }

    /** @param algorithm "RSA" (2048 bits) or "EC" (P-256); valid from an hour ago for a year (no expiry warning) */
    public static Pem selfSigned(String commonName, String algorithm) {
        Instant now = Instant.now();
        return selfSigned(commonName, algorithm, now.minus(1, ChronoUnit.HOURS), now.plus(365, ChronoUnit.DAYS));
    }

    /** A certificate valid from {@code notBefore} to {@code notAfter} (an expired one, one about to expire). */
    public static Pem selfSigned(String commonName, String algorithm, Instant notBefore, Instant notAfter) {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance(algorithm);
            g.initialize("RSA".equals(algorithm) ? 2048 : 256);
            KeyPair keys = g.generateKeyPair();
            X500Name name = new X500Name("CN=" + commonName);
            var holder = new JcaX509v3CertificateBuilder(name, BigInteger.valueOf(Instant.now().toEpochMilli()), Date.from(notBefore),
                    Date.from(notAfter), name, keys.getPublic())
                    .build(new JcaContentSignerBuilder("RSA".equals(algorithm) ? "SHA256withRSA" : "SHA256withECDSA").build(keys.getPrivate()));
            return new Pem(pem(holder), pem(keys), pem(new JcaPKCS8Generator(keys.getPrivate(), null)));
        } catch (GeneralSecurityException | OperatorCreationException | IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String pem(Object o) {
        StringWriter s = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(s)) {
            w.writeObject(o);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return s.toString();
    }
}
