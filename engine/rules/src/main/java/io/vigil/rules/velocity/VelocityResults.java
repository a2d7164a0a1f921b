package io.vigil.rules.velocity;

/**
 * The answer to a {@link VelocityRequest}: one aggregate value per check, same order; or
 * "unavailable" with the reason, which the engine reports as DEGRADED / VELOCITY_UNAVAILABLE.
 * Never a silent zero.
 */
public final class VelocityResults {
    private static final double[] EMPTY = new double[0];

    private final double[] values;
    private final String unavailableReason;

    private VelocityResults(double[] values, String unavailableReason) {
        this.values = values;
        this.unavailableReason = unavailableReason;
    }

    public static VelocityResults of(double[] values) {
        return new VelocityResults(values, null);
    }

    /** The store could not answer (no store configured, timeout, error, circuit open). */
    public static VelocityResults unavailable(String reason) {
        return new VelocityResults(EMPTY, reason);
    }

    public boolean available() {
        return unavailableReason == null;
    }

    public String unavailableReason() {
        return unavailableReason;
    }

    public double value(int checkIndex) {
        return values[checkIndex];
    }

    public int size() {
        return values.length;
    }
}
