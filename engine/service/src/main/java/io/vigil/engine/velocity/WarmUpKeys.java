package io.vigil.engine.velocity;

import io.vertx.core.Future;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The keys velocity writes of the warm-up go to (docs/adr/0020-warm-up-depth.md): every real key name
 * with {@link #PREFIX} in front. Real keys start with {@code vel:}, {@code veld:} or {@code veltx:}, so
 * no warm-up key can be a real one, whatever the card, device or transaction id; the hash tag is kept,
 * so a cluster puts a warm-up key on the slot of the real key it stands for. Every name handed out is
 * remembered, and {@link #unlink} deletes them when the warm-up ends.
 *
 * <p>The warm-up's synthetic values are a bounded set, the same in every process: the keys a warm-up
 * killed before its end leaves behind (until their windows' TTL) are the ones the next warm-up writes
 * again and deletes.
 */
public final class WarmUpKeys {

    public static final String PREFIX = "vigil-warm-up:";
    /** Keys per UNLINK command. */
    static final int UNLINK_BATCH = 500;
    /** UNLINK commands sent at once. */
    static final int IN_FLIGHT = 64;

    /** Keys remembered for deletion at most: some 10 MB of names. */
    static final int MAX_REMEMBERED = 100_000;

    private final Set<String> written = ConcurrentHashMap.newKeySet();
    private final LongAdder forgotten = new LongAdder();

    /**
     * The warm-up key standing for {@code realKey}, remembered for {@link #unlink} up to
     * {@link #MAX_REMEMBERED} keys (one marker per warm-up transaction: a long warm-up would otherwise
     * hold them all in the heap); those past it expire with their TTL, and are counted.
     */
    String name(String realKey) {
        String key = PREFIX + realKey;
        if (written.size() < MAX_REMEMBERED) {
            written.add(key);
        } else if (!written.contains(key)) {
            forgotten.increment();
        }
        return key;
    }

    /** Warm-up keys named past {@link #MAX_REMEMBERED}: not deleted, left to their TTL. */
    public long forgotten() {
        return forgotten.sum();
    }

    /** Warm-up keys named so far and not yet deleted. */
    public int size() {
        return written.size();
    }

    /**
     * Deletes every warm-up key named so far ({@code UNLINK}, in batches; in a cluster one command per
     * key, as keys of one command must share a slot). Completes with the number of keys named.
     */
    public Future<Integer> unlink(Redis redis, boolean cluster) {
        List<Request> requests = new ArrayList<>();
        int named = 0;
        Request unlink = null;
        int inCommand = 0;
        for (Iterator<String> it = written.iterator(); it.hasNext(); ) {
            String key = it.next();
            it.remove();
            named++;
            if (unlink == null || cluster || inCommand == UNLINK_BATCH) {
                unlink = Request.cmd(Command.UNLINK);
                requests.add(unlink);
                inCommand = 0;
            }
            unlink.arg(key);
            inCommand++;
        }
        if (requests.isEmpty()) {
            return Future.succeededFuture(0);
        }
        return send(redis, requests, 0).map(named);
    }

    /** At most {@link #IN_FLIGHT} commands at once: a cluster gets one command per key. */
    private static Future<Void> send(Redis redis, List<Request> requests, int from) {
        if (from >= requests.size()) {
            return Future.succeededFuture();
        }
        int to = Math.min(requests.size(), from + IN_FLIGHT);
        List<Future<Response>> sent = new ArrayList<>(to - from);
        for (int i = from; i < to; i++) {
            sent.add(redis.send(requests.get(i)));
        }
        return Future.all(sent).compose(all -> send(redis, requests, to));
    }
}
