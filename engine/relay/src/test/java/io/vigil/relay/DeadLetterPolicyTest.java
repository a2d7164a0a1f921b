package io.vigil.relay;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;

/** Which broker failures dead-letter a record and which are retried (an outage must never dead-letter). */
class DeadLetterPolicyTest {

    @Test
    void the_record_itself_unacceptable_is_rejected_for_good() {
        assertThat(DeadLetterPolicy.rejectedForGood(new RecordTooLargeException("too large"))).isTrue();
        assertThat(DeadLetterPolicy.rejectedForGood(new RecordBatchTooLargeException("too large"))).isTrue();
        assertThat(DeadLetterPolicy.rejectedForGood(new InvalidRecordException("invalid"))).isTrue();
        assertThat(DeadLetterPolicy.rejectedForGood(new SerializationException("bad"))).isTrue();
    }

    @Test
    void a_broker_away_or_slow_is_retried() {
        assertThat(DeadLetterPolicy.rejectedForGood(new NetworkException("away"))).isFalse();
        assertThat(DeadLetterPolicy.rejectedForGood(new TimeoutException("slow"))).isFalse();
        assertThat(DeadLetterPolicy.rejectedForGood(new NotLeaderOrFollowerException("moving"))).isFalse();
        assertThat(DeadLetterPolicy.rejectedForGood(new IllegalStateException("producer closed"))).isFalse();
    }
}
