package io.vigil.engine.redis;

import org.jboss.logmanager.ExtLogRecord;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.SocketException;
import java.util.logging.Level;
import java.util.logging.LogRecord;

import static org.assertj.core.api.Assertions.assertThat;

class ConnectionLossLogTest {

    private final ConnectionLossLog filter = new ConnectionLossLog();

    private static ExtLogRecord unhandled(Throwable thrown) {
        ExtLogRecord r = new ExtLogRecord(Level.SEVERE, "Unhandled Error", ConnectionLossLog.class.getName());
        r.setLoggerName(ConnectionLossLog.CLIENT_LOGGER);
        r.setThrown(thrown);
        return r;
    }

    @Test
    void aConnectionResetBecomesOneLineWithoutStackTrace() {
        ExtLogRecord r = unhandled(new SocketException("Connection reset"));

        assertThat(filter.isLoggable(r)).isTrue();
        assertThat(r.getThrown()).isNull();
        assertThat(r.getLevel()).isEqualTo(Level.WARNING);
        assertThat(r.getFormattedMessage()).contains("Redis connection lost", "Connection reset");
    }

    @Test
    void furtherLossesInTheSameSecondAreCountedNotLogged() {
        assertThat(filter.isLoggable(unhandled(new SocketException("Connection reset")))).isTrue();
        for (int i = 0; i < 16; i++) {
            assertThat(filter.isLoggable(unhandled(new IOException("Connection reset by peer")))).isFalse();
        }
    }

    @Test
    void otherErrorsOfTheClientAndOtherLoggersPassUnchanged() {
        IllegalStateException bug = new IllegalStateException("not an I/O error");
        ExtLogRecord clientBug = unhandled(bug);
        assertThat(filter.isLoggable(clientBug)).isTrue();
        assertThat(clientBug.getThrown()).isSameAs(bug);
        assertThat(clientBug.getLevel()).isEqualTo(Level.SEVERE);

        LogRecord other = new LogRecord(Level.SEVERE, "Unhandled Error");
        other.setLoggerName("io.vigil.engine.outbox.Outbox");
        SocketException reset = new SocketException("Connection reset");
        other.setThrown(reset);
        assertThat(filter.isLoggable(other)).isTrue();
        assertThat(other.getThrown()).isSameAs(reset);
    }
}
