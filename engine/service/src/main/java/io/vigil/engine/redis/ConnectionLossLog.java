package io.vigil.engine.redis;

import io.quarkus.logging.LoggingFilter;
import org.jboss.logmanager.ExtLogRecord;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Filter;
import java.util.logging.Level;
import java.util.logging.LogRecord;

/**
 * One short line, at most once a second, instead of a stack trace per pooled connection when Redis
 * dies. The Vert.x Redis client logs "Unhandled Error" with the full trace for every idle pooled
 * connection reset by the kill: 17 traces written synchronously on one event loop held its answers for
 * 24 ms (docs/performance.md, issue 22). The outage itself is reported by the velocity circuit and the
 * outbox writer, so the traces say nothing an SRE needs; other errors of that logger pass unchanged.
 */
@LoggingFilter(name = "redis-connection-loss")
public final class ConnectionLossLog implements Filter {

    static final String CLIENT_LOGGER = "io.vertx.redis.client.impl.RedisConnectionManager";
    private static final long INTERVAL_NANOS = 1_000_000_000L;

    private final AtomicLong lastLogged = new AtomicLong(Long.MIN_VALUE);
    private final AtomicLong suppressed = new AtomicLong();

    @Override
    public boolean isLoggable(LogRecord record) {
        if (!CLIENT_LOGGER.equals(record.getLoggerName()) || !(record.getThrown() instanceof IOException lost)) {
            return true;
        }
        long now = System.nanoTime();
        long last = lastLogged.get();
        if (last != Long.MIN_VALUE && now - last < INTERVAL_NANOS || !lastLogged.compareAndSet(last, now)) {
            suppressed.incrementAndGet();
            return false;
        }
        long before = suppressed.getAndSet(0);
        String message = "Redis connection lost: " + lost
                + (before > 0 ? " (" + before + " more in the last second not logged)" : "")
                + "; velocity and the outbox writer report the outage";
        record.setThrown(null);
        record.setLevel(Level.WARNING);
        if (record instanceof ExtLogRecord ext) {
            ext.setMessage(message, ExtLogRecord.FormatStyle.NO_FORMAT);
        } else {
            record.setMessage(message);
            record.setParameters(null);
        }
        return true;
    }
}
