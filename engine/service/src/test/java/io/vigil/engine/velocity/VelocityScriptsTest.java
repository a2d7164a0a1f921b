package io.vigil.engine.velocity;

import io.vigil.rules.velocity.Aggregate;
import io.vigil.rules.velocity.VelocityCheck;
import io.vigil.rules.velocity.VelocityRequest;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Plans are built once per request shape, with their generated scripts; the cache stays bounded. */
class VelocityScriptsTest {

    private final VelocityScriptClient client = new VelocityScriptClient(null, null, false, 10);

    static VelocityRequest request(String card, String device, String rule) {
        return new VelocityRequest("t", List.of(
                new VelocityCheck("CARD_AUTH", rule, "card_hash", card, 300, Aggregate.COUNT, 0, null, 5),
                new VelocityCheck("CARD_AUTH", "amount", "card_hash", card, 3600, Aggregate.SUM, 12.5, null, 500),
                new VelocityCheck("CARD_AUTH", "cards", "device_id", device, 3600, Aggregate.DISTINCT, 0, card, 4)),
                false);
    }

    @Test
    void requestsOfOneShapeShareOnePlanAndItsScript() {
        VelocityScripts scripts = new VelocityScripts(client, false, true);
        VelocityPlan first = scripts.plan(request("card-1", "dev-1", "count-5m"));
        VelocityPlan again = scripts.plan(request("card-2", "dev-9", "count-5m"));
        assertThat(again).isSameAs(first);
        assertThat(first.calls).hasSize(1);
        VelocityPlan.Call call = first.calls.get(0);
        assertThat(call.groups).hasSize(2);
        assertThat(call.keys).isEqualTo(1 + 1 + 1 + 1); // marker, card hash, device hash, its distinct set
        assertThat(call.sha).isEqualTo(VelocityScripts.sha1(call.script));
        // the plan is in the script as constants: ids, bucket lengths, the hash's span
        assertThat(call.script).contains("'" + VelocityKeys.digest("count-5m:300s:count") + "'")
                .contains("floor(now / 30000)")
                .contains("writeFields(KEYS[2], v[1], 3960000, '" + VelocityKeys.digest("count-5m:300s:count") + "', s1");
        assertThat(scripts.plan(request("card-1", "dev-1", "count-5m-other"))).isNotSameAs(first);
        assertThat(scripts.cached()).isEqualTo(2);
    }

    @Test
    void aClusterPlanHasOneCallPerDimensionValue() {
        VelocityPlan plan = new VelocityScripts(client, true, true).plan(request("card-1", "dev-1", "count-5m"));
        assertThat(plan.calls).hasSize(2);
        assertThat(plan.calls.get(0).size).isEqualTo(2);
        assertThat(plan.calls.get(1).size).isEqualTo(1);
    }

    @Test
    void checksOfOneDimensionWithTwoValuesAreNotForcedIntoTheCachedPlan() {
        VelocityScripts scripts = new VelocityScripts(client, false, true);
        VelocityPlan cached = scripts.plan(request("card-1", "dev-1", "count-5m"));
        // same shape, but the two card checks carry different cards: two hashes, not the cached one
        VelocityRequest odd = new VelocityRequest("t", List.of(
                new VelocityCheck("CARD_AUTH", "count-5m", "card_hash", "card-1", 300, Aggregate.COUNT, 0, null, 5),
                new VelocityCheck("CARD_AUTH", "amount", "card_hash", "card-2", 3600, Aggregate.SUM, 12.5, null, 500),
                new VelocityCheck("CARD_AUTH", "cards", "device_id", "dev-1", 3600, Aggregate.DISTINCT, 0, "card-1", 4)),
                false);
        VelocityPlan plan = scripts.plan(odd);
        assertThat(plan).isNotSameAs(cached);
        assertThat(plan.groups).hasSize(3);
        assertThat(plan.calls.get(0).sha).as("not cached: the generic script").isNull();
    }

    @Test
    void beyondTheCacheShapesUseTheGenericScript() {
        VelocityScripts scripts = new VelocityScripts(client, false, true);
        for (int i = 0; i < VelocityScripts.MAX_PLANS; i++) {
            assertThat(scripts.plan(request("c", "d", "rule-" + i)).calls.get(0).sha).isNotNull();
        }
        VelocityPlan beyond = scripts.plan(request("c", "d", "one-more"));
        assertThat(beyond.calls.get(0).sha).isNull();
        assertThat(scripts.cached()).isEqualTo(VelocityScripts.MAX_PLANS);
        assertThat(scripts.plan(request("c", "d", "one-more"))).as("built again, not cached").isNotSameAs(beyond);
    }
}
