package io.vigil.engine.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The client-error log's rate limit, on a clock the test moves (no waiting, no wall clock). */
class ClientErrorsTest {

    @Test
    void oneLinePerIntervalThenTheNumberNotLogged() {
        AtomicLong now = new AtomicLong(1_000);
        ClientErrors.RateLimitedLog log = new ClientErrors.RateLimitedLog(now::get, 10_000);
        assertThat(log.admit()).as("the first is logged").isZero();
        assertThat(log.admit()).isEqualTo(-1);
        assertThat(log.admit()).isEqualTo(-1);
        now.addAndGet(9_999);
        assertThat(log.admit()).as("still within the interval").isEqualTo(-1);
        now.addAndGet(1);
        assertThat(log.admit()).as("next interval: logged, with the 3 not logged").isEqualTo(3);
        assertThat(log.admit()).isEqualTo(-1);
        now.addAndGet(50_000);
        assertThat(log.admit()).isEqualTo(1);
        now.addAndGet(10_000);
        assertThat(log.admit()).isZero();
    }

    @Test
    void onlyChunkedAloneIsASupportedTransferCoding() {
        assertThat(RequestGuard.onlyChunked(java.util.List.of("chunked"))).isTrue();
        assertThat(RequestGuard.onlyChunked(java.util.List.of(" Chunked "))).isTrue();
        assertThat(RequestGuard.onlyChunked(java.util.List.of("gzip, chunked"))).isFalse();
        assertThat(RequestGuard.onlyChunked(java.util.List.of("chunked", "chunked"))).isFalse();
        assertThat(RequestGuard.onlyChunked(java.util.List.of("identity"))).isFalse();
    }
}
