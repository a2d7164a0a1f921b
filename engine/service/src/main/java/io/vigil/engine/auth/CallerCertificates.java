package io.vigil.engine.auth;

import java.security.cert.Certificate;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import javax.security.auth.x500.X500Principal;

/**
 * Which client certificates may call, once the TLS handshake has proven them (Quarkus's TLS registry
 * checks the chain against the configured CA; this only narrows who, by subject DN or URI SAN such
 * as a SPIFFE ID). The answer is kept in the TLS session, so a keep-alive connection pays for it once.
 */
public final class CallerCertificates {
    private static final String VERDICT = "vigil.caller.certificate";
    private static final int URI_SAN = 6;

    private final Set<X500Principal> subjects = new HashSet<>();
    private final Set<String> uris = new HashSet<>();

    public CallerCertificates(List<String> allowed) {
        for (String a : allowed) {
            String s = a.trim();
            if (s.isEmpty()) {
                continue;
            }
            if (s.contains("://")) {
                uris.add(s);
            } else {
                try {
                    subjects.add(new X500Principal(s));
                } catch (IllegalArgumentException e) {
                    throw new IllegalStateException("vigil.auth.data.allowed-subjects: \"" + s
                            + "\" is neither a distinguished name (CN=...,O=...) nor a URI (spiffe://...): " + e.getMessage());
                }
            }
        }
    }

    /** Null when the session's client certificate is allowed, else why not. */
    public Refusal check(SSLSession session) {
        if (session == null) {
            return Refusal.NO_CERTIFICATE;
        }
        Object cached = session.getValue(VERDICT);
        if (cached instanceof Refusal r) {
            return r;
        }
        if (cached != null) {
            return null;
        }
        Refusal verdict = decide(session);
        session.putValue(VERDICT, verdict == null ? Boolean.TRUE : verdict);
        return verdict;
    }

    private Refusal decide(SSLSession session) {
        Certificate[] chain;
        try {
            chain = session.getPeerCertificates();
        } catch (SSLPeerUnverifiedException e) {
            return Refusal.NO_CERTIFICATE;
        }
        if (chain.length == 0 || !(chain[0] instanceof X509Certificate leaf)) {
            return Refusal.NO_CERTIFICATE;
        }
        return allowed(leaf) ? null : Refusal.SUBJECT_NOT_ALLOWED;
    }

    boolean allowed(X509Certificate leaf) {
        if (subjects.isEmpty() && uris.isEmpty()) {
            return true;
        }
        if (subjects.contains(leaf.getSubjectX500Principal())) {
            return true;
        }
        try {
            Collection<List<?>> sans = leaf.getSubjectAlternativeNames();
            if (sans != null) {
                for (List<?> san : sans) {
                    if (san.size() == 2 && Integer.valueOf(URI_SAN).equals(san.get(0)) && uris.contains(String.valueOf(san.get(1)))) {
                        return true;
                    }
                }
            }
        } catch (CertificateParsingException e) {
            return false;
        }
        return false;
    }
}
