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
 * type, a body that is not a JSON object, or a missing/empty/over-long transaction_id is an
 * {@link InvalidTransactionException} naming the field.
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
        Transaction txn = new Transaction();
        try (JsonParser p = factory.createParser(body, offset, length)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new InvalidTransactionException(null, "expected a JSON object");
            }
            JsonToken t;
            while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken v = p.nextToken();
                readField(p, txn, name, v);
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

    private static void readField(JsonParser p, Transaction txn, String name, JsonToken v)
            throws IOException, InvalidTransactionException {
        switch (name) {
            case "transaction_id" -> string(p, txn, Field.TRANSACTION_ID, v, name);
            case "card_hash" -> string(p, txn, Field.CARD_HASH, v, name);
            case "amount" -> amount(p, txn, v);
            case "currency" -> string(p, txn, Field.CURRENCY, v, name);
            case "merchant_id" -> string(p, txn, Field.MERCHANT_ID, v, name);
            case "merchant_name" -> string(p, txn, Field.MERCHANT_NAME, v, name);
            case "merchant_category" -> string(p, txn, Field.MERCHANT_CATEGORY, v, name);
            case "merchant_category_code" -> string(p, txn, Field.MERCHANT_CATEGORY_CODE, v, name);
            case "card_present" -> bool(txn, Field.CARD_PRESENT, v, name);
            case "transaction_type" -> string(p, txn, Field.TRANSACTION_TYPE, v, name);
            case "entry_mode" -> string(p, txn, Field.ENTRY_MODE, v, name);
            case "country_code" -> string(p, txn, Field.COUNTRY_CODE, v, name);
            case "ip_address" -> string(p, txn, Field.IP_ADDRESS, v, name);
            case "device_id" -> string(p, txn, Field.DEVICE_ID, v, name);
            case "email" -> string(p, txn, Field.EMAIL, v, name);
            case "phone" -> string(p, txn, Field.PHONE, v, name);
            case "timestamp", "occurred_at" -> string(p, txn, Field.TIMESTAMP, v, name);
            case "card_network" -> string(p, txn, Field.CARD_NETWORK, v, name);
            case "card_bin" -> cardBin(p, txn, v);
            case "card_logo" -> string(p, txn, Field.CARD_LOGO, v, name);
            case "decision" -> string(p, txn, Field.DECISION, v, name);
            case "billing_address" -> address(p, txn, v, name, Field.BILLING_CITY, Field.BILLING_COUNTRY,
                    Field.BILLING_POSTAL_CODE, Field.BILLING_STATE);
            case "shipping_address" -> address(p, txn, v, name, Field.SHIPPING_CITY, Field.SHIPPING_COUNTRY,
                    Field.SHIPPING_POSTAL_CODE, Field.SHIPPING_STATE);
            case "custom_fields" -> custom(p, txn, v);
            default -> p.skipChildren(); // unknown top-level fields are ignored (contract §2)
        }
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

    private static void amount(JsonParser p, Transaction txn, JsonToken v) throws IOException, InvalidTransactionException {
        if (v == JsonToken.VALUE_NUMBER_INT || v == JsonToken.VALUE_NUMBER_FLOAT) {
            double d = p.getDoubleValue();
            if (Double.isInfinite(d)) {
                throw new InvalidTransactionException("amount", "number out of range");
            }
            txn.setNumber(Field.AMOUNT, d, p.getText());
        } else if (v == JsonToken.VALUE_NULL) {
            txn.setText(Field.AMOUNT, null);
        } else {
            throw new InvalidTransactionException("amount", EXPECTED_NUMBER);
        }
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

    private static void cardBin(JsonParser p, Transaction txn, JsonToken v) throws IOException, InvalidTransactionException {
        string(p, txn, Field.CARD_BIN, v, "card_bin");
        String bin = txn.text(Field.CARD_BIN);
        if (bin != null && !isBin(bin)) {
            throw new InvalidTransactionException("card_bin", "expected 6 to 8 digits");
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
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
            String key = p.currentName();
            JsonToken sv = p.nextToken();
            switch (key) {
                case "city" -> string(p, txn, city, sv, city.jsonName());
                case "country" -> string(p, txn, country, sv, country.jsonName());
                case "postal_code" -> string(p, txn, postalCode, sv, postalCode.jsonName());
                case "state" -> string(p, txn, state, sv, state.jsonName());
                default -> p.skipChildren(); // other address lines are not used by rules
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
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
            String key = p.currentName();
            JsonToken sv = p.nextToken();
            switch (sv) {
                case VALUE_STRING -> txn.setCustom(key, p.getText());
                case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> txn.setCustom(key, p.getDoubleValue());
                case VALUE_TRUE -> txn.setCustom(key, Boolean.TRUE);
                case VALUE_FALSE -> txn.setCustom(key, Boolean.FALSE);
                case VALUE_NULL -> txn.setCustom(key, null);
                default -> throw new InvalidTransactionException("custom_fields." + key, EXPECTED_SCALAR);
            }
        }
        if (t != JsonToken.END_OBJECT) {
            throw new InvalidTransactionException(null, "not valid JSON");
        }
    }
}
