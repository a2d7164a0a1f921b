package io.vigil.engine.velocity;

import io.vertx.core.Vertx;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisClientType;
import io.vertx.redis.client.RedisOptions;
import io.vertx.redis.client.RedisReplicas;
import io.vigil.testing.redis.RedisExtension;
import io.vigil.testing.redis.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The velocity script contract on a local 3-master Redis Cluster: keys of one card share a slot,
 * checks on different values are grouped per slot.
 */
class ClusterVelocityScriptTest extends VelocityScriptContract {

    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.withCluster(3);

    @Override
    Target target() {
        return new Target() {
            @Override
            public Redis open(Vertx vertx) {
                RedisOptions options = new RedisOptions()
                        .setType(RedisClientType.CLUSTER)
                        .setUseReplicas(RedisReplicas.NEVER)
                        .setMaxPoolSize(8)
                        .setMaxPoolWaiting(4096)
                        .setMaxWaitingHandlers(4096);
                for (RedisServer node : REDIS.cluster().nodes()) {
                    options.addConnectionString(node.uri());
                }
                return Redis.createClient(vertx, options);
            }

            @Override
            public boolean cluster() {
                return true;
            }

            @Override
            public void flush() {
                REDIS.cluster().flushAll();
            }

            @Override
            public Object command(String key, String... args) {
                return REDIS.cluster().nodeFor(key).command(args);
            }

            @Override
            public void scriptFlush() {
                for (RedisServer node : REDIS.cluster().nodes()) {
                    node.command("SCRIPT", "FLUSH");
                }
            }
        };
    }

    @Test
    void cardsSpreadOverTheMastersAndEachCardStaysOnOne() {
        Set<Integer> owners = new HashSet<>();
        for (int i = 0; i < 12; i++) {
            String card = "card-" + i;
            run("t-" + card, T0, false, count("card-5m", card, 300), distinct("merch-5m", card, 300, "m"));
            String tag = VelocityKeys.tag("card_hash", card);
            RedisServer owner = REDIS.cluster().nodeFor("{" + tag + "}");
            owners.add(owner.port());
            // the card's velocity hash and marker both live on the owner
            for (String key : List.of(
                    VelocityKeys.velocityKey(tag, RS),
                    VelocityKeys.markerKey(tag, RS, "t-" + card))) {
                assertThat(owner.command("EXISTS", key)).as(key).isEqualTo(1L);
            }
        }
        assertThat(owners).as("12 cards over 3 masters use more than one").hasSizeGreaterThan(1);
    }
}
