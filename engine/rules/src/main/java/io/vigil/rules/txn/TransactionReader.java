package io.vigil.rules.txn;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import java.io.IOException;

/**
 * Reads a request body straight into a {@link Transaction} with a streaming JSON parser (no
 * intermediate map or tree). Unknown top-level fields are ignored; a known field with the wrong
 * type or the wrong form ({@link FieldForms}), a body that is not well-formed UTF-8 or not a JSON
 * object, a key given twice in any object, or a missing/empty/over-long transaction_id is an
 * {@link InvalidTransactionException} naming the field.
 *
 * <p>Duplicate keys are refused rather than "last one wins": two values for one payment field
 * mean the caller and the engine may disagree about what was evaluated. {@code timestamp} and its
 * alias {@code occurred_at} may both be given only with the same value. Known keys are tracked in
 * a bit mask; a key list is allocated only for objects with unknown keys or custom fields.
 *
 * <p>Thread-safe and meant to be shared: the Jackson factory is immutable once built.
 */
public final class TransactionReader {
    /** Longest accepted transaction_id (contract §2). */
    public static final int MAX_TRANSACTION_ID_LENGTH = 128;

    static final String EXPECTED_STRING = "expected a string";
    static final String EXPECTED_NUMBER = "expected a number";
    static final String EXPECTED_BOOLEAN = "expected a boolean";
    static final String EXPECTED_OBJECT = "expected an object";
    static final String EXPECTED_SCALAR = "expected a scalar";
    static final String DUPLICATE_KEY = "duplicate key";
    static final String OUT_OF_RANGE = "number out of range";

    /** Bits of {@code seen} for keys that are not a {@link Field} of their own; fields use their ordinal. */
    private static final long OCCURRED_AT = 1L << 59;
    private static final long BILLING_ADDRESS = 1L << 60;
    private static final long SHIPPING_ADDRESS = 1L << 61;
    private static final long CUSTOM_FIELDS = 1L << 62;
    private static final String CUSTOM_FIELDS_NAME = "custom_fields";
    private static final long TIMESTAMPS = (1L << Field.TIMESTAMP.ordinal()) | OCCURRED_AT;

    static {
        if (Field.COUNT > 59) {
            throw new ExceptionInInitializerError("TransactionReader's key bits assume at most 59 fields");
        }
    }

    private final JsonFactory factory;

    public TransactionReader() {
        this.factory = JsonFactory.builder()
                // Location in error messages would echo request content; keep messages short and safe.
                .disable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION)
                .build();
    }

    public Transaction read(byte[] body) throws InvalidTransactionException {
        return read(body, 0, body.length).raw(body);
    }

    /** Reads {@code length} bytes from {@code offset}; the caller sets {@link Transaction#raw(byte[])} if it wants it. */
    public Transaction read(byte[] body, int offset, int length) throws InvalidTransactionException {
        checkUtf8(body, offset, length);
        Transaction txn = new Transaction();
        try (JsonParser p = factory.createParser(body, offset, length)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new InvalidTransactionException(null, "expected a JSON object");
            }
            long seen = 0;
            Keys unknown = null;
            JsonToken t;
            while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken v = p.nextToken();
                String timestampBefore = txn.text(Field.TIMESTAMP);
                long bit = readField(p, txn, name, v);
                if (bit == 0) {
                    unknown = Keys.add(unknown, null, name);
                } else if ((seen & bit) != 0) {
                    throw new InvalidTransactionException(name, DUPLICATE_KEY);
                } else if ((bit & TIMESTAMPS) != 0 && (seen & TIMESTAMPS) != 0
                        && !java.util.Objects.equals(timestampBefore, txn.text(Field.TIMESTAMP))) {
                    throw new InvalidTransactionException(name, "differs from its alias given earlier ("
                            + (bit == OCCURRED_AT ? "timestamp" : "occurred_at") + ")");
                }
                seen |= bit;
            }
            if (t != JsonToken.END_OBJECT) {
                throw new InvalidTransactionException(null, "not valid JSON");
            }
            if (p.nextToken() != null) {
                throw new InvalidTransactionException(null, "unexpected content after the JSON object");
            }
        } catch (JsonProcessingException e) {
            throw new InvalidTransactionException(null, "not valid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            // Reading from a byte array cannot do I/O; a parser failure is still a bad body.
            throw new InvalidTransactionException(null, "not valid JSON: " + e.getMessage());
        }
        String id = txn.transactionId();
        if (id == null) {
            throw new InvalidTransactionException("transaction_id", "is required");
        }
        if (id.isEmpty() || id.length() > MAX_TRANSACTION_ID_LENGTH) {
            throw new InvalidTransactionException("transaction_id", "must be 1 to 128 characters");
        }
        return txn;
    }

    /**
     * Refuses bytes that are not well-formed UTF-8 ({@link Utf8}), naming the field that holds the
     * first bad byte. For any JSON body: the management port checks simulate/replay bodies with it.
     */
    public static void checkUtf8(byte[] body, int offset, int length) throws InvalidTransactionException {
        int bad = Utf8.firstInvalid(body, offset, offset + length);
        if (bad >= 0) {
            throw new InvalidTransactionException(fieldAt(body, offset, length, bad - offset),
                    "invalid UTF-8 at byte " + (bad - offset));
        }
    }

    /** Reads one top-level field; returns its bit in the seen mask, 0 for an unknown (skipped) key. */
    private static long readField(JsonParser p, Transaction txn, String name, JsonToken v)
            throws IOException, InvalidTransactionException {
        Field f;
        switch (name) {
            case "transaction_id" -> string(p, txn, f = Field.TRANSACTION_ID, v, name);
            case "card_hash" -> string(p, txn, f = Field.CARD_HASH, v, name);
            case "amount" -> amount(p, txn, f = Field.AMOUNT, v);
            case "currency" -> formed(p, txn, f = Field.CURRENCY, v, name);
            case "merchant_id" -> string(p, txn, f = Field.MERCHANT_ID, v, name);
            case "merchant_name" -> string(p, txn, f = Field.MERCHANT_NAME, v, name);
            case "merchant_category" -> string(p, txn, f = Field.MERCHANT_CATEGORY, v, name);
            case "merchant_category_code" -> formed(p, txn, f = Field.MERCHANT_CATEGORY_CODE, v, name);
            case "card_present" -> bool(txn, f = Field.CARD_PRESENT, v, name);
            case "transaction_type" -> string(p, txn, f = Field.TRANSACTION_TYPE, v, name);
            case "entry_mode" -> string(p, txn, f = Field.ENTRY_MODE, v, name);
            case "country_code" -> formed(p, txn, f = Field.COUNTRY_CODE, v, name);
            case "ip_address" -> string(p, txn, f = Field.IP_ADDRESS, v, name);
            case "device_id" -> string(p, txn, f = Field.DEVICE_ID, v, name);
            case "email" -> string(p, txn, f = Field.EMAIL, v, name);
            case "phone" -> string(p, txn, f = Field.PHONE, v, name);
            case "timestamp" -> formed(p, txn, f = Field.TIMESTAMP, v, name);
            case "occurred_at" -> {
                formed(p, txn, Field.TIMESTAMP, v, name);
                return OCCURRED_AT;
            }
            case "card_network" -> string(p, txn, f = Field.CARD_NETWORK, v, name);
            case "card_bin" -> formed(p, txn, f = Field.CARD_BIN, v, name);
            case "card_logo" -> string(p, txn, f = Field.CARD_LOGO, v, name);
            case "decision" -> string(p, txn, f = Field.DECISION, v, name);
            case "billing_address" -> {
                address(p, txn, v, name, Field.BILLING_CITY, Field.BILLING_COUNTRY, Field.BILLING_POSTAL_CODE,
                        Field.BILLING_STATE);
                return BILLING_ADDRESS;
            }
            case "shipping_address" -> {
                address(p, txn, v, name, Field.SHIPPING_CITY, Field.SHIPPING_COUNTRY, Field.SHIPPING_POSTAL_CODE,
                        Field.SHIPPING_STATE);
                return SHIPPING_ADDRESS;
            }
            case "custom_fields" -> {
                custom(p, txn, v);
                return CUSTOM_FIELDS;
            }
            default -> {
                skip(p, v, name); // unknown top-level fields are ignored (contract §2)
                return 0;
            }
        }
        return 1L << f.ordinal();
    }

    private static void string(JsonParser p, Transaction txn, Field f, JsonToken v, String name)
            throws IOException, InvalidTransactionException {
        if (v == JsonToken.VALUE_STRING) {
            txn.setText(f, p.getText());
        } else if (v == JsonToken.VALUE_NULL) {
            txn.setText(f, null);
        } else {
            throw new InvalidTransactionException(name, EXPECTED_STRING);
        }
    }

    private static void amount(JsonParser p, Transaction txn, Field f, JsonToken v) throws IOException, InvalidTransactionException {
        if (v == JsonToken.VALUE_NUMBER_INT || v == JsonToken.VALUE_NUMBER_FLOAT) {
            txn.setNumber(f, finite(p, null, f.jsonName()), p.getText());
        } else if (v == JsonToken.VALUE_NULL) {
            txn.setText(f, null);
        } else {
            throw new InvalidTransactionException(f.jsonName(), EXPECTED_NUMBER);
        }
    }

    /** The current number as a double; one too large for a double (1e400) is refused, never infinity. */
    private static double finite(JsonParser p, String prefix, String name) throws IOException, InvalidTransactionException {
        double d = p.getDoubleValue();
        if (Double.isInfinite(d)) {
            throw new InvalidTransactionException(path(prefix, name), OUT_OF_RANGE);
        }
        return d;
    }

    /** {@code prefix.key}, built only for an error message: the happy path concatenates nothing. */
    private static String path(String prefix, String key) {
        return prefix == null ? key : prefix + "." + key;
    }

    private static void bool(Transaction txn, Field f, JsonToken v, String name) throws InvalidTransactionException {
        if (v == JsonToken.VALUE_TRUE) {
            txn.setBoolean(f, true);
        } else if (v == JsonToken.VALUE_FALSE) {
            txn.setBoolean(f, false);
        } else if (v == JsonToken.VALUE_NULL) {
            txn.setText(f, null);
        } else {
            throw new InvalidTransactionException(name, EXPECTED_BOOLEAN);
        }
    }

    /** A string field the contract gives a form: read as a string, then checked ({@link FieldForms}). */
    private static void formed(JsonParser p, Transaction txn, Field f, JsonToken v, String name)
            throws IOException, InvalidTransactionException {
        string(p, txn, f, v, name);
        String s = txn.text(f);
        if (s == null) {
            return;
        }
        String expected = switch (f) {
            case CURRENCY -> FieldForms.isCurrency(s) ? null : "expected an ISO 4217 currency code such as \"EUR\"";
            case COUNTRY_CODE, BILLING_COUNTRY, SHIPPING_COUNTRY -> FieldForms.isCountry(s) ? null
                    : "expected an ISO 3166-1 alpha-2 country code such as \"US\"";
            case MERCHANT_CATEGORY_CODE -> FieldForms.isMcc(s) ? null : "expected 4 digits (ISO 18245 merchant category code)";
            case TIMESTAMP -> FieldForms.isRfc3339(s) ? null
                    : "expected an RFC 3339 date-time such as \"2026-01-15T10:45:30Z\"";
            case CARD_BIN -> isBin(s) ? null : "expected 6 to 8 digits";
            default -> null;
        };
        if (expected != null) {
            throw new InvalidTransactionException(name, expected);
        }
    }

    static boolean isBin(String s) {
        int n = s.length();
        if (n < 6 || n > 8) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    private static void address(JsonParser p, Transaction txn, JsonToken v, String name,
                                Field city, Field country, Field postalCode, Field state)
            throws IOException, InvalidTransactionException {
        if (v == JsonToken.VALUE_NULL) {
            return;
        }
        if (v != JsonToken.START_OBJECT) {
            throw new InvalidTransactionException(name, EXPECTED_OBJECT);
        }
        long seen = 0;
        Keys other = null;
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
            String key = p.currentName();
            JsonToken sv = p.nextToken();
            Field f = switch (key) {
                case "city" -> city;
                case "country" -> country;
                case "postal_code" -> postalCode;
                case "state" -> state;
                default -> null;
            };
            if (f == null) {
                other = Keys.add(other, name, key);
                skip(p, sv, path(name, key)); // other address lines are not used by rules
                continue;
            }
            long bit = 1L << f.ordinal();
            if ((seen & bit) != 0) {
                throw new InvalidTransactionException(f.jsonName(), DUPLICATE_KEY);
            }
            seen |= bit;
            if (f == country) {
                formed(p, txn, f, sv, f.jsonName());
            } else {
                string(p, txn, f, sv, f.jsonName());
            }
        }
        if (t != JsonToken.END_OBJECT) {
            throw new InvalidTransactionException(null, "not valid JSON");
        }
    }

    private static void custom(JsonParser p, Transaction txn, JsonToken v) throws IOException, InvalidTransactionException {
        if (v == JsonToken.VALUE_NULL) {
            return;
        }
        if (v != JsonToken.START_OBJECT) {
            throw new InvalidTransactionException("custom_fields", EXPECTED_OBJECT);
        }
        // Duplicates: a key already holding a value is in the transaction's custom map; only keys
        // that were null need a list of their own (rare, so usually nothing is allocated).
        Keys nulls = null;
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
            String key = p.currentName();
            if (txn.custom(key) != null || (nulls != null && nulls.contains(key))) {
                throw new InvalidTransactionException(path(CUSTOM_FIELDS_NAME, key), DUPLICATE_KEY);
            }
            JsonToken sv = p.nextToken();
            switch (sv) {
                case VALUE_STRING -> txn.setCustom(key, p.getText());
                case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> txn.setCustom(key, finite(p, CUSTOM_FIELDS_NAME, key));
                case VALUE_TRUE -> txn.setCustom(key, Boolean.TRUE);
                case VALUE_FALSE -> txn.setCustom(key, Boolean.FALSE);
                case VALUE_NULL -> nulls = Keys.add(nulls, CUSTOM_FIELDS_NAME, key);
                default -> throw new InvalidTransactionException(path(CUSTOM_FIELDS_NAME, key), EXPECTED_SCALAR);
            }
        }
        if (t != JsonToken.END_OBJECT) {
            throw new InvalidTransactionException(null, "not valid JSON");
        }
    }

    /** Skips a value the engine does not read, still refusing a duplicate key in any object inside it. */
    private static void skip(JsonParser p, JsonToken v, String path) throws IOException, InvalidTransactionException {
        if (v == JsonToken.START_OBJECT) {
            Keys keys = null;
            JsonToken t;
            while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                String key = p.currentName();
                keys = Keys.add(keys, path, key);
                skip(p, p.nextToken(), path(path, key));
            }
            if (t != JsonToken.END_OBJECT) {
                throw new InvalidTransactionException(null, "not valid JSON");
            }
        } else if (v == JsonToken.START_ARRAY) {
            JsonToken t;
            int i = 0;
            while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
                if (t == null) {
                    throw new InvalidTransactionException(null, "not valid JSON");
                }
                skip(p, t, path + "[" + i++ + "]");
            }
        }
    }

    /**
     * Names of the keys of one object seen so far, for objects whose keys are not a fixed set.
     * Allocated on the first key; a linear scan is cheaper than hashing for the few keys a request has.
     */
    private static final class Keys {
        private String[] names = new String[8];
        private int size;

        /** Adds {@code key} to {@code keys} (created when null); a key already there is refused as {@code prefix.key}. */
        static Keys add(Keys keys, String prefix, String key) throws InvalidTransactionException {
            if (keys == null) {
                keys = new Keys();
            } else if (keys.contains(key)) {
                throw new InvalidTransactionException(path(prefix, key), DUPLICATE_KEY);
            }
            if (keys.size == keys.names.length) {
                keys.names = java.util.Arrays.copyOf(keys.names, keys.size * 2);
            }
            keys.names[keys.size++] = key;
            return keys;
        }

        boolean contains(String key) {
            for (int i = 0; i < size; i++) {
                if (names[i].equals(key)) {
                    return true;
                }
            }
            return false;
        }
    }

    /**
     * The field whose key or value holds byte {@code at} (relative to {@code offset}), for the error
     * of a body that is not well-formed UTF-8: the path of the last token that starts at or before it.
     * Only runs for a refused body.
     */
    static String fieldAt(byte[] body, int offset, int length, int at) {
        String last = null;
        try (JsonParser p = STRICT_LOCATIONS.createParser(body, offset, length)) {
            while (p.nextToken() != null) {
                if (p.currentTokenLocation().getByteOffset() > at) {
                    return last;
                }
                last = pathOf(p.getParsingContext());
            }
        } catch (IOException e) {
            // Jackson refuses some ill-formed bytes itself: the token it was reading is the one.
            return last;
        }
        return last;
    }

    private static final JsonFactory STRICT_LOCATIONS = new JsonFactory();

    /** {@code billing_address.country}, {@code custom_fields.note}, {@code extra[1]}: where a parser is, as a field path. */
    public static String pathOf(com.fasterxml.jackson.core.JsonStreamContext ctx) {
        StringBuilder sb = new StringBuilder();
        for (var c = ctx; c != null && !c.inRoot(); c = c.getParent()) {
            String part = c.inObject() ? c.getCurrentName() : "[" + Math.max(0, c.getCurrentIndex()) + "]";
            if (part == null) {
                continue;
            }
            if (sb.length() > 0 && sb.charAt(0) != '[') {
                sb.insert(0, '.');
            }
            sb.insert(0, part);
        }
        return sb.length() == 0 ? null : sb.toString();
    }
}
