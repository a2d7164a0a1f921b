package io.vigil.engine.management;

import io.vigil.engine.ruleset.RulesetProblem;
import java.util.List;

/** A management request that cannot be served, with the status and error body it gets. */
final class ManagementError extends RuntimeException {
    final int status;
    final String code;
    final String field;
    final List<RulesetProblem> problems;

    ManagementError(int status, String code, String message, String field, List<RulesetProblem> problems) {
        super(message, null, false, false);
        this.status = status;
        this.code = code;
        this.field = field;
        this.problems = problems;
    }

    static ManagementError invalid(String field, String message) {
        return new ManagementError(400, "INVALID_REQUEST", field == null ? message : field + ": " + message, field, List.of());
    }
}
