package io.vigil.rules.model;

import io.vigil.rules.txn.Field;

/** A bound reference to a transaction field: one of the contract's fields, or a custom field by name. */
public sealed interface FieldRef {

    /** A field of the contract (any of its names or aliases resolved). */
    record Known(Field field) implements FieldRef {
    }

    /** {@code custom_fields.<name>}: its type is known only per transaction. */
    record Custom(String name) implements FieldRef {
    }
}
