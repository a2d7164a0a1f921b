package io.vigil.bench;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * A deterministic mix of card transactions shaped like real traffic: mostly small card-present
 * purchases at everyday merchants, a share of e-commerce with email/device/IP/3-D Secure data, a
 * tail of high amounts, risky merchant categories, foreign cards, blocklisted cards and Tor IPs.
 */
public final class TransactionMix {
    private static final String[] NETWORKS = {"VISA", "VISA", "VISA", "VISA", "VISA", "MASTERCARD", "MASTERCARD",
        "MASTERCARD", "AMEX", "DISCOVER"};
    private static final String[] COUNTRIES = {"US", "US", "US", "US", "US", "GB", "DE", "DE", "FR", "CA", "BR", "NL",
        "ES", "IT", "AU", "NG", "MX", "JP", "IN", "AT"};
    private static final String[] MCCS = {"5411", "5411", "5411", "5812", "5812", "5814", "5814", "5999", "5999", "5732",
        "4111", "4111", "5541", "5541", "5311", "5651", "5912", "7011", "4511", "5734", "4900", "5942"};
    /** Risky categories (2% of traffic): telemarketing, gambling, crypto, money transfer. */
    private static final String[] RISKY_MCCS = {"5967", "7995", "6051", "4829", "6211"};
    private static final String[] LOGOS = {"CLASSIC", "CLASSIC", "STANDARD", "GOLD", "PLATINUM", "PREPAID", "WORLD_ELITE"};
    private static final String[] CURRENCIES = {"USD", "USD", "USD", "EUR", "EUR", "GBP", "BRL", "CAD", "MXN", "JPY"};
    private static final String[] EMAIL_DOMAINS = {"gmail.com", "gmail.com", "outlook.com", "yahoo.com", "example.de",
        "icloud.com", "web.de", "hotmail.co.uk"};

    private TransactionMix() {
    }

    /**
     * @param count       number of transactions
     * @param velocityIds include the velocity dimensions (card_hash, device_id, ip_address, email); without them no
     *                    velocity rule of the sample applies, which isolates rule evaluation
     */
    public static byte[][] generate(int count, long seed, boolean velocityIds) {
        SplittableRandom r = new SplittableRandom(seed);
        byte[][] out = new byte[count][];
        for (int i = 0; i < count; i++) {
            out[i] = one(r, i, velocityIds).getBytes(StandardCharsets.UTF_8);
        }
        return out;
    }

    private static String one(SplittableRandom r, int i, boolean velocityIds) {
        StringBuilder sb = new StringBuilder(640);
        String network = pick(r, NETWORKS);
        boolean present = r.nextInt(100) < 60;
        String country = pick(r, COUNTRIES);
        double amount = amount(r);
        sb.append("{\"transaction_id\":\"txn-").append(Integer.toHexString(i)).append('-').append(r.nextInt(1 << 20)).append('"');
        if (velocityIds) {
            int card = r.nextInt(300) == 0 ? -1 : r.nextInt(5000);
            sb.append(",\"card_hash\":\"").append(card < 0 ? "c-stolen-0002" : "c-" + card).append('"');
        }
        sb.append(",\"amount\":").append(String.format(Locale.ROOT, "%.2f", amount));
        sb.append(",\"currency\":\"").append(pick(r, CURRENCIES)).append('"');
        sb.append(",\"merchant_id\":\"m-").append(r.nextInt(800)).append('"');
        sb.append(",\"merchant_name\":\"").append(r.nextInt(50) == 0 ? "MEGA GIFT CARD OUTLET" : "Merchant " + r.nextInt(800)).append('"');
        sb.append(",\"merchant_category_code\":\"").append(r.nextInt(100) < 2 ? pick(r, RISKY_MCCS) : pick(r, MCCS)).append('"');
        sb.append(",\"card_present\":").append(present);
        sb.append(",\"transaction_type\":\"").append(r.nextInt(40) == 0 ? "REFUND" : r.nextInt(60) == 0 ? "CASH_ADVANCE" : "PURCHASE").append('"');
        sb.append(",\"entry_mode\":\"").append(present ? (r.nextBoolean() ? "CHIP" : r.nextInt(30) == 0 ? "FALLBACK" : "CONTACTLESS") : "ECOM").append('"');
        sb.append(",\"country_code\":\"").append(country).append('"');
        sb.append(",\"timestamp\":\"2026-01-28T").append(String.format(Locale.ROOT, "%02d:%02d:%02dZ", r.nextInt(24), r.nextInt(60), r.nextInt(60))).append('"');
        sb.append(",\"card_network\":\"").append(network).append('"');
        sb.append(",\"card_bin\":\"").append(bin(r, network)).append('"');
        sb.append(",\"card_logo\":\"").append(pick(r, LOGOS)).append('"');
        if (!present) {
            if (velocityIds) {
                if (r.nextInt(100) < 95) {
                    sb.append(",\"email\":\"user").append(r.nextInt(4000)).append('@').append(r.nextInt(100) == 0 ? "mailinator.com" : pick(r, EMAIL_DOMAINS)).append('"');
                }
                if (r.nextInt(100) < 90) {
                    sb.append(",\"device_id\":\"dev-").append(r.nextInt(3000)).append('"');
                }
                sb.append(",\"ip_address\":\"").append(r.nextInt(200) == 0 ? "185.220.101.1"
                        : "81." + r.nextInt(256) + "." + r.nextInt(256) + "." + r.nextInt(256)).append('"');
            }
            sb.append(",\"phone\":\"+").append(r.nextInt(30) == 0 ? "234" : "1").append(r.nextInt(1_000_000_000)).append('"');
            sb.append(",\"billing_address\":{\"city\":\"City\",\"country\":\"").append(country)
                    .append("\",\"postal_code\":\"").append(10000 + r.nextInt(89999)).append("\"}");
            sb.append(",\"shipping_address\":{\"country\":\"").append(r.nextInt(20) == 0 ? pick(r, COUNTRIES) : country)
                    .append("\",\"postal_code\":\"").append(r.nextInt(100) == 0 ? "97230" : String.valueOf(10000 + r.nextInt(89999))).append("\"}");
            sb.append(",\"custom_fields\":{\"risk_score\":").append(riskScore(r))
                    .append(",\"three_ds_result\":\"").append(threeDs(r))
                    .append("\",\"account_age_days\":").append(r.nextInt(3000))
                    .append(",\"first_purchase\":").append(r.nextInt(10) == 0).append('}');
        }
        return sb.append('}').toString();
    }

    private static double amount(SplittableRandom r) {
        int bucket = r.nextInt(1000);
        if (bucket < 700) {
            return 1 + r.nextDouble() * 80;
        }
        if (bucket < 950) {
            return 80 + r.nextDouble() * 400;
        }
        if (bucket < 995) {
            return 500 + r.nextDouble() * 4500;
        }
        return 5000 + r.nextDouble() * 30000;
    }

    private static String threeDs(SplittableRandom r) {
        int s = r.nextInt(100);
        return s < 85 ? "AUTHENTICATED" : s < 95 ? "NOT_ATTEMPTED" : s < 99 ? "UNAVAILABLE" : "FAILED";
    }

    private static int riskScore(SplittableRandom r) {
        int s = r.nextInt(100);
        return s < 95 ? r.nextInt(40) : 40 + r.nextInt(61);
    }

    private static String bin(SplittableRandom r, String network) {
        return switch (network) {
            case "VISA" -> "4" + digits(r, 5);
            case "MASTERCARD" -> "5" + (1 + r.nextInt(5)) + digits(r, 4);
            case "AMEX" -> (r.nextBoolean() ? "34" : "37") + digits(r, 4);
            default -> "6011" + digits(r, 2);
        };
    }

    private static String digits(SplittableRandom r, int n) {
        StringBuilder sb = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            sb.append((char) ('0' + r.nextInt(10)));
        }
        return sb.toString();
    }

    private static String pick(SplittableRandom r, String[] values) {
        return values[r.nextInt(values.length)];
    }
}
