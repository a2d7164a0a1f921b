package io.vigil.engine.velocity;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.impl.VertxInternal;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisOptions;
import io.vigil.rules.velocity.VelocityCheck;
import io.vigil.rules.velocity.VelocityRequest;
import io.vigil.testing.redis.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static io.vigil.engine.velocity.VelocityScriptContract.T0;
import static io.vigil.engine.velocity.VelocityScriptContract.count;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The velocity transport's lanes (docs/adr/0021-velocity-connection-per-event-loop.md): calls made on
 * an event loop go out on that loop's own connection, and are answered on that loop; a lost connection
 * fails the calls on it, visibly, and the next call opens another. The pooled client is never used by
 * calls made on an event loop: it is given here with a pool of one that nothing else may take.
 */
class VelocityLanesTest {

    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.standalone();

    /** Four event loops: calls from contexts on different loops. */
    Vertx vertx;
    Redis pooled;
    VelocityScriptClient client;
    int txn;

    @BeforeEach
    void open() {
        REDIS.server().flushAll();
        vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(4));
        pooled = Redis.createClient(vertx, options());
        client = VelocityScriptClient.withLanes(vertx, pooled, false, 10, VelocityScriptClient.DEFAULT_DISTINCT_CAP,
                options());
    }

    @AfterEach
    void close() {
        client.close();
        pooled.close();
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    private static RedisOptions options() {
        return new RedisOptions().setConnectionString(REDIS.server().uri())
                .setMaxPoolSize(4).setMaxPoolWaiting(4096).setMaxWaitingHandlers(4096);
    }

    /** A call made on {@code loop}: its answer, and the thread that completed it. */
    record Answer(double[] values, Thread caller, Thread completer) {
    }

    private CompletableFuture<Answer> callOn(Context loop, VelocityCheck check) {
        VelocityRequest request = new VelocityRequest("txn-" + (++txn), List.of(check), false);
        CompletableFuture<Answer> answer = new CompletableFuture<>();
        loop.runOnContext(v -> {
            Thread caller = Thread.currentThread();
            client.run(request, T0).whenComplete((values, failure) -> {
                if (failure != null) {
                    answer.completeExceptionally(failure);
                } else {
                    answer.complete(new Answer(values, caller, Thread.currentThread()));
                }
            });
        });
        return answer;
    }

    private List<Context> loops(int n) {
        List<Context> loops = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            loops.add(((VertxInternal) vertx).createEventLoopContext()); // event loops in turn
        }
        return loops;
    }

    /** Connections the server has open, but the one asking. */
    private static int serverConnections() {
        String list = String.valueOf(REDIS.server().command("CLIENT", "LIST"));
        return (int) list.lines().filter(l -> l.contains("id=")).count() - 1;
    }

    @Test
    void eachEventLoopWritesOnItsOwnConnectionAndIsAnsweredOnItself() throws Exception {
        List<Context> loops = loops(4);
        List<CompletableFuture<Answer>> answers = new ArrayList<>();
        for (int round = 0; round < 50; round++) {
            for (int i = 0; i < loops.size(); i++) {
                answers.add(callOn(loops.get(i), count("lane-count", "card-" + i, 300)));
            }
        }
        Set<Thread> callers = new HashSet<>();
        double[] highest = new double[loops.size()];
        for (CompletableFuture<Answer> f : answers) {
            Answer a = f.get(30, TimeUnit.SECONDS);
            assertThat(a.completer()).as("answered on the calling event loop").isSameAs(a.caller());
            callers.add(a.caller());
        }
        for (int i = 0; i < loops.size(); i++) {
            highest[i] = callOn(loops.get(i), count("lane-count", "card-" + i, 300)).get(30, TimeUnit.SECONDS).values()[0];
        }
        assertThat(highest).as("every call counted once").containsOnly(51);
        assertThat(callers).hasSize(4);
        assertThat(client.lanes()).as("one lane per event loop").isEqualTo(4);
        assertThat(serverConnections()).as("one connection per lane, the pool untouched").isEqualTo(4);
    }

    @Test
    void callsFromOutsideAnEventLoopGoThroughThePool() throws Exception {
        VelocityCheck check = count("lane-count", "card-x", 300);
        assertThat(callOn(loops(1).get(0), check).get(30, TimeUnit.SECONDS).values()).containsExactly(1.0);
        for (int i = 2; i <= 20; i++) {
            double[] values = client.run(new VelocityRequest("txn-outside-" + i, List.of(check), false), T0)
                    .toCompletableFuture().get(30, TimeUnit.SECONDS);
            assertThat(values).containsExactly(i);
        }
        assertThat(client.lanes()).as("no lane for a thread that is not an event loop").isEqualTo(1);
    }

    @Test
    void aLostConnectionFailsVisiblyAndTheNextCallReconnects() throws Exception {
        Context loop = loops(1).get(0);
        VelocityCheck check = count("lane-count", "card-lost", 300);
        assertThat(callOn(loop, check).get(30, TimeUnit.SECONDS).values()).containsExactly(1.0);

        REDIS.server().stop();
        ExecutionException down = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                () -> callOn(loop, check).get(30, TimeUnit.SECONDS));
        assertThat(down).as("Redis down: the call fails, it does not hang").isNotNull();

        REDIS.server().restart();
        // The first calls may still meet the old connection's end; one of the next few answers.
        double[] values = null;
        for (int attempt = 0; attempt < 20 && values == null; attempt++) {
            try {
                values = callOn(loop, check).get(30, TimeUnit.SECONDS).values();
            } catch (ExecutionException e) {
                // lost connection seen by this call; the next opens another
            }
        }
        assertThat(values).as("answered again after Redis came back").isNotNull();
        assertThat(client.lanes()).as("the same lane reconnects").isEqualTo(1);
        assertThat(serverConnections()).isEqualTo(1);
    }
}
