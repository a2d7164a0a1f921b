package io.vigil.testing.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A local Redis Cluster of N masters (no replicas), each a real {@link RedisServer} with
 * {@code --cluster-enabled yes}, joined with {@code redis-cli --cluster create ... --cluster-yes}.
 *
 * <pre>{@code
 * try (RedisCluster cluster = RedisCluster.start(3)) {
 *     String hosts = cluster.hosts();   // redis://127.0.0.1:p1,redis://127.0.0.1:p2,...
 * }
 * }</pre>
 */
public final class RedisCluster implements AutoCloseable {

    private final List<RedisServer> nodes;

    private RedisCluster(List<RedisServer> nodes) {
        this.nodes = List.copyOf(nodes);
    }

    /** Starts {@code masters} (at least 3, Redis' minimum) nodes and waits for {@code cluster_state:ok}. */
    public static RedisCluster start(int masters) {
        if (masters < 3) {
            throw new IllegalArgumentException("a Redis Cluster needs at least 3 masters, got " + masters);
        }
        List<RedisServer> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < masters; i++) {
                nodes.add(RedisServer.builder().clusterEnabled(true).start());
            }
            create(nodes);
            RedisCluster cluster = new RedisCluster(nodes);
            cluster.awaitHealthy(Duration.ofSeconds(30));
            return cluster;
        } catch (RuntimeException e) {
            nodes.forEach(RedisServer::close);
            throw e;
        }
    }

    private static void create(List<RedisServer> nodes) {
        List<String> cmd = new ArrayList<>(List.of(Binaries.redisCli(), "--cluster", "create"));
        for (RedisServer node : nodes) {
            cmd.add(RedisServer.HOST + ":" + node.port());
        }
        cmd.addAll(List.of("--cluster-replicas", "0", "--cluster-yes"));
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            boolean done = p.waitFor(60, TimeUnit.SECONDS);
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!done) {
                p.destroyForcibly();
                throw new IllegalStateException("redis-cli --cluster create timed out:\n" + out);
            }
            if (p.exitValue() != 0 || !out.contains("[OK] All 16384 slots covered")) {
                throw new IllegalStateException("redis-cli --cluster create failed (exit " + p.exitValue() + "):\n" + out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run redis-cli", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** Waits until every running node reports {@code cluster_state:ok} and knows all the others. */
    public void awaitHealthy(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            boolean ok = true;
            for (RedisServer node : nodes) {
                if (!node.isRunning() || node.isFrozen()) {
                    continue;
                }
                Object info;
                try {
                    info = Resp.command(RedisServer.HOST, node.port(), 1000, "CLUSTER", "INFO");
                } catch (IOException e) {
                    info = e.toString();
                }
                last = node.port() + ": " + info;
                String text = String.valueOf(info);
                if (!text.contains("cluster_state:ok")
                        || !text.contains("cluster_known_nodes:" + nodes.size())
                        || !text.contains("cluster_slots_ok:16384")) {
                    ok = false;
                    break;
                }
            }
            if (ok) {
                return;
            }
            RedisServer.sleep(50);
        }
        throw new IllegalStateException("cluster not healthy within " + timeout + "; last CLUSTER INFO " + last);
    }

    public List<RedisServer> nodes() {
        return nodes;
    }

    /** Comma-separated seed URIs, the form {@code quarkus.redis.hosts} takes with client-type=cluster. */
    public String hosts() {
        return nodes.stream().map(RedisServer::uri).collect(Collectors.joining(","));
    }

    /** The node that owns a key's hash slot (CLUSTER KEYSLOT, then each node's own slot ranges). */
    public RedisServer nodeFor(String key) {
        long slot = (Long) nodes.get(0).command("CLUSTER", "KEYSLOT", key);
        for (RedisServer node : nodes) {
            if (ownsSlot(myselfLine(node), slot)) {
                return node;
            }
        }
        throw new IllegalStateException("no node owns slot " + slot);
    }

    private static String myselfLine(RedisServer node) {
        String all = String.valueOf(node.command("CLUSTER", "NODES"));
        for (String line : all.split("\n")) {
            if (line.contains("myself")) {
                return line;
            }
        }
        return "";
    }

    private static boolean ownsSlot(String nodesLine, long slot) {
        String[] parts = nodesLine.trim().split(" ");
        for (int i = 8; i < parts.length; i++) {
            String range = parts[i];
            if (range.startsWith("[")) {
                continue; // migrating/importing marker
            }
            int dash = range.indexOf('-');
            long from = Long.parseLong(dash < 0 ? range : range.substring(0, dash));
            long to = dash < 0 ? from : Long.parseLong(range.substring(dash + 1));
            if (slot >= from && slot <= to) {
                return true;
            }
        }
        return false;
    }

    /** FLUSHALL on every master. */
    public void flushAll() {
        nodes.forEach(RedisServer::flushAll);
    }

    @Override
    public void close() {
        nodes.forEach(RedisServer::close);
    }

    @Override
    public String toString() {
        return "redis-cluster[" + hosts() + "]";
    }
}
