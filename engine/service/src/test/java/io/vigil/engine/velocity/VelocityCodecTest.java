package io.vigil.engine.velocity;

import io.vertx.core.buffer.Buffer;
import io.vertx.redis.client.impl.types.BulkType;
import io.vertx.redis.client.impl.types.NumberType;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A script's reply is one string in the marker's format (velocity-functions.lua): the client reads it
 * by check id, so a retry's marker (entries in another order, checks no longer asked) answers right,
 * and a reply it cannot read is refused with what was wrong.
 */
class VelocityCodecTest {

    private static final VelocityPlan.Call CALL = VelocityScriptsTest.plans(false)
            .plan(VelocityScriptsTest.request("card-1", "dev-1", "count-5m")).calls.get(0);

    private static VelocityPlan.Check check(int i) {
        int at = 0;
        for (VelocityPlan.Group g : CALL.groups) {
            for (VelocityPlan.Check c : g.checks) {
                if (at++ == i) {
                    return c;
                }
            }
        }
        throw new AssertionError("no check " + i);
    }

    private static Buffer entry(Buffer answers, String id, double answer) {
        return answers.appendString(id).appendDouble(answer);
    }

    @Test
    void readsAnswersByIdInAnyOrderAndSkipsChecksNoLongerAsked() {
        Buffer reply = Buffer.buffer().appendByte((byte) 1);
        entry(reply, "zzzzzzzz", 99); // a check of the ruleset before the retry's
        entry(reply, check(2).id, 4);
        entry(reply, check(1).id, 125_000); // the sum 12.5, kept x 10^4
        entry(reply, check(0).id, 7);
        double[] values = new double[3];
        VelocityCodec.decode(CALL, BulkType.create(reply, false), values);
        assertThat(values).containsExactly(7, 12.5, 4);
    }

    @Test
    void refusesAReplyNotInTheMarkersFormatOrLackingACheck() {
        double[] values = new double[3];
        assertThatThrownBy(() -> VelocityCodec.decode(CALL, NumberType.create(7), values))
                .isInstanceOf(VelocityReplyException.class).hasMessageContaining("not its answers for 3 checks");
        Buffer cut = entry(Buffer.buffer().appendByte((byte) 1), check(0).id, 7).appendByte((byte) 0);
        assertThatThrownBy(() -> VelocityCodec.decode(CALL, BulkType.create(cut, false), values))
                .isInstanceOf(VelocityReplyException.class).hasMessageContaining("not its answers");
        Buffer lacking = entry(entry(Buffer.buffer().appendByte((byte) 1), check(0).id, 7), check(2).id, 4);
        assertThatThrownBy(() -> VelocityCodec.decode(CALL, BulkType.create(lacking, false), values))
                .isInstanceOf(VelocityReplyException.class).hasMessageContaining("no value for check " + check(1).id);
    }
}
