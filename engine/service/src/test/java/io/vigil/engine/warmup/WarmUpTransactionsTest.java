package io.vigil.engine.warmup;

import static org.assertj.core.api.Assertions.assertThat;

import io.vigil.rules.txn.Field;
import io.vigil.rules.txn.Transaction;
import io.vigil.rules.txn.TransactionReader;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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

    /**
     * Amounts in every form a JSON serialiser writes (two decimals, one, six, an exponent, an integer) and
     * custom fields with only some keys: each a branch of the reader, Jackson or a rule that the start
     * bench's real transactions took after ready when the warm-up had not. All read by the reader.
     */
    @Test
    void amountsAndCustomFieldsComeInTheFormsCallersSend() throws Exception {
        TransactionReader reader = new TransactionReader();
        Pattern amount = Pattern.compile("\"amount\":([^,]+),");
        Set<String> forms = new HashSet<>();
        Set<Set<String>> customKeySets = new HashSet<>();
        for (int n = 0; n < DECISIONS; n++) {
            byte[] body = WarmUp.body(n, false);
            Transaction txn = reader.read(body);
            Matcher m = amount.matcher(new String(body, java.nio.charset.StandardCharsets.UTF_8));
            assertThat(m.find()).isTrue();
            String text = m.group(1);
            assertThat(txn.number(Field.AMOUNT)).as(text).isEqualTo(Double.parseDouble(text));
            int dot = text.indexOf('.');
            forms.add(text.contains("E") ? "exponent" : dot < 0 ? "integer" : "decimals " + (text.length() - dot - 1));
            if (!txn.customFields().isEmpty()) {
                customKeySets.add(txn.customFields().keySet());
            }
        }
        assertThat(forms).contains("exponent", "integer", "decimals 1", "decimals 2", "decimals 6");
        assertThat(customKeySets).contains(Set.of("three_ds_result", "risk_score"));
        assertThat(customKeySets).anyMatch(keys -> keys.contains("account_age_days"));
    }

    /**
     * Times in every form the reader's RFC 3339 check branches on, each read (so accepted) by the reader:
     * a warm-up only in January left the 30-day months' branch to November's first real transaction
     * (FieldForms.isRfc3339 deoptimised after ready on the start bench).
     */
    @Test
    void timestampsCoverEveryMonthLengthFractionAndZone() throws Exception {
        TransactionReader reader = new TransactionReader();
        Set<String> months = new HashSet<>();
        Set<String> lastDays = new HashSet<>();
        Set<String> fractions = new HashSet<>();
        Set<String> zones = new HashSet<>();
        for (int n = 0; n < DECISIONS; n++) {
            Transaction txn = reader.read(WarmUp.body(n, n % 5 == 4));
            String t = txn.text(Field.TIMESTAMP);
            assertThat(t).isEqualTo(WarmUp.timestamp(n));
            months.add(t.substring(5, 7));
            lastDays.add(t.substring(8, 10));
            int dot = t.indexOf('.');
            int zone = t.endsWith("Z") ? t.length() - 1 : t.length() - 6;
            fractions.add(dot < 0 ? "none" : String.valueOf(zone - dot - 1));
            zones.add(t.substring(zone));
        }
        assertThat(months).hasSize(12);
        assertThat(lastDays).as("28-, 29-, 30- and 31-day months' last days").contains("28", "29", "30", "31");
        assertThat(fractions).containsExactlyInAnyOrder("none", "3", "6");
        assertThat(zones).containsExactlyInAnyOrder("Z", "+02:00", "-05:00");
    }
}
