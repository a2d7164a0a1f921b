package io.vigil.rules.velocity;

import java.util.List;

/**
 * All velocity checks of one transaction: a store answers them in one round trip.
 *
 * @param transactionId idempotency key: a retried transaction does not count twice
 * @param checks        in the order the results must come back
 * @param readOnly      true for simulate/replay: read the windows, change nothing
 */
public record VelocityRequest(String transactionId, List<VelocityCheck> checks, boolean readOnly) {
}
