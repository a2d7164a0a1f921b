package io.vigil.engine.velocity;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.vigil.engine.velocity.VelocityHttp.Answer;
import io.vigil.testing.redis.RedisServer;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static io.vigil.engine.velocity.VelocityHttp.auth;
import static io.vigil.engine.velocity.VelocityHttp.awaitNormal;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine with {@code quarkus.redis.client-type=cluster} on a real 3-master cluster: a transaction's
 * card checks and device check live in different slots and are still answered in one round trip.
 */
@QuarkusTest
@TestProfile(VelocityRedisProfile.Cluster.class)
class VelocityClusterTest {

    @Test
    void velocityRulesDecideOnACluster() {
        awaitNormal();
        Set<Integer> owners = new HashSet<>();
        for (int c = 0; c < 6; c++) {
            String card = "cl-card-" + c;
            String device = "cl-dev-" + c;
            assertThat(auth("cl-" + c + "-1", card, device, 10).decision()).isEqualTo("APPROVE");
            assertThat(auth("cl-" + c + "-2", card, device, 10).decision()).isEqualTo("APPROVE");
            Answer third = auth("cl-" + c + "-3", card, device, 10);
            assertThat(third.mode()).as(third.toString()).isEqualTo("NORMAL");
            assertThat(third.decision()).isEqualTo("DECLINE");
            assertThat(third.ruleId()).isEqualTo("card-5m-count");
            // a retry is answered from the markers of both slots: nothing counted twice
            assertThat(auth("cl-" + c + "-2", card, device, 10).decision()).isEqualTo("APPROVE");
            RedisServer owner = RedisClusterResource.cluster().nodeFor("{card_hash:" + card + "}");
            owners.add(owner.port());
            // the card's velocity hash lives on the card's master; its 5-minute count's ring (one
            // field: newest bucket, running total 3, slots) is there
            String id = VelocityKeys.digest("card-5m-count:300s:count");
            List<?> ring = (List<?>) owner.command("EVAL",
                    "return {struct.unpack('>dd', redis.call('HGET', KEYS[1], ARGV[1]))}", "1",
                    "vel:{card_hash:" + card + "}:CARD_AUTH", id);
            assertThat(ring.get(1)).isEqualTo(3L);
        }
        assertThat(owners).as("cards spread over the masters").hasSizeGreaterThan(1);
        // distinct on the device dimension (another slot than the cards)
        String device = "cl-farm";
        auth("cl-farm-1", "cl-farm-card-1", device, 1);
        auth("cl-farm-2", "cl-farm-card-2", device, 1);
        Answer farm = auth("cl-farm-3", "cl-farm-card-3", device, 1);
        assertThat(farm.decision()).as(farm.toString()).isEqualTo("DECLINE");
        assertThat(farm.ruleId()).isEqualTo("device-1h-cards");
    }
}
