package io.vigil.rules.parse;

import io.vigil.rules.eval.CompiledRuleset;
import java.util.List;

/**
 * A ruleset that loaded and compiled, or every reason it did not. Never half of each: when
 * {@link #errors()} is not empty, {@link #ruleset()} is null.
 */
public record ParseResult(CompiledRuleset ruleset, List<ValidationError> errors) {

    public boolean valid() {
        return errors.isEmpty();
    }
}
