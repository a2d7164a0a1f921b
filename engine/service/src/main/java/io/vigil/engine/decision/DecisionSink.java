package io.vigil.engine.decision;

/**
 * Where every answered decision goes after the caller has its answer (the durable outbox). Called on
 * the event loop: implementations must not block and must not throw for a full queue (count and drop).
 *
 * <p>Answered means durable: the decision path {@link #reserve reserves} a place before it decides and
 * sheds the request when there is none, so a decision it answers is never dropped for want of room
 * (docs/adr/0009-answered-means-durable.md).
 */
public interface DecisionSink {

    /** A record without a reserved place (a shed answer): queued if there is room left, else dropped and counted. */
    void offer(DecisionRecord record);

    /** Holds one place for a decision about to be made; false when there is none (shed instead of deciding). */
    default boolean reserve() {
        return true;
    }

    /** The record of a decision that {@link #reserve reserved} its place: always queued. */
    default void offerReserved(DecisionRecord record) {
        offer(record);
    }

    /**
     * Where warm-up decisions go (readiness, docs/adr/0020-warm-up-depth.md): the same code as real
     * decisions' events, into a place nothing publishes. By default nowhere.
     */
    default DecisionSink warmUp() {
        return NOWHERE;
    }

    /**
     * Where real decisions go: an object of the class {@link #warmUp} answers, so that the code both
     * call is compiled for one class and does not deoptimise at ready (docs/adr/0029). By default this
     * sink itself.
     */
    default DecisionSink traffic() {
        return this;
    }

    /**
     * Ends {@link #warmUp}: waits (bounded) for what it holds to be written, then deletes it. Answers
     * how many warm-up events it had written.
     */
    default long endWarmUp() {
        return 0;
    }

    /** Drops every record. */
    DecisionSink NOWHERE = record -> {
    };
}
