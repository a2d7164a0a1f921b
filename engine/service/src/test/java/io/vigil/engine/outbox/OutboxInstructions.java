package io.vigil.engine.outbox;

import io.vertx.redis.client.Redis;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;
import io.vigil.engine.decision.DecisionIds;
import io.vigil.engine.decision.DecisionRecord;
import io.vigil.rules.eval.EngineMode;
import io.vigil.rules.eval.Evaluation;
import io.vigil.rules.eval.EvaluationType;
import io.vigil.rules.eval.Outcome;
import io.vigil.rules.eval.VelocityResult;
import io.vigil.rules.txn.Field;
import io.vigil.rules.txn.Transaction;
import io.vigil.rules.velocity.Aggregate;
import io.vigil.rules.velocity.VelocityCheck;
import io.vigil.rules.velocity.VelocityRequest;
import io.vigil.stream.DecisionStreams;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;

/**
 * Redis' share of a durable decision beside its velocity call, for
 * {@code VelocityInstructionsBenchmark} (not a test): each decision's stream entry written as the
 * engine's writer writes it ({@link RedisStreamAppender}: pipelined {@code XADD MAXLEN ~}, the event
 * made by {@link DecisionEvents} from a CARD_AUTH v2 decision with its 10 velocity results), then read,
 * acknowledged and deleted with the relay's commands (ADR 0016, 0022): {@code XREADGROUP COUNT n}
 * until a read comes back short, {@code XACK} and {@code XDEL} of the ids read, one command at a time.
 * The two sides alternate in rounds of {@code relayCount} events, so the stream stays as short as on a
 * relay that keeps up; each side's instructions are summed over the rounds.
 */
public final class OutboxInstructions {

    /** Instructions Redis ran during one piece of work (callgrind, net of its idle time). */
    public interface Meter {
        long measure(Work work) throws Exception;
    }

    public interface Work {
        void run() throws Exception;
    }

    /** Instructions of the writer's XADDs and of the relay's commands, and what they moved. */
    public record Result(long writerIr, long readIr, long ackIr, long deleteIr, int events, long eventBytes,
                         int writerPipelines, int relayCommands) {

        public long relayIr() {
            return readIr + ackIr + deleteIr;
        }
    }

    static final String GROUP = "vigil-relay";
    static final String CONSUMER = "bench";

    private final Redis redis;
    private final RedisStreamAppender appender;
    private final DecisionEvents events = new DecisionEvents("bench-engine");
    private final String stream = DecisionStreams.DEFAULT_STREAM;

    public OutboxInstructions(Redis redis) throws Exception {
        this.redis = redis;
        this.appender = new RedisStreamAppender(redis, stream, 1, 1_000_000, Duration.ofSeconds(60));
        await(redis.send(Request.cmd(io.vertx.redis.client.Command.XGROUP)
                .arg("CREATE").arg(stream).arg(GROUP).arg("0").arg("MKSTREAM")));
    }

    /**
     * {@code n} decisions (from {@code base}, velocity checks from {@code kind}): written in pipelines of
     * {@code writerBatch} entries, relayed {@code relayCount} per command.
     */
    public Result run(Meter meter, LongFunction<VelocityRequest> kind, long base, int n, int writerBatch,
                      int relayCount) throws Exception {
        long writerIr = 0;
        long[] relayIr = new long[3];
        long bytes = 0;
        int pipelines = 0;
        int[] commands = {0};
        for (int round = 0; round < n; round += relayCount) {
            List<List<StreamEntry>> pipelined = new ArrayList<>();
            for (int b = round; b < Math.min(n, round + relayCount); b += writerBatch) {
                List<StreamEntry> batch = new ArrayList<>(writerBatch);
                for (int i = b; i < Math.min(Math.min(n, round + relayCount), b + writerBatch); i++) {
                    StreamEntry e = entry(kind.apply(base + i), base + i);
                    bytes += e.event().length;
                    batch.add(e);
                }
                pipelined.add(batch);
            }
            pipelines += pipelined.size();
            writerIr += meter.measure(() -> {
                for (List<StreamEntry> batch : pipelined) {
                    appender.append(batch);
                }
            });
            relay(meter, relayCount, commands, relayIr);
        }
        return new Result(writerIr, relayIr[0], relayIr[1], relayIr[2], n, bytes, pipelines, commands[0]);
    }

    /**
     * The relay's cycle: reads until one comes back short, then XACK and XDEL of what it read (every XACK
     * before the XDELs, as the relay: ADR 0016), each kind of command measured apart into {@code ir}
     * (read, XACK, XDEL).
     */
    private void relay(Meter meter, int count, int[] commands, long[] ir) throws Exception {
        List<String> ids = new ArrayList<>();
        ir[0] += meter.measure(() -> {
            int got;
            do {
                Response reply = await(redis.send(Request.cmd(io.vertx.redis.client.Command.XREADGROUP)
                        .arg("GROUP").arg(GROUP).arg(CONSUMER).arg("COUNT").arg(count).arg("STREAMS").arg(stream).arg(">")));
                commands[0]++;
                got = 0;
                if (reply != null && reply.size() > 0) {
                    // RESP2 [[stream, entries]] or RESP3 {stream: entries}: iterating either yields (stream, entries)
                    for (Response perStream : reply) {
                        for (Response entry : perStream.get(1)) {
                            ids.add(entry.get(0).toString());
                            got++;
                        }
                    }
                }
            } while (got == count);
        });
        ir[1] += meter.measure(() -> chunks(ids, count, io.vertx.redis.client.Command.XACK, true, commands));
        ir[2] += meter.measure(() -> chunks(ids, count, io.vertx.redis.client.Command.XDEL, false, commands));
    }

    /** XACK (with the group) or XDEL of {@code ids}, {@code count} per command, one command at a time. */
    private void chunks(List<String> ids, int count, io.vertx.redis.client.Command command, boolean group,
                        int[] commands) throws Exception {
        for (int from = 0; from < ids.size(); from += count) {
            List<String> chunk = ids.subList(from, Math.min(ids.size(), from + count));
            Request r = Request.cmd(command).arg(stream);
            if (group) {
                r.arg(GROUP);
            }
            for (String id : chunk) {
                r.arg(id);
            }
            check(await(redis.send(r)), chunk.size(), command.toString());
            commands[0]++;
        }
    }

    private static void check(Response r, int expected, String command) {
        if (r == null || r.toInteger() != expected) {
            throw new IllegalStateException(command + " answered " + r + ", expected " + expected);
        }
    }

    /** The stream entry of one CARD_AUTH v2 decision (APPROVE, NORMAL), as the writer builds it. */
    StreamEntry entry(VelocityRequest request, long i) {
        VelocityCheck first = request.checks().get(0);
        String card = first.dimensionValue();
        String txnId = request.transactionId();
        String body = "{\"transaction_id\":\"" + txnId + "\",\"card_hash\":\"" + card + "\",\"amount\":391.52,"
                + "\"currency\":\"USD\",\"merchant_id\":\"M5411-3003\",\"merchant_name\":\"GROCERY 3003\","
                + "\"merchant_category\":\"GROCERY\",\"merchant_category_code\":\"5411\",\"card_present\":true,"
                + "\"transaction_type\":\"PURCHASE\",\"entry_mode\":\"CONTACTLESS\",\"country_code\":\"US\","
                + "\"card_network\":\"VISA\",\"card_bin\":\"411111\",\"card_logo\":\"CLASSIC\","
                + "\"timestamp\":\"2026-11-27T05:29:16.596Z\"}";
        Transaction txn = new Transaction()
                .setText(Field.TRANSACTION_ID, txnId)
                .setText(Field.CARD_HASH, card)
                .setNumber(Field.AMOUNT, 391.52, "391.52")
                .setText(Field.TIMESTAMP, "2026-11-27T05:29:16.596Z")
                .raw(body.getBytes(StandardCharsets.UTF_8));
        List<VelocityResult> results = new ArrayList<>(request.checks().size());
        for (VelocityCheck c : request.checks()) {
            double value = c.aggregate() == Aggregate.SUM ? 1234.56 : (i % 5) + 1;
            results.add(new VelocityResult(c.ruleId(), c.dimension(), c.dimensionValue(), c.windowSeconds(),
                    c.aggregate(), value, c.threshold(), false, true));
        }
        Evaluation e = new Evaluation(Outcome.APPROVE, EngineMode.NORMAL, null, first.rulesetKey(), 2, null, null,
                List.of(), results, 21_000, 14);
        DecisionRecord r = new DecisionRecord(DecisionIds.next(), EvaluationType.AUTH, txn, Outcome.APPROVE,
                EngineMode.NORMAL, null, first.rulesetKey(), 2, e, 1_795_000_000_000L + i, 340_000, 410_000, 900_000);
        String key = DecisionEvents.key(r);
        return new StreamEntry(0, r.decisionId(), key, events.toJson(r));
    }

    private static <T> T await(io.vertx.core.Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    }
}
