package io.vigil.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** Small helpers shared by the harnesses that run real local processes (Redis, Kafka). */
public final class LocalProcesses {
    private LocalProcesses() {
    }

    /** A port nothing listens on right now, on {@code host}. */
    public static int freePort(String host) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress(host, 0));
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port", e);
        }
    }

    /**
     * The host address that pods of the local cluster's real node reach the host on: the source
     * address of the default route ({@code VIGIL_NODE_IP} overrides), as node-lib.sh's node_ip. Pod
     * traffic to 127.0.0.0/8 is dropped by the kubelet's KUBE-FIREWALL chain, so a server that pods
     * use must also listen here.
     */
    public static String podReachableHost() {
        String configured = System.getenv("VIGIL_NODE_IP");
        if (configured != null && !configured.isBlank()) {
            return configured.trim();
        }
        // connect() on a UDP socket sends nothing; it only selects the route and thus the source address.
        try (java.net.DatagramSocket socket = new java.net.DatagramSocket()) {
            socket.connect(new InetSocketAddress("1.1.1.1", 53));
            String address = socket.getLocalAddress().getHostAddress();
            if (socket.getLocalAddress().isAnyLocalAddress() || socket.getLocalAddress().isLoopbackAddress()) {
                throw new IllegalStateException("no host address outside loopback (no default route); set VIGIL_NODE_IP");
            }
            return address;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot find the host address pods reach (set VIGIL_NODE_IP)", e);
        }
    }

    /** Deletes a directory tree, best effort (a harness cleaning up must not fail the test). */
    public static void deleteRecursively(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException ignored) {
                    // best effort
                }
            });
        } catch (IOException ignored) {
            // best effort
        }
    }

    /** The last {@code n} lines of the given log files (those that exist, in order), for error messages. */
    public static String tail(int n, Path... logs) {
        try {
            List<String> lines = new ArrayList<>();
            for (Path f : logs) {
                if (Files.exists(f)) {
                    lines.addAll(Files.readAllLines(f, StandardCharsets.UTF_8));
                }
            }
            return lines.isEmpty() ? "(no log yet)" : String.join("\n", lines.subList(Math.max(0, lines.size() - n), lines.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** Sleeps; an interrupt becomes an exception so a stuck harness does not swallow it. */
    public static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
