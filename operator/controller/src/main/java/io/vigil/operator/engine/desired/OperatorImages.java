package io.vigil.operator.engine.desired;

import io.vigil.operator.api.v1alpha1.FraudEngine;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The engine and relay images a FraudEngine runs when its spec names none: those of the operator's own
 * release, so upgrading the operator moves the engines with it (as Strimzi's operator does with its
 * STRIMZI_DEFAULT_*_IMAGE settings). The operator chart sets them from its values (a registry of the
 * user's); without them they are the images {@code make images} builds into the local store
 * ({@code localhost/vigil/<name>:<release>}), which a node that imported them runs with IfNotPresent.
 */
public final class OperatorImages {

    public static final String ENGINE_ENV = "VIGIL_OPERATOR_ENGINE_IMAGE";
    public static final String RELAY_ENV = "VIGIL_OPERATOR_RELAY_IMAGE";
    private static final String RELEASE = release();

    private OperatorImages() {
    }

    public static String engine(FraudEngine fe) {
        String image = fe.getSpec().engine.image;
        return image != null && !image.isBlank() ? image : configured(ENGINE_ENV, "engine");
    }

    public static String relay(FraudEngine fe) {
        String image = fe.getSpec().durability.relay.image;
        return image != null && !image.isBlank() ? image : configured(RELAY_ENV, "relay");
    }

    /** The operator's release: the project version without a -SNAPSHOT suffix (the tag make images uses). */
    public static String release() {
        if (RELEASE != null) {
            return RELEASE;
        }
        try (InputStream in = OperatorImages.class.getResourceAsStream("/io/vigil/operator/release.properties")) {
            if (in == null) {
                throw new IllegalStateException("io/vigil/operator/release.properties is missing from the operator's classpath");
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version").replaceFirst("-SNAPSHOT$", "");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Env var, or the system property of the same name (tests), or the local image of this release. */
    private static String configured(String env, String name) {
        String value = System.getProperty(env, System.getenv(env));
        return value != null && !value.isBlank() ? value.trim() : "localhost/vigil/" + name + ":" + release();
    }
}
