package io.vigil.engine.auth;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The data port with mutual TLS: a CA made here, the engine's certificate and key as PEM files
 * (reloaded every second, as a mounted Secret would be), client certificates for the tests.
 */
public class MtlsCallers implements QuarkusTestResourceLifecycleManager {
    public static final String SPIFFE = "spiffe://vigil.test/ns/payments/sa/switch";
    public static final String ALLOWED_DN = "CN=switch-b,O=Vigil Test";
    static volatile MtlsCallers current;

    final TestCa ca = new TestCa("vigil-test-ca");
    final TestCa otherCa = new TestCa("another-ca");
    Path dir;
    int port;

    @Override
    public Map<String, String> start() {
        try {
            dir = Files.createTempDirectory("vigil-mtls");
            ca.writeCertificate(dir.resolve("ca.crt"));
            port = freePort();
            current = this;
            Map<String, String> c = new HashMap<>();
            Path[] server = ca.server().write(dir, "server");
            c.put("quarkus.tls.data.key-store.pem.0.cert", server[0].toString());
            c.put("quarkus.tls.data.key-store.pem.0.key", server[1].toString());
            c.put("quarkus.tls.data.trust-store.pem.certs", dir.resolve("ca.crt").toString());
            c.put("quarkus.tls.data.reload-period", "2s");
            c.put("quarkus.http.tls-configuration-name", "data");
            c.put("quarkus.http.insecure-requests", "disabled");
            c.put("quarkus.http.test-ssl-port", Integer.toString(port));
            c.put("vigil.auth.data.client-certificate-required", "true");
            c.put("vigil.auth.data.allowed-subjects", SPIFFE + "," + ALLOWED_DN.replace(",", "\\,"));
            return c;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void stop() {
        current = null;
        delete(dir);
    }

    /** A port free now, for a test port the test must know before Quarkus starts. */
    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    static void delete(Path dir) {
        if (dir != null) {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(f);
                }
            } catch (IOException e) {
                // a temp dir left behind is harmless
            }
        }
    }
}
