package io.vigil.engine.outbox;

/** One serialized decision event on its way into a stream. */
record StreamEntry(int shard, String eventId, String key, byte[] event) {
}
