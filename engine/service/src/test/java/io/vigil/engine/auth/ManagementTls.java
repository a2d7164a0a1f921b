package io.vigil.engine.auth;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The management port with HTTPS from its named TLS configuration, as the operator sets it with
 * {@code spec.auth.management.tls}: a CA made here, the engine's certificate and key as PEM files.
 */
public class ManagementTls implements QuarkusTestResourceLifecycleManager {
    static volatile ManagementTls current;

    final TestCa ca = new TestCa("vigil-management-ca");
    final TestCa otherCa = new TestCa("another-ca");
    TestCa.Issued served;
    Path dir;
    int port;

    @Override
    public Map<String, String> start() {
        try {
            port = MtlsCallers.freePort();
            served = ca.server();
            dir = Files.createTempDirectory("vigil-management-tls");
            Path[] files = served.write(dir, "server");
            current = this;
            return Map.of(
                    "quarkus.tls.management.key-store.pem.0.cert", files[0].toString(),
                    "quarkus.tls.management.key-store.pem.0.key", files[1].toString(),
                    "quarkus.management.tls-configuration-name", "management",
                    "quarkus.management.test-port", Integer.toString(port));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void stop() {
        current = null;
        MtlsCallers.delete(dir);
    }
}
