package io.vigil.rules.txn;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The sample traffic generators (loadtests/k6/traffic.js, the wrk pool built from it, and the Go
 * generator that rewrites the pool's timestamps) only produce requests the reader accepts.
 */
class TrafficGeneratorFormsTest {
    static final Path LOADTESTS = Path.of("../../loadtests").toAbsolutePath().normalize();
    private final TransactionReader reader = new TransactionReader();

    @Test
    void everyCountryCurrencyAndMccOfTheTrafficTablesIsWellFormed() throws IOException {
        String js = Files.readString(LOADTESTS.resolve("k6/traffic.js"));
        assertThat(literals(js, "cc")).isNotEmpty().allSatisfy(c -> assertThat(FieldForms.isCountry(c)).as(c).isTrue());
        assertThat(literals(js, "cur")).isNotEmpty().allSatisfy(c -> assertThat(FieldForms.isCurrency(c)).as(c).isTrue());
        assertThat(literals(js, "mcc")).isNotEmpty().allSatisfy(c -> assertThat(FieldForms.isMcc(c)).as(c).isTrue());
    }

    private static List<String> literals(String js, String key) {
        Matcher m = Pattern.compile("\\b" + key + ": '([^']*)'").matcher(js);
        return m.results().map(r -> r.group(1)).toList();
    }

    @ParameterizedTest
    @ValueSource(strings = {"auth", "monitoring"})
    void everyPoolBodyIsAccepted(String kind, @TempDir Path dir) throws Exception {
        Path out = dir.resolve("pool.txt");
        Process node = new ProcessBuilder("node", LOADTESTS.resolve("wrk/pool.js").toString(), "3000", out.toString(), kind)
                .redirectErrorStream(true).start();
        String log = new String(node.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(node.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(node.exitValue()).as(log).isZero();
        List<String> lines = Files.readAllLines(out);
        assertThat(lines).hasSize(3000);
        int i = 0;
        for (String line : lines) {
            String body = line.replace("@ID@", "pool-" + i++);
            assertThat(accepts(body)).as(body).isNull();
            // loadtests/gen rewrites the timestamp with its tsLayout (pool.go): "2006-01-02T15:04:05.000Z"
            String go = body.replaceFirst("\"timestamp\":\"[^\"]*\"", "\"timestamp\":\"2026-11-24T21:05:07.123Z\"");
            assertThat(accepts(go)).as(go).isNull();
        }
    }

    private String accepts(String body) {
        try {
            reader.read(body.getBytes(StandardCharsets.UTF_8));
            return null;
        } catch (InvalidTransactionException e) {
            return e.getMessage();
        }
    }
}
