package io.vigil.relay;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** One stream's meters (tag {@code stream}). */
final class RelayMetrics {
    final Counter published;
    final Counter publishFailed;
    final Timer publishLatency;
    final Timer eventAge;
    final Counter reclaimed;
    final Counter deadLetteredUnparseable;
    final Counter deadLetteredMaxDeliveries;
    final Counter deadLetteredRejected;
    final Counter trimmed;
    final DistributionSummary batchEntries;
    final AtomicLong lag = new AtomicLong(-1);
    final AtomicLong pending = new AtomicLong(-1);
    final AtomicLong length = new AtomicLong(-1);

    RelayMetrics(MeterRegistry registry, String stream) {
        batchEntries = DistributionSummary.builder("vigil.relay.batch.entries").tag("stream", stream)
                .description("Entries per batch sent to Kafka: small batches at a steady rate mean the linger is too short")
                .serviceLevelObjectives(1, 10, 100, 1000)
                .register(registry);
        published = Counter.builder("vigil.relay.published").tag("stream", stream)
                .description("Events the broker acknowledged (then XACKed); its rate is the relay's throughput")
                .register(registry);
        publishFailed = Counter.builder("vigil.relay.publish.failed").tag("stream", stream)
                .description("Sends that failed (retried, or dead-lettered when Kafka rejects the record)")
                .register(registry);
        publishLatency = Timer.builder("vigil.relay.publish.latency").tag("stream", stream)
                .description("From send to the broker's acknowledgement (acks=all)")
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1)).maximumExpectedValue(Duration.ofSeconds(60))
                .register(registry);
        eventAge = Timer.builder("vigil.relay.event.age").tag("stream", stream)
                .description("From the entry's XADD (its stream id) to the broker's acknowledgement")
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1)).maximumExpectedValue(Duration.ofMinutes(10))
                .register(registry);
        reclaimed = Counter.builder("vigil.relay.reclaimed").tag("stream", stream)
                .description("Pending entries taken over from an idle consumer (XAUTOCLAIM)").register(registry);
        deadLetteredUnparseable = deadLettered(registry, stream, "unparseable");
        deadLetteredMaxDeliveries = deadLettered(registry, stream, "max-deliveries");
        deadLetteredRejected = deadLettered(registry, stream, "rejected");
        trimmed = Counter.builder("vigil.relay.trimmed").tag("stream", stream)
                .description("Pending entries found deleted from the stream (trimmed by MAXLEN before relayed): lost events")
                .register(registry);
        Gauge.builder("vigil.relay.lag", lag, AtomicLong::get).tag("stream", stream)
                .description("Entries in the stream not yet delivered to the group (XINFO GROUPS lag; -1 unknown)")
                .register(registry);
        Gauge.builder("vigil.relay.pending", pending, AtomicLong::get).tag("stream", stream)
                .description("Entries delivered but not acknowledged (the group's PEL)").register(registry);
        Gauge.builder("vigil.relay.stream.length", length, AtomicLong::get).tag("stream", stream)
                .description("XLEN of the stream").register(registry);
    }

    private static Counter deadLettered(MeterRegistry registry, String stream, String reason) {
        return Counter.builder("vigil.relay.dead.lettered").tag("stream", stream).tag("reason", reason)
                .description("Entries moved to the dead-letter stream, by reason").register(registry);
    }
}
