package io.vigil.engine.decision;

/**
 * Where every answered decision goes after the caller has its answer (the durable outbox). Called on
 * the event loop: implementations must not block and must not throw for a full queue (count and drop).
 */
public interface DecisionSink {

    void offer(DecisionRecord record);
}
