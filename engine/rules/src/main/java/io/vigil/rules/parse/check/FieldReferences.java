package io.vigil.rules.parse.check;

import io.vigil.rules.model.FieldRef;
import io.vigil.rules.model.Names;
import io.vigil.rules.parse.Path;
import io.vigil.rules.parse.Problems;
import io.vigil.rules.txn.Field;
import java.util.regex.Pattern;

/**
 * Field references: a name is a field of the contract (canonical name or alias) or
 * {@code custom_fields.<name>}; anything else is refused with the closest known name. The only place
 * that reads the {@code custom_fields.} prefix.
 */
public final class FieldReferences {
    public static final String CUSTOM_PREFIX = "custom_fields.";
    public static final Pattern CUSTOM_NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}");

    private final Problems problems;

    public FieldReferences(Problems problems) {
        this.problems = problems;
    }

    /** Whether {@code name} is written as a custom field reference. */
    public static boolean isCustom(String name) {
        return name.startsWith(CUSTOM_PREFIX);
    }

    /** The field {@code name} refers to, or null (with a problem at {@code path}). */
    public FieldRef resolve(String name, Path path) {
        if (isCustom(name)) {
            String custom = name.substring(CUSTOM_PREFIX.length());
            if (!CUSTOM_NAME.matcher(custom).matches()) {
                problems.add(path, "a custom field is custom_fields.<name> with a name of letters, digits, '_', '.' or '-'");
                return null;
            }
            return new FieldRef.Custom(custom);
        }
        Field f = Field.byName(name);
        if (f == null) {
            String hint = Names.closest(name, Field.names());
            problems.add(path, "unknown field \"" + name + "\"" + (hint == null
                    ? " (known: the transaction fields of the contract, their aliases, or custom_fields.<name>)"
                    : " (did you mean \"" + hint + "\"?)"));
            return null;
        }
        return new FieldRef.Known(f);
    }
}
