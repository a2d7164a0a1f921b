package io.vigil.engine.testing;

import io.restassured.RestAssured;
import io.restassured.specification.RequestSpecification;
import org.eclipse.microprofile.config.ConfigProvider;

/** RestAssured against the management interface, wherever the test run put it (a free port). */
public final class Management {
    private Management() {
    }

    public static String url() {
        String url = System.getProperty("test.management.url");
        if (url == null) {
            url = ConfigProvider.getConfig().getOptionalValue("test.management.url", String.class).orElse(null);
        }
        if (url == null) {
            throw new IllegalStateException("the management interface URL of this test run is unknown");
        }
        return url.endsWith("/q") ? url.substring(0, url.length() - 2) : url;
    }

    public static RequestSpecification given() {
        return RestAssured.given().baseUri(url());
    }
}
