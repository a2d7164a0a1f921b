package io.vigil.engine.http;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.http.HttpClosedException;
import io.vertx.core.http.StreamResetException;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.jboss.logging.Logger;

/**
 * HTTP-level errors a caller causes on the data port: a body whose framing is broken (bad chunk
 * size, bad chunk end), a request the caller abandons before its body ended, a transfer coding the
 * engine cannot decode. None is an engine failure, so none is logged as an ERROR with a stack trace
 * or counted in {@code vigil_evaluate_rejected_total} (whose 5xx the availability SLI reads): each
 * gets a WARN line without stack trace, at most one per {@link #LOG_INTERVAL_SECONDS} per kind with
 * the number suppressed, and {@code vigil_http_client_errors_total{endpoint,kind}}.
 */
@ApplicationScoped
public class ClientErrors {
    private static final Logger LOG = Logger.getLogger(ClientErrors.class);
    static final long LOG_INTERVAL_SECONDS = 10;

    /** What went wrong, as the {@code kind} label. */
    public enum Kind {
        /** Malformed HTTP/1.1 body framing; answered 400 when the connection still allows it, then closed. */
        FRAMING("framing"),
        /** The caller closed the connection (or reset its HTTP/2 stream) before the body ended; nobody to answer. */
        ABORTED("aborted"),
        /** A Transfer-Encoding other than chunked: 501 (RFC 9112 §6.1), then closed. */
        TRANSFER_CODING("transfer_coding");

        final String label;

        Kind(String label) {
            this.label = label;
        }
    }

    @Inject
    MeterRegistry registry;

    private final RateLimitedLog[] logs = new RateLimitedLog[Kind.values().length];

    public ClientErrors() {
        for (Kind k : Kind.values()) {
            logs[k.ordinal()] = new RateLimitedLog(System::nanoTime, TimeUnit.SECONDS.toNanos(LOG_INTERVAL_SECONDS));
        }
    }

    /**
     * The kind of a failure raised while a data-port request was handled, or null when it is the
     * engine's own. Our handlers run only once the body has ended, so a failure before that is the
     * caller's: the connection closed under it (aborted) or the decoder refused its bytes (framing).
     */
    static Kind classify(RoutingContext ctx) {
        Throwable cause = ctx.failure();
        if (cause instanceof HttpClosedException || cause instanceof StreamResetException
                || cause instanceof ClosedChannelException || ctx.response().closed()) {
            return Kind.ABORTED;
        }
        if (!ctx.request().isEnded()) {
            return Kind.FRAMING;
        }
        return null;
    }

    /** Counts and (rate-limited) logs one client error; the caller answers if anyone is left to answer. */
    public void record(String endpoint, Kind kind, String request, Throwable cause) {
        record(endpoint, kind, request, describe(cause));
    }

    public void record(String endpoint, Kind kind, String request, String detail) {
        Counter.builder("vigil.http.client.errors")
                .description("Requests the caller broke at the HTTP level (framing, aborted, unsupported transfer coding); "
                        + "not engine errors, not in vigil_evaluate_rejected_total")
                .tags("endpoint", endpoint, "kind", kind.label)
                .register(registry).increment();
        long suppressed = logs[kind.ordinal()].admit();
        if (suppressed >= 0) {
            // No stack trace: the trace is Netty's decoder, and the caller can send these at line rate.
            LOG.warnf("client error (%s) on %s: %s%s", kind.label, request, detail,
                    suppressed == 0 ? "" : "; " + suppressed + " more in the last " + LOG_INTERVAL_SECONDS + " s not logged");
        }
    }

    private static String describe(Throwable cause) {
        if (cause == null) {
            return "no detail";
        }
        String m = cause.getMessage();
        return cause.getClass().getSimpleName() + (m == null ? "" : ": " + (m.length() > 200 ? m.substring(0, 200) + "…" : m));
    }

    /** At most one line per interval; {@link #admit()} says how many were dropped since the last one logged. */
    static final class RateLimitedLog {
        private final LongSupplier nanoTime;
        private final long interval;
        private final AtomicLong next;
        private final AtomicLong dropped = new AtomicLong();

        RateLimitedLog(LongSupplier nanoTime, long intervalNanos) {
            this.nanoTime = nanoTime;
            this.interval = intervalNanos;
            this.next = new AtomicLong(nanoTime.getAsLong());
        }

        /** The number dropped since the last admitted line when this one may be logged, else -1 (and it is counted as dropped). */
        long admit() {
            long now = nanoTime.getAsLong();
            long due = next.get();
            if (now - due >= 0 && next.compareAndSet(due, now + interval)) {
                return dropped.getAndSet(0);
            }
            dropped.incrementAndGet();
            return -1;
        }
    }
}
