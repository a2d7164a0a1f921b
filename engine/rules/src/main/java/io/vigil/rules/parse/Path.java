package io.vigil.rules.parse;

/**
 * Where a node is in a ruleset document: a chain of object keys and array indexes from the root,
 * printed as {@code rules[3].condition.and[1].op} ({@code $} for the root). Kept as segments, not
 * text, so that a key with a dot in it (a list named {@code a.b}) stays one segment when a path is
 * mapped back to the document the user wrote.
 */
public final class Path {
    public static final Path ROOT = new Path(null, null, -1);

    private final Path parent;
    private final String key;
    private final int index;
    private final int hash;

    private Path(Path parent, String key, int index) {
        this.parent = parent;
        this.key = key;
        this.index = index;
        this.hash = parent == null ? 0 : parent.hash * 31 + (key == null ? index : key.hashCode());
    }

    public Path key(String name) {
        return new Path(this, name, -1);
    }

    public Path index(int i) {
        return new Path(this, null, i);
    }

    public Path parent() {
        return parent;
    }

    public boolean isRoot() {
        return parent == null;
    }

    /** The last segment's object key, or null when it is an array index (or the root). */
    public String lastKey() {
        return key;
    }

    /** The last segment's array index, or -1. */
    public int lastIndex() {
        return index;
    }

    /** This path with the last segment of {@code from} appended (mapping a child from one tree to another). */
    public Path withLastOf(Path from) {
        return from.key != null ? key(from.key) : index(from.index);
    }

    public int depth() {
        return parent == null ? 0 : parent.depth() + 1;
    }

    /** Whether {@code prefix} is this path or one of its ancestors. */
    public boolean startsWith(Path prefix) {
        for (Path p = this; p != null; p = p.parent) {
            if (p.equals(prefix)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof Path p) || p.hash != hash || p.index != index) {
            return false;
        }
        if (key == null ? p.key != null : !key.equals(p.key)) {
            return false;
        }
        return parent == null ? p.parent == null : parent.equals(p.parent);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        if (parent == null) {
            return "$";
        }
        StringBuilder sb = new StringBuilder();
        append(sb);
        return sb.toString();
    }

    private void append(StringBuilder sb) {
        if (parent.parent != null) {
            parent.append(sb);
        }
        if (key != null) {
            if (parent.parent != null) {
                sb.append('.');
            }
            sb.append(key);
        } else {
            sb.append('[').append(index).append(']');
        }
    }
}
