package io.vigil.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class DecisionStreamsTest {

    @Test
    void one_stream_keeps_the_base_name_several_are_numbered_from_zero() {
        assertThat(DecisionStreams.shards("vigil:decisions", 1)).containsExactly("vigil:decisions");
        assertThat(DecisionStreams.shards("vigil:decisions", 0)).containsExactly("vigil:decisions");
        assertThat(DecisionStreams.shards("vigil:decisions", 3))
                .containsExactly("vigil:decisions:0", "vigil:decisions:1", "vigil:decisions:2");
        assertThat(DecisionStreams.shard("s", 3, 2)).isEqualTo("s:2");
    }

    @Test
    void a_key_always_picks_the_same_shard_within_range_and_keys_spread_over_all_shards() {
        Set<Integer> used = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            String card = "card-" + i * 7919;
            int shard = DecisionStreams.shardOf(card, 4);
            assertThat(shard).isBetween(0, 3);
            assertThat(DecisionStreams.shardOf(new String(card), 4)).isEqualTo(shard);
            used.add(shard);
        }
        assertThat(used).containsExactlyInAnyOrder(0, 1, 2, 3);
        // a negative hash code still lands in range
        assertThat("polygenelubricants".hashCode()).isNegative();
        assertThat(DecisionStreams.shardOf("polygenelubricants", 5)).isBetween(0, 4);
    }

    @Test
    void one_stream_or_no_key_is_shard_zero() {
        assertThat(DecisionStreams.shardOf("card-1", 1)).isZero();
        assertThat(DecisionStreams.shardOf(null, 8)).isZero();
    }

    @Test
    void the_key_is_the_card_hash_else_the_transaction_id() {
        assertThat(DecisionStreams.key("c0ffee", "txn-1")).isEqualTo("c0ffee");
        assertThat(DecisionStreams.key(null, "txn-1")).isEqualTo("txn-1");
    }
}
