package io.vigil.engine.auth;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.tls.TlsConfiguration;
import io.quarkus.tls.TlsConfigurationRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.security.KeyStore;
import java.security.KeyStoreException;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.Collections;

/**
 * When the certificates the engine serves expire: {@code vigil_tls_certificate_expiry_timestamp_seconds{configuration}},
 * the earliest notAfter (Unix seconds) in the served chain of each TLS configuration in use ({@code data},
 * {@code management}; ADR 0013). Read from the TLS registry at scrape time, so a reloaded certificate
 * shows at once; the alert {@code VigilCertificateExpiresSoon} and the runbook callers-refused.md use it.
 */
@ApplicationScoped
public class ServedCertificates {
    /** The named TLS configurations the engine's ports may use (data: mutual TLS, management: HTTPS). */
    static final String[] CONFIGURATIONS = {"data", "management"};

    @Inject
    TlsConfigurationRegistry tls;
    @Inject
    MeterRegistry registry;

    void start(@Observes StartupEvent ignored) {
        for (String name : CONFIGURATIONS) {
            if (tls.get(name).map(TlsConfiguration::getKeyStore).isPresent()) {
                Gauge.builder("vigil.tls.certificate.expiry.timestamp", () -> earliestNotAfter(name))
                        .description("Earliest notAfter (Unix time) of the certificate chain served with this TLS configuration")
                        .baseUnit("seconds").tag("configuration", name).register(registry);
            }
        }
    }

    /** Seconds since the epoch of the first notAfter in the served chains, NaN when nothing is served. */
    double earliestNotAfter(String name) {
        KeyStore ks = tls.get(name).map(TlsConfiguration::getKeyStore).orElse(null);
        if (ks == null) {
            return Double.NaN;
        }
        long earliest = Long.MAX_VALUE;
        try {
            for (String alias : Collections.list(ks.aliases())) {
                Certificate[] chain = ks.getCertificateChain(alias);
                for (Certificate c : chain == null ? new Certificate[0] : chain) {
                    if (c instanceof X509Certificate x) {
                        earliest = Math.min(earliest, x.getNotAfter().getTime());
                    }
                }
            }
        } catch (KeyStoreException e) {
            return Double.NaN;
        }
        return earliest == Long.MAX_VALUE ? Double.NaN : earliest / 1000.0;
    }
}
