package io.vigil.rules;

import static io.vigil.rules.TestRulesets.eval;
import static io.vigil.rules.TestRulesets.json;
import static org.assertj.core.api.Assertions.assertThat;

import io.vigil.rules.eval.CompiledRuleset;
import io.vigil.rules.eval.Outcome;
import io.vigil.rules.txn.Field;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every operator against every value type, including the missing-field and wrong-type cases, and
 * the same leaf under {@code not} (three-valued logic, ADR 0002: a comparison with a missing value
 * is unknown, and {@code not} of unknown is still not a match).
 *
 * <p>Columns: field | operand as JSON ("value":.. or "values":..) | op | transaction value as JSON
 * (empty = field absent) | leaf matches | not(leaf) matches.
 */
class OperatorMatrixTest {

    @ParameterizedTest(name = "{0} {2} {1} on {3} -> {4}, not -> {5}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
            // ---- text field ------------------------------------------------------------------
            "merchant_id|\"value\":\"m1\"|eq|\"m1\"|true|false",
            "merchant_id|\"value\":\"m1\"|eq|\"M1\"|false|true",
            "merchant_id|\"value\":\"m1\"|eq||false|false",
            "merchant_id|\"value\":\"m1\"|eq|null|false|false",
            "merchant_id|\"value\":\"m1\"|=|\"m1\"|true|false",
            "merchant_id|\"value\":\"m1\"|==|\"m1\"|true|false",
            "merchant_id|\"value\":\"m1\"|ne|\"m2\"|true|false",
            "merchant_id|\"value\":\"m1\"|ne|\"m1\"|false|true",
            "merchant_id|\"value\":\"m1\"|ne||false|false",
            "merchant_id|\"value\":\"m1\"|!=|\"m2\"|true|false",
            "merchant_id|\"values\":[\"m1\",\"m2\"]|in|\"m2\"|true|false",
            "merchant_id|\"values\":[\"m1\",\"m2\"]|in|\"m3\"|false|true",
            "merchant_id|\"values\":[\"m1\",\"m2\"]|in||false|false",
            "merchant_id|\"values\":[\"m1\"]|not_in|\"m2\"|true|false",
            "merchant_id|\"values\":[\"m1\"]|not_in|\"m1\"|false|true",
            "merchant_id|\"values\":[\"m1\"]|not_in||false|false",
            "merchant_name|\"value\":\"GIFT\"|contains|\"BEST GIFT SHOP\"|true|false",
            "merchant_name|\"value\":\"GIFT\"|contains|\"best gift shop\"|false|true",
            "merchant_name|\"value\":\"GIFT\"|contains||false|false",
            "merchant_id|\"value\":\"TEST-\"|starts_with|\"TEST-1\"|true|false",
            "merchant_id|\"value\":\"TEST-\"|starts_with|\"X-TEST-1\"|false|true",
            "merchant_id|\"value\":\"TEST-\"|starts_with||false|false",
            "email|\"value\":\".ru\"|ends_with|\"a@b.ru\"|true|false",
            "email|\"value\":\".ru\"|ends_with|\"a@b.rue\"|false|true",
            "email|\"value\":\".ru\"|ends_with||false|false",
            "email|\"value\":\"^[a-z]+@(evil)\\\\.com$\"|regex|\"joe@evil.com\"|true|false",
            "email|\"value\":\"^[a-z]+@(evil)\\\\.com$\"|regex|\"joe@evil.co\"|false|true",
            "email|\"value\":\"evil\"|regex|\"x@evil.org\"|true|false",
            "email|\"value\":\"evil\"|regex||false|false",
            "email|\"value\":\"block\"|in_list|\"a@x.com\"|true|false",
            "email|\"value\":\"block\"|in_list|\"c@x.com\"|false|true",
            "email|\"value\":\"block\"|in_list||false|false",
            "email|\"value\":\"block\"|not_in_list|\"c@x.com\"|true|false",
            "email|\"value\":\"block\"|not_in_list|\"a@x.com\"|false|true",
            "email|\"value\":\"block\"|not_in_list||false|false",
            "email||exists|\"a@x.com\"|true|false",
            "email||exists||false|true",
            "email||exists|null|false|true",
            // aliases of fields
            "mcc|\"value\":\"5411\"|eq|\"5411\"|true|false",
            "ip|\"values\":[\"10.0.0.1\"]|in|\"10.0.0.1\"|true|false",
            "device|\"value\":\"d1\"|eq|\"d1\"|true|false",
            "network|\"value\":\"VISA\"|eq|\"VISA\"|true|false",
            "bin|\"value\":\"4147\"|starts_with|\"414720\"|true|false",
            "logo|\"value\":\"GOLD\"|eq|\"GOLD\"|true|false",
            "occurred_at|\"value\":\"T0[1-4]:\"|regex|\"2026-01-01T03:00:00Z\"|true|false",
            "billing_address.country|\"value\":\"DE\"|eq|\"DE\"|true|false",
            "shipping_address.postal_code|\"values\":[\"97230\"]|in|\"97230\"|true|false",
            // ---- number field: spelling does not matter --------------------------------------
            "amount|\"value\":100|eq|100|true|false",
            "amount|\"value\":100|eq|100.0|true|false",
            "amount|\"value\":100|eq|1e2|true|false",
            "amount|\"value\":100.00|eq|100|true|false",
            "amount|\"value\":100|eq|100.5|false|true",
            "amount|\"value\":100|eq||false|false",
            "amount|\"value\":100|eq|null|false|false",
            "amount|\"value\":0|eq|-0.0|true|false",
            "amount|\"value\":100|ne|50|true|false",
            "amount|\"value\":100|ne|100.00|false|true",
            "amount|\"value\":100|ne||false|false",
            "amount|\"value\":100|gt|100.01|true|false",
            "amount|\"value\":100|gt|100|false|true",
            "amount|\"value\":100|gt||false|false",
            "amount|\"value\":100|>|101|true|false",
            "amount|\"value\":100|gte|100.0|true|false",
            "amount|\"value\":100|gte|99.99|false|true",
            "amount|\"value\":100|gte||false|false",
            "amount|\"value\":100|>=|100|true|false",
            "amount|\"value\":100|lt|99.99|true|false",
            "amount|\"value\":100|lt|100|false|true",
            "amount|\"value\":100|lt||false|false",
            "amount|\"value\":100|<|-5|true|false",
            "amount|\"value\":100|lte|100|true|false",
            "amount|\"value\":100|lte|100.001|false|true",
            "amount|\"value\":100|lte||false|false",
            "amount|\"value\":100|<=|100|true|false",
            "amount|\"values\":[9.99,19.99,100]|in|19.99|true|false",
            "amount|\"values\":[9.99,19.99,100]|in|19.990|true|false",
            "amount|\"values\":[9.99,19.99,100]|in|100.0|true|false",
            "amount|\"values\":[9.99,19.99,100]|in|20|false|true",
            "amount|\"values\":[9.99,19.99,100]|in||false|false",
            "amount|\"values\":[9.99]|not_in|10|true|false",
            "amount|\"values\":[9.99]|not_in|9.99|false|true",
            "amount|\"values\":[9.99]|not_in||false|false",
            "amount|\"values\":[10,20]|between|10|true|false",
            "amount|\"values\":[10,20]|between|20.0|true|false",
            "amount|\"values\":[10,20]|between|15.5|true|false",
            "amount|\"values\":[10,20]|between|20.01|false|true",
            "amount|\"values\":[10,20]|between|9.99|false|true",
            "amount|\"values\":[10,20]|between||false|false",
            "amount||exists|0|true|false",
            "amount||exists||false|true",
            // ---- boolean field ----------------------------------------------------------------
            "card_present|\"value\":true|eq|true|true|false",
            "card_present|\"value\":true|eq|false|false|true",
            "card_present|\"value\":true|eq||false|false",
            "card_present|\"value\":false|eq|false|true|false",
            "card_present|\"value\":true|ne|false|true|false",
            "card_present|\"value\":true|ne|true|false|true",
            "card_present|\"value\":true|ne||false|false",
            "card_present||exists|false|true|false",
            "card_present||exists||false|true",
            // ---- custom fields: type known only at run time; another type is unknown ----------
            "custom_fields.tier|\"value\":\"gold\"|eq|\"gold\"|true|false",
            "custom_fields.tier|\"value\":\"gold\"|eq|\"silver\"|false|true",
            "custom_fields.tier|\"value\":\"gold\"|eq|3|false|false",
            "custom_fields.tier|\"value\":\"gold\"|eq||false|false",
            "custom_fields.tier|\"value\":\"gold\"|ne|\"silver\"|true|false",
            "custom_fields.tier|\"value\":\"gold\"|ne||false|false",
            "custom_fields.score|\"value\":80|eq|80.0|true|false",
            "custom_fields.score|\"value\":80|ne|81|true|false",
            "custom_fields.score|\"value\":80|gt|87|true|false",
            "custom_fields.score|\"value\":80|gt|80|false|true",
            "custom_fields.score|\"value\":80|gt|\"high\"|false|false",
            "custom_fields.score|\"value\":80|gt||false|false",
            "custom_fields.score|\"value\":80|gte|80|true|false",
            "custom_fields.score|\"value\":80|lt|79.5|true|false",
            "custom_fields.score|\"value\":80|lte|80|true|false",
            "custom_fields.score|\"values\":[1,2]|between|1.5|true|false",
            "custom_fields.score|\"values\":[1,2]|between|3|false|true",
            "custom_fields.score|\"values\":[1,2]|between|\"1.5\"|false|false",
            "custom_fields.tier|\"values\":[\"gold\",3,true]|in|\"gold\"|true|false",
            "custom_fields.tier|\"values\":[\"gold\",3,true]|in|3.0|true|false",
            "custom_fields.tier|\"values\":[\"gold\",3,true]|in|true|true|false",
            "custom_fields.tier|\"values\":[\"gold\",3,true]|in|4|false|true",
            "custom_fields.tier|\"values\":[\"gold\",3,true]|in|false|false|true",
            "custom_fields.tier|\"values\":[\"gold\"]|in|4|false|false",
            "custom_fields.tier|\"values\":[\"gold\"]|not_in|\"silver\"|true|false",
            "custom_fields.tier|\"values\":[\"gold\"]|not_in||false|false",
            "custom_fields.vip|\"value\":true|eq|true|true|false",
            "custom_fields.vip|\"value\":true|eq|false|false|true",
            "custom_fields.tier|\"value\":\"ol\"|contains|\"gold\"|true|false",
            "custom_fields.tier|\"value\":\"ol\"|contains|5|false|false",
            "custom_fields.tier|\"value\":\"go\"|starts_with|\"gold\"|true|false",
            "custom_fields.tier|\"value\":\"ld\"|ends_with|\"gold\"|true|false",
            "custom_fields.tier|\"value\":\"^g.l\"|regex|\"gold\"|true|false",
            "custom_fields.tier|\"value\":\"^g.l\"|regex|\"bold\"|false|true",
            "custom_fields.tier|\"value\":\"block\"|in_list|\"a@x.com\"|true|false",
            "custom_fields.tier|\"value\":\"block\"|not_in_list|\"zzz\"|true|false",
            "custom_fields.tier|\"value\":\"block\"|not_in_list||false|false",
            "custom_fields.tier||exists|\"gold\"|true|false",
            "custom_fields.tier||exists||false|true",
    })
    void operator(String field, String operand, String op, String txnValue, boolean matches, boolean notMatches) {
        String leaf = "{\"field\":\"" + field + "\",\"op\":\"" + op + "\"" + (operand == null ? "" : "," + operand) + "}";
        String txn = transaction(field, txnValue);
        assertThat(decides(leaf, txn)).as("leaf %s on %s", leaf, txn).isEqualTo(matches);
        assertThat(decides("{\"not\":" + leaf + "}", txn)).as("not(leaf)").isEqualTo(notMatches);
    }

    private static boolean decides(String condition, String txn) {
        CompiledRuleset rs = json("""
                {"ruleset_key":"T","ruleset_version":1,"execution_mode":"FIRST_MATCH",
                 "lists":{"block":["a@x.com","b@x.com"]},
                 "rules":[{"rule_id":"r","condition":%s,"action":{"decision":"DECLINE","reason_code":"R"}}]}
                """.formatted(condition));
        return eval(rs, txn).decision() == Outcome.DECLINE;
    }

    static String transaction(String field, String value) {
        if (value == null) {
            return "{\"transaction_id\":\"t\"}";
        }
        if (field.startsWith("custom_fields.")) {
            return "{\"transaction_id\":\"t\",\"custom_fields\":{\"" + field.substring(14) + "\":" + value + "}}";
        }
        String name = Field.byName(field).jsonName();
        int dot = name.indexOf('.');
        if (dot > 0) {
            return "{\"transaction_id\":\"t\",\"" + name.substring(0, dot) + "\":{\"" + name.substring(dot + 1) + "\":"
                    + value + "}}";
        }
        return "{\"transaction_id\":\"t\",\"" + name + "\":" + value + "}";
    }
}
