package io.vigil.engine.warmup;

import static org.assertj.core.api.Assertions.assertThat;

import io.vigil.rules.txn.Field;
import io.vigil.rules.txn.Transaction;
import io.vigil.rules.txn.TransactionReader;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The warm-up's synthetic transactions carry every field a caller may send, and each in more than one
 * value: code compiled from a warm-up that never saw a field is deoptimised by the first real
 * transaction that has it (ADR 0025). Read by the engine's own reader, as the warm-up reads them.
 */
class WarmUpTransactionsTest {

    private static final int DECISIONS = 1_000;

    @Test
    void everyKnownFieldIsPresentInSomeAndAbsentOrDifferentInOthers() throws Exception {
        TransactionReader reader = new TransactionReader();
        Set<Field> present = EnumSet.noneOf(Field.class);
        Set<Field> absent = EnumSet.noneOf(Field.class);
        Set<String> values = new HashSet<>();
        Set<String> customFields = new HashSet<>();
        for (int n = 0; n < DECISIONS; n++) {
            Transaction txn = reader.read(WarmUp.body(n, n % 5 == 4));
            for (Field f : Field.values()) {
                if (txn.has(f)) {
                    present.add(f);
                    values.add(f + "=" + (txn.isNumber(f) ? String.valueOf(txn.number(f))
                            : txn.isBoolean(f) ? String.valueOf(txn.bool(f)) : txn.text(f)));
                } else {
                    absent.add(f);
                }
            }
            customFields.addAll(txn.customFields().keySet());
        }
        assertThat(present).as("fields some warm-up transaction carries").containsExactlyInAnyOrder(Field.values());
        for (Field f : Field.values()) {
            assertThat(values.stream().filter(v -> v.startsWith(f + "=")).count()).as("distinct values of %s", f).isGreaterThan(1);
        }
        assertThat(absent).as("optional fields also left out").contains(Field.EMAIL, Field.DEVICE_ID, Field.TRANSACTION_TYPE,
                Field.PHONE, Field.BILLING_COUNTRY, Field.SHIPPING_POSTAL_CODE, Field.BILLING_STATE);
        assertThat(customFields).contains("risk_score", "three_ds_result", "account_age_days", "first_purchase");
    }
}
