package io.vigil.engine.velocity;

import io.vigil.rules.velocity.Aggregate;
import io.vigil.rules.velocity.VelocityCheck;
import io.vigil.rules.velocity.VelocityRequest;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Plans are built once per request shape, with their generated scripts; the cache stays bounded; a
 * cached plan is never changed.
 */
class VelocityScriptsTest {

    private static final BucketLayout BUCKETS = new BucketLayout(10);

    static VelocityPlans plans(boolean cluster) {
        return new VelocityPlans(BUCKETS, cluster, VelocityScriptClient.DEFAULT_DISTINCT_CAP, true, 0);
    }

    static VelocityRequest request(String card, String device, String rule) {
        return new VelocityRequest("t", List.of(
                new VelocityCheck("CARD_AUTH", rule, "card_hash", card, 300, Aggregate.COUNT, 0, null, 5),
                new VelocityCheck("CARD_AUTH", "amount", "card_hash", card, 3600, Aggregate.SUM, 12.5, null, 500),
                new VelocityCheck("CARD_AUTH", "cards", "device_id", device, 3600, Aggregate.DISTINCT, 0, card, 4)),
                false);
    }

    @Test
    void requestsOfOneShapeShareOnePlanAndItsScript() {
        VelocityPlans scripts = plans(false);
        VelocityPlan first = scripts.plan(request("card-1", "dev-1", "count-5m"));
        VelocityPlan again = scripts.plan(request("card-2", "dev-9", "count-5m"));
        assertThat(again).isSameAs(first);
        assertThat(first.calls).hasSize(1);
        VelocityPlan.Call call = first.calls.get(0);
        assertThat(call.groups).hasSize(2);
        assertThat(call.keys).isEqualTo(1 + 1 + 1 + 1); // marker, card hash, device hash, its distinct set
        assertThat(call.script.sha()).isEqualTo(LuaScript.of(call.script.text()).sha());
        assertThat(LuaScript.of("return 1").sha()).as("what Redis' SCRIPT LOAD answers")
                .isEqualTo("e0e1f9fabfc9d4800c877a703b823ac0578ff8db");
        // the plan is in the script as constants: ids, bucket lengths, the hash's span
        assertThat(call.script.text()).contains("'" + VelocityKeys.digest("count-5m:300s:count") + "'")
                .contains("floor(now / 30000)")
                .contains("writeFields(KEYS[2], v[1], 3960000, '" + VelocityKeys.digest("count-5m:300s:count") + "', s1");
        assertThat(scripts.plan(request("card-1", "dev-1", "count-5m-other"))).isNotSameAs(first);
        assertThat(scripts.cached()).isEqualTo(2);
    }

    @Test
    void aClusterPlanHasOneCallPerDimensionValue() {
        VelocityPlan plan = plans(true).plan(request("card-1", "dev-1", "count-5m"));
        assertThat(plan.calls).hasSize(2);
        assertThat(plan.calls.get(0).size).isEqualTo(2);
        assertThat(plan.calls.get(1).size).isEqualTo(1);
    }

    @Test
    void checksOfOneDimensionWithTwoValuesAreNotForcedIntoTheCachedPlan() {
        VelocityPlans scripts = plans(false);
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
        assertThat(plan.calls.get(0).script).as("not cached: the generic script").isNull();
    }

    @Test
    void beyondTheCacheShapesUseTheGenericScript() {
        VelocityPlans scripts = plans(false);
        for (int i = 0; i < VelocityPlans.MAX_PLANS; i++) {
            assertThat(scripts.plan(request("c", "d", "rule-" + i)).calls.get(0).script).isNotNull();
        }
        VelocityPlan beyond = scripts.plan(request("c", "d", "one-more"));
        assertThat(beyond.calls.get(0).script).isNull();
        assertThat(scripts.cached()).isEqualTo(VelocityPlans.MAX_PLANS);
        assertThat(scripts.plan(request("c", "d", "one-more"))).as("built again, not cached").isNotSameAs(beyond);
    }

    @Test
    void aCachedPlanIsNotChangedByGivingItScripts() {
        VelocityPlan bare = VelocityPlan.of(request("card-1", "dev-1", "count-5m"), false, BUCKETS);
        VelocityPlan scripted = bare.withScripts(call -> LuaScript.of(VelocityScripts.generate(call, 50)));
        assertThat(bare.calls.get(0).script).isNull();
        assertThat(scripted.calls.get(0).script.text()).contains("cap, capRank = 50, '-51'");
        assertThat(scripted.groups).isSameAs(bare.groups);
    }

    @Test
    void windowsAreCutIntoAWholeNumberOfBuckets() {
        assertThat(BUCKETS.bucketsIn(300_000)).isEqualTo(10);
        assertThat(BUCKETS.bucketMillis(300_000)).isEqualTo(30_000);
        BucketLayout eleven = new BucketLayout(11);
        assertThat(eleven.bucketsIn(300_000)).as("11 does not divide 300 s: the next count that does").isEqualTo(12);
        assertThat(eleven.bucketMillis(300_000)).isEqualTo(25_000);
        assertThat(new BucketLayout(1000).bucketsIn(1_000)).isEqualTo(1000);
        assertThatThrownBy(() -> new BucketLayout(9)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("vigil.velocity.buckets-per-window must be 10..1000, got 9");
        assertThatThrownBy(() -> new BucketLayout(1001)).isInstanceOf(IllegalArgumentException.class);
    }
}
