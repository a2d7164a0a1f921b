package io.vigil.rules.txn;

/** A request body that is not a valid transaction; {@code field} names the offending field (may be null). */
public final class InvalidTransactionException extends Exception {
    private final String field;

    public InvalidTransactionException(String field, String message) {
        super(field == null ? message : field + ": " + message, null, false, false);
        this.field = field;
    }

    public String field() {
        return field;
    }

    /** The message without the field prefix. */
    public String detail() {
        String m = getMessage();
        return field == null ? m : m.substring(field.length() + 2);
    }
}
