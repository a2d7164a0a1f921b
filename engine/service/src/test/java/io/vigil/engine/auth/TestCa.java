package io.vigil.engine.auth;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/** A real certificate authority made in the test (BouncyCastle): it issues server and client certificates. */
public final class TestCa {
    private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());

    /** A key and its certificate chain (leaf first). */
    public record Issued(KeyPair keys, X509Certificate certificate, X509Certificate ca) {
        /**
         * Writes {@code name.crt} (leaf then CA) and {@code name.key} (PKCS#8 PEM) as a mounted Secret is
         * updated: into a new directory, then {@code dir/current} (a symlink) swapped to it at once, so a
         * reload never sees a new key with an old certificate. Paths are {@code dir/current/name.*}.
         */
        public Path[] write(Path dir, String name) {
            try {
                Path fresh = Files.createTempDirectory(dir, "..data-");
                Files.writeString(fresh.resolve(name + ".crt"), pem(certificate) + pem(ca));
                Files.writeString(fresh.resolve(name + ".key"), pem(keys.getPrivate()));
                Path link = dir.resolve("current");
                Path tmp = dir.resolve("current.tmp");
                Files.deleteIfExists(tmp);
                Files.createSymbolicLink(tmp, fresh.getFileName());
                Files.move(tmp, link, java.nio.file.StandardCopyOption.ATOMIC_MOVE, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                return new Path[] {link.resolve(name + ".crt"), link.resolve(name + ".key")};
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** A TLS client context presenting this certificate and trusting {@code trusted}. */
        public SSLContext clientContext(X509Certificate trusted) {
            return context(this, trusted);
        }

        /**
         * Like {@link #clientContext} but presenting this certificate even when the server's list of
         * accepted CAs does not name its issuer (the JDK's key manager would then send none): what an
         * attacker holding a certificate from another CA does.
         */
        public SSLContext insistingClientContext(X509Certificate trusted) {
            try {
                SSLContext ctx = SSLContext.getInstance("TLS");
                X509Certificate[] chain = {certificate, ca};
                javax.net.ssl.X509ExtendedKeyManager km = new javax.net.ssl.X509ExtendedKeyManager() {
                    public String[] getClientAliases(String type, java.security.Principal[] issuers) {
                        return new String[] {"client"};
                    }

                    public String chooseClientAlias(String[] type, java.security.Principal[] issuers, java.net.Socket s) {
                        return "client";
                    }

                    public String chooseEngineClientAlias(String[] type, java.security.Principal[] issuers, javax.net.ssl.SSLEngine e) {
                        return "client";
                    }

                    public String[] getServerAliases(String type, java.security.Principal[] issuers) {
                        return null;
                    }

                    public String chooseServerAlias(String type, java.security.Principal[] issuers, java.net.Socket s) {
                        return null;
                    }

                    public X509Certificate[] getCertificateChain(String alias) {
                        return chain;
                    }

                    public java.security.PrivateKey getPrivateKey(String alias) {
                        return keys.getPrivate();
                    }
                };
                ctx.init(new javax.net.ssl.KeyManager[] {km}, trustManagers(trusted), new SecureRandom());
                return ctx;
            } catch (GeneralSecurityException | IOException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private final KeyPair keys;
    private final X509Certificate certificate;

    public TestCa(String name) {
        try {
            keys = keyPair();
            X500Name subject = x500("CN=" + name + ",O=Vigil Test");
            X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(subject, serial(), notBefore(), notAfter(), subject, keys.getPublic());
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
            b.addExtension(Extension.subjectKeyIdentifier, false, new JcaX509ExtensionUtils().createSubjectKeyIdentifier(keys.getPublic()));
            certificate = new JcaX509CertificateConverter().getCertificate(b.build(signer(keys)));
        } catch (GeneralSecurityException | IOException | OperatorCreationException e) {
            throw new IllegalStateException(e);
        }
    }

    public X509Certificate certificate() {
        return certificate;
    }

    public Path writeCertificate(Path file) {
        try {
            Files.writeString(file, pem(certificate));
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A server certificate for localhost and 127.0.0.1. */
    public Issued server() {
        return issue("CN=localhost,O=Vigil Test", KeyPurposeId.id_kp_serverAuth,
                new GeneralName(GeneralName.dNSName, "localhost"), new GeneralName(GeneralName.iPAddress, "127.0.0.1"));
    }

    /** A client certificate with this subject and, when given, a URI SAN (a SPIFFE ID). */
    public Issued client(String subject, String uri) {
        return uri == null ? issue(subject, KeyPurposeId.id_kp_clientAuth)
                : issue(subject, KeyPurposeId.id_kp_clientAuth, new GeneralName(GeneralName.uniformResourceIdentifier, uri));
    }

    private Issued issue(String subject, KeyPurposeId purpose, GeneralName... names) {
        try {
            KeyPair k = keyPair();
            X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(X500Name.getInstance(certificate.getSubjectX500Principal().getEncoded()),
                    serial(), notBefore(), notAfter(), x500(subject), k.getPublic());
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
            b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose));
            if (names.length > 0) {
                b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names));
            }
            return new Issued(k, new JcaX509CertificateConverter().getCertificate(b.build(signer(keys))), certificate);
        } catch (GeneralSecurityException | IOException | OperatorCreationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A client TLS context: the given client certificate (or none) and the CA to trust for the server. */
    static SSLContext context(Issued client, X509Certificate trusted) {
        try {
            KeyManagerFactory kmf = null;
            if (client != null) {
                KeyStore ks = KeyStore.getInstance("PKCS12");
                ks.load(null, null);
                ks.setKeyEntry("client", client.keys().getPrivate(), "x".toCharArray(), new Certificate[] {client.certificate(), client.ca()});
                kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                kmf.init(ks, "x".toCharArray());
            }
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(kmf == null ? null : kmf.getKeyManagers(), trustManagers(trusted), new SecureRandom());
            return ctx;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A name encoded as the JDK (and openssl, cert-manager) encode an RFC 2253 string: most significant RDN first. */
    private static X500Name x500(String rfc2253) {
        return X500Name.getInstance(new javax.security.auth.x500.X500Principal(rfc2253).getEncoded());
    }

    private static javax.net.ssl.TrustManager[] trustManagers(X509Certificate trusted) throws GeneralSecurityException, IOException {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", trusted);
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        return tmf.getTrustManagers();
    }

    private static KeyPair keyPair() throws GeneralSecurityException {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(256);
        return g.generateKeyPair();
    }

    private static ContentSigner signer(KeyPair k) throws OperatorCreationException {
        return new JcaContentSignerBuilder("SHA256withECDSA").build(k.getPrivate());
    }

    private static BigInteger serial() {
        return BigInteger.valueOf(SERIAL.incrementAndGet());
    }

    private static Date notBefore() {
        return Date.from(Instant.now().minus(1, ChronoUnit.HOURS));
    }

    private static Date notAfter() {
        return Date.from(Instant.now().plus(1, ChronoUnit.DAYS));
    }

    static String pem(Object o) {
        StringWriter s = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(s)) {
            w.writeObject(o instanceof java.security.PrivateKey p ? new org.bouncycastle.openssl.jcajce.JcaPKCS8Generator(p, null) : o);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return s.toString();
    }

}
