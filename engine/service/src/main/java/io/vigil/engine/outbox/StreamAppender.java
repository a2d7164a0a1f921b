package io.vigil.engine.outbox;

import java.util.List;

/** Appends a batch of entries to the decision streams in one round trip; throws when any of it may have failed. */
interface StreamAppender {

    void append(List<StreamEntry> entries) throws Exception;
}
