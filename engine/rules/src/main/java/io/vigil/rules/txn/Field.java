package io.vigil.rules.txn;

import java.util.HashMap;
import java.util.Map;

/**
 * The known transaction fields (engine contract §2). Rules address them by JSON name or alias; the
 * compiler resolves a name to a {@code Field} once, so evaluation indexes arrays by ordinal instead
 * of looking names up. Nested address fields are flattened to {@code billing_address.city} etc.
 * The aliases include every name of the existing engine's field registry (txn_id, card, merch_id,
 * merch_category, billing_city, ...), so its rulesets keep their meaning.
 * {@code custom_fields.<name>} is not an enum member: it is resolved to a custom-field slot.
 */
public enum Field {
    TRANSACTION_ID("transaction_id", Type.STRING, "txn_id"),
    CARD_HASH("card_hash", Type.STRING, "card"),
    AMOUNT("amount", Type.NUMBER),
    CURRENCY("currency", Type.STRING),
    MERCHANT_ID("merchant_id", Type.STRING, "merch_id"),
    MERCHANT_NAME("merchant_name", Type.STRING),
    MERCHANT_CATEGORY("merchant_category", Type.STRING, "merch_category"),
    MERCHANT_CATEGORY_CODE("merchant_category_code", Type.STRING, "mcc"),
    CARD_PRESENT("card_present", Type.BOOLEAN),
    TRANSACTION_TYPE("transaction_type", Type.STRING),
    ENTRY_MODE("entry_mode", Type.STRING),
    COUNTRY_CODE("country_code", Type.STRING),
    IP_ADDRESS("ip_address", Type.STRING, "ip"),
    DEVICE_ID("device_id", Type.STRING, "device"),
    EMAIL("email", Type.STRING),
    PHONE("phone", Type.STRING),
    TIMESTAMP("timestamp", Type.STRING, "occurred_at"),
    CARD_NETWORK("card_network", Type.STRING, "network"),
    CARD_BIN("card_bin", Type.STRING, "bin"),
    CARD_LOGO("card_logo", Type.STRING, "logo"),
    BILLING_CITY("billing_address.city", Type.STRING, "billing_city"),
    BILLING_COUNTRY("billing_address.country", Type.STRING, "billing_country"),
    BILLING_POSTAL_CODE("billing_address.postal_code", Type.STRING, "billing_postal_code"),
    BILLING_STATE("billing_address.state", Type.STRING, "billing_state"),
    SHIPPING_CITY("shipping_address.city", Type.STRING, "shipping_city"),
    SHIPPING_COUNTRY("shipping_address.country", Type.STRING, "shipping_country"),
    SHIPPING_POSTAL_CODE("shipping_address.postal_code", Type.STRING, "shipping_postal_code"),
    SHIPPING_STATE("shipping_address.state", Type.STRING, "shipping_state"),
    /** MONITORING only: the decision the caller already took. */
    DECISION("decision", Type.STRING);

    /** The JSON value type a field must have on the wire. */
    public enum Type { STRING, NUMBER, BOOLEAN }

    public static final int COUNT = values().length;
    private static final Field[] VALUES = values();
    private static final Map<String, Field> BY_NAME = new HashMap<>();

    static {
        for (Field f : VALUES) {
            BY_NAME.put(f.jsonName, f);
            for (String a : f.aliases) {
                BY_NAME.put(a, f);
            }
        }
    }

    private final String jsonName;
    private final Type type;
    private final String[] aliases;

    Field(String jsonName, Type type, String... aliases) {
        this.jsonName = jsonName;
        this.type = type;
        this.aliases = aliases;
    }

    public String jsonName() {
        return jsonName;
    }

    public Type type() {
        return type;
    }

    /** Resolves a rule's field name or alias; {@code null} when unknown (custom fields are not resolved here). */
    public static Field byName(String name) {
        return BY_NAME.get(name);
    }

    /** Every name a rule may use for a known field: canonical names and aliases (for "did you mean" hints). */
    public static java.util.Set<String> names() {
        return java.util.Collections.unmodifiableSet(BY_NAME.keySet());
    }

    public static Field of(int ordinal) {
        return VALUES[ordinal];
    }
}
