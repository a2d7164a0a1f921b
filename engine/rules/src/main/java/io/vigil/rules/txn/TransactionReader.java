package io.vigil.rules.txn;

/**
 * Reads a request body straight into a {@link Transaction} with a streaming JSON parser (no
 * intermediate map or tree). Unknown top-level fields are ignored; a known field with the wrong
 * type, a body that is not a JSON object, or a missing/empty/over-long transaction_id is an
 * {@link InvalidTransactionException} naming the field.
 */
public final class TransactionReader {

    public Transaction read(byte[] body) throws InvalidTransactionException {
        throw new UnsupportedOperationException("not implemented yet");
    }
}
