package io.vigil.rules.txn;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A transaction as the engine evaluates it: one slot per {@link Field}, indexed by ordinal, so the
 * evaluator never looks a name up. Strings and numbers live in parallel arrays; a field that was
 * absent or JSON {@code null} is "missing" (see the null semantics ADR). Custom fields are the only
 * map, and exist only when the request had any.
 *
 * <p>The original request bytes are kept so the decision event can embed the full transaction
 * without serialising it again.
 */
public final class Transaction {
    static final byte MISSING = 0;
    static final byte TEXT = 1;
    static final byte NUMBER = 2;
    static final byte BOOL = 3;

    private final byte[] kinds = new byte[Field.COUNT];
    private final String[] texts = new String[Field.COUNT];
    private final double[] numbers = new double[Field.COUNT];
    /** Bit {@code Field.ordinal()} set when that field is present; {@link #CUSTOM_PRESENT} when any custom field is. */
    private long present;
    private Map<String, Object> custom;
    private byte[] raw;

    /** The presence bit that stands for "at least one custom field". */
    public static final long CUSTOM_PRESENT = 1L << 63;

    public boolean has(Field f) {
        return kinds[f.ordinal()] != MISSING;
    }

    /** The value as text: strings as-is, numbers in canonical form, booleans as true/false; null when missing. */
    public String text(Field f) {
        return texts[f.ordinal()];
    }

    /** The numeric value; only meaningful when {@link #isNumber(Field)}. */
    public double number(Field f) {
        return numbers[f.ordinal()];
    }

    public boolean isNumber(Field f) {
        return kinds[f.ordinal()] == NUMBER;
    }

    public boolean isBoolean(Field f) {
        return kinds[f.ordinal()] == BOOL;
    }

    public boolean bool(Field f) {
        return kinds[f.ordinal()] == BOOL && numbers[f.ordinal()] != 0;
    }

    public Transaction setText(Field f, String value) {
        int i = f.ordinal();
        if (value == null) {
            kinds[i] = MISSING;
            texts[i] = null;
            present &= ~(1L << i);
        } else {
            kinds[i] = TEXT;
            texts[i] = value;
            present |= 1L << i;
        }
        return this;
    }

    /** Sets a number; {@code text} is its JSON spelling kept for display and string operators. */
    public Transaction setNumber(Field f, double value, String text) {
        int i = f.ordinal();
        kinds[i] = NUMBER;
        numbers[i] = value;
        texts[i] = text;
        present |= 1L << i;
        return this;
    }

    public Transaction setBoolean(Field f, boolean value) {
        int i = f.ordinal();
        kinds[i] = BOOL;
        numbers[i] = value ? 1 : 0;
        texts[i] = value ? "true" : "false";
        present |= 1L << i;
        return this;
    }

    /** Custom field value: String, Double or Boolean; null when missing. */
    public Object custom(String name) {
        return custom == null ? null : custom.get(name);
    }

    /**
     * Which fields are present, as bits: bit {@code f.ordinal()} for each present {@link Field}, plus
     * {@link #CUSTOM_PRESENT}. Lets the evaluator skip rules that need a missing field in one test.
     */
    public long presence() {
        return present;
    }

    public Map<String, Object> customFields() {
        return custom == null ? Collections.emptyMap() : Collections.unmodifiableMap(custom);
    }

    public Transaction setCustom(String name, Object value) {
        if (value == null) {
            if (custom != null) {
                custom.remove(name);
                if (custom.isEmpty()) {
                    present &= ~CUSTOM_PRESENT;
                }
            }
            return this;
        }
        if (!(value instanceof String || value instanceof Double || value instanceof Boolean)) {
            throw new IllegalArgumentException("custom field values are String, Double or Boolean");
        }
        if (custom == null) {
            custom = new LinkedHashMap<>();
        }
        custom.put(name, value);
        present |= CUSTOM_PRESENT;
        return this;
    }

    public byte[] raw() {
        return raw;
    }

    public Transaction raw(byte[] raw) {
        this.raw = raw;
        return this;
    }

    public String transactionId() {
        return texts[Field.TRANSACTION_ID.ordinal()];
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("Transaction{");
        for (Field f : Field.values()) {
            if (has(f)) {
                sb.append(f.jsonName()).append('=').append(texts[f.ordinal()]).append(", ");
            }
        }
        if (custom != null) {
            sb.append("custom_fields=").append(custom);
        }
        return sb.append('}').toString();
    }

    /** For tests and reuse: clears every slot. */
    public void clear() {
        Arrays.fill(kinds, MISSING);
        Arrays.fill(texts, null);
        present = 0;
        custom = null;
        raw = null;
    }
}
