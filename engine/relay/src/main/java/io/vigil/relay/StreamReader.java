package io.vigil.relay;

import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.redis.datasource.stream.PendingMessage;
import io.quarkus.redis.datasource.stream.StreamCommands;
import io.quarkus.redis.datasource.stream.StreamRange;
import io.quarkus.redis.datasource.stream.XPendingArgs;
import io.vertx.redis.client.Response;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jboss.logging.Logger;

/**
 * One worker's consumer in the relay's consumer group on one stream: what it reads (XREADGROUP: its
 * own pending entries after a restart, then new ones), takes over (XAUTOCLAIM of entries idle too long
 * elsewhere), keeps (XCLAIM JUSTID heartbeat) and acknowledges (XACK, then XDEL of the same entries
 * unless {@code delete-relayed} is off: ADR 0016). Blocking calls, on the worker's
 * own thread. No command touches more than {@code entries-per-command} entries: Redis serves nobody
 * else while one runs, and the engine's velocity calls share it (ADR 0022); a batch of
 * {@code batch-size} takes several reads, XACKs and XDELs, one after the other. Replies are read from the client's raw {@link Response} (no typed decoding into strings):
 * the event's bytes go to Kafka as Redis holds them.
 */
final class StreamReader {

    private static final Logger LOG = Logger.getLogger(StreamReader.class);

    /** One XAUTOCLAIM step: the entries taken over, the ids Redis found deleted, and whether to call again soon. */
    record Claimed(List<StreamEntry> entries, Response deletedIds, boolean more) {
    }

    private final RedisDataSource redis;
    private final StreamCommands<String, String, String> streams;
    private final String stream;
    private final String group;
    private final String consumer;
    private final int batchSize;
    private final int perCommand;
    private final String count;
    private final String blockMillis;
    private final String claimMinIdleMillis;
    private final boolean deleteRelayed;
    private String claimCursor = "0-0";

    StreamReader(RedisDataSource redis, String stream, String consumer, RelayConfig config) {
        this.redis = redis;
        this.streams = redis.stream(String.class, String.class, String.class);
        this.stream = stream;
        this.group = config.group();
        this.consumer = consumer;
        this.batchSize = Math.max(1, config.batchSize());
        // a read never asks for more than a batch
        this.perCommand = Math.min(batchSize, Math.max(1, config.entriesPerCommand()));
        this.count = Integer.toString(perCommand);
        this.blockMillis = Long.toString(Math.max(1, config.block().toMillis()));
        this.claimMinIdleMillis = Long.toString(config.claimMinIdle().toMillis());
        this.deleteRelayed = config.deleteRelayed();
    }

    String stream() {
        return stream;
    }

    String consumer() {
        return consumer;
    }

    /** XGROUP CREATE <stream> <group> 0 MKSTREAM: entries written before the first relay started are relayed too. */
    void ensureGroup() {
        try {
            redis.execute("XGROUP", "CREATE", stream, group, "0", "MKSTREAM");
            LOG.infof("%s: created consumer group %s", stream, group);
        } catch (RuntimeException e) {
            if (!String.valueOf(e.getMessage()).contains("BUSYGROUP")) {
                throw e;
            }
        }
    }

    /** Up to {@code entries-per-command} of this consumer's own pending entries after {@code id} (a restart with the same consumer name), no blocking. */
    List<StreamEntry> readOwnPending(String after) {
        return read(after, false, count);
    }

    /**
     * Up to {@code batch-size} entries never delivered to the group, in reads of at most
     * {@code entries-per-command}: only the first waits up to {@code block} (when {@code block}), the
     * next ones follow while the previous came back full. Between two reads Redis serves the engine.
     */
    List<StreamEntry> readNew(boolean block) {
        List<StreamEntry> first = read(">", block, count);
        if (first.size() < perCommand || batchSize == perCommand) {
            return first;
        }
        List<StreamEntry> batch = new ArrayList<>(batchSize);
        batch.addAll(first);
        try {
            int asked;
            List<StreamEntry> next;
            do {
                asked = Math.min(perCommand, batchSize - batch.size());
                next = read(">", false, asked == perCommand ? count : Integer.toString(asked));
                batch.addAll(next);
            } while (next.size() == asked && batch.size() < batchSize);
        } catch (RuntimeException e) {
            // what was read is delivered to this consumer: send it now rather than leave it to XAUTOCLAIM;
            // the next read meets the failure again
            LOG.debugf("%s: read failed after %d entries (%s); sending those", stream, batch.size(), e);
        }
        return batch;
    }

    /**
     * XREADGROUP GROUP g c COUNT n [BLOCK ms] STREAMS s id. The reply is read directly: RESP2
     * {@code [[stream, entries]]}, RESP3 {@code {stream: entries}}, null when BLOCK timed out; an
     * entry is {@code [id, [field, value, ...]]}, or {@code [id, nil]} when trimmed while pending.
     */
    private List<StreamEntry> read(String from, boolean block, String n) {
        Response reply = block
                ? raw("XREADGROUP", "GROUP", group, consumer, "COUNT", n, "BLOCK", blockMillis, "STREAMS", stream, from)
                : raw("XREADGROUP", "GROUP", group, consumer, "COUNT", n, "STREAMS", stream, from);
        if (reply == null || reply.size() == 0) {
            return List.of();
        }
        // iterating either shape yields (stream, entries) pairs
        for (Response perStream : reply) {
            if (stream.equals(perStream.get(0).toString())) {
                return entries(perStream.get(1));
            }
        }
        return List.of();
    }

    /**
     * One XAUTOCLAIM step from where the last one stopped: entries idle longer than {@code claim-min-idle}
     * become this consumer's (a delivery each). The reply is read directly
     * ({@code [cursor, [[id, [field, value, ...]], ...], [deleted ids]]}, Redis 7).
     */
    Claimed reclaim() {
        Response reply = raw("XAUTOCLAIM", stream, group, consumer, claimMinIdleMillis, claimCursor, "COUNT", count);
        String next = reply.get(0).toString();
        claimCursor = next == null ? "0-0" : next;
        // Redis 7 drops pending entries whose message was deleted (MAXLEN trimming) from the PEL as it
        // scans, whatever their idle time, and lists their ids here
        Response deleted = reply.size() > 2 ? reply.get(2) : null;
        List<StreamEntry> claimed = entries(reply.get(1));
        return new Claimed(claimed, deleted, claimed.size() >= perCommand && !"0-0".equals(claimCursor));
    }

    /**
     * XACK of {@code ids}, then XDEL of the same ids, {@code entries-per-command} ids per command. XACK
     * first: an entry deleted while still pending would be reported deleted by XAUTOCLAIM and counted
     * lost. If the relay stops between the two, the acknowledged entries stay until {@code MAXLEN} trims
     * them: nothing is published twice. A failure part-way is retried whole by the caller; XACK and XDEL
     * of ids already done answer 0 and change nothing.
     */
    void ack(List<String> ids) {
        for (int from = 0; from < ids.size(); from += perCommand) {
            String[] chunk = ids.subList(from, Math.min(ids.size(), from + perCommand)).toArray(String[]::new);
            streams.xack(stream, group, chunk);
            if (deleteRelayed) {
                streams.xdel(stream, chunk);
            }
        }
    }

    /** Delivery counts of this consumer's pending entries among {@code entries} (ids ascending). */
    Map<String, Integer> deliveries(List<StreamEntry> entries) {
        String first = entries.get(0).id;
        String last = entries.get(entries.size() - 1).id;
        List<PendingMessage> pending = streams.xpending(stream, group, StreamRange.of(first, last),
                entries.size() * 2 + 16, new XPendingArgs().consumer(consumer));
        Map<String, Integer> counts = new HashMap<>(pending.size() * 2);
        for (PendingMessage p : pending) {
            counts.put(p.getMessageId(), p.getDeliveryCount());
        }
        return counts;
    }

    /**
     * XCLAIM <ids> JUSTID resets their idle time (no delivery counted), so XAUTOCLAIM elsewhere leaves
     * them alone while Kafka is slow or away. Best effort: a failure only makes a takeover possible.
     */
    void heartbeat(List<StreamEntry> entries) {
        try {
            for (int from = 0; from < entries.size(); from += perCommand) {
                List<StreamEntry> chunk = entries.subList(from, Math.min(entries.size(), from + perCommand));
                List<String> args = new ArrayList<>(chunk.size() + 6);
                args.add(stream);
                args.add(group);
                args.add(consumer);
                args.add("0");
                for (StreamEntry e : chunk) {
                    args.add(e.id);
                }
                args.add("JUSTID");
                redis.execute("XCLAIM", args.toArray(String[]::new));
            }
        } catch (RuntimeException e) {
            LOG.debugf("%s: heartbeat XCLAIM failed: %s", stream, e);
        }
    }

    private static List<StreamEntry> entries(Response entries) {
        if (entries == null || entries.size() == 0) {
            return List.of();
        }
        List<StreamEntry> out = new ArrayList<>(entries.size());
        for (Response entry : entries) {
            out.add(new StreamEntry(entry.get(0).toString(), entry.get(1)));
        }
        return out;
    }

    private Response raw(String command, String... args) {
        io.vertx.mutiny.redis.client.Response r = redis.execute(command, args);
        return r == null ? null : r.getDelegate();
    }
}
