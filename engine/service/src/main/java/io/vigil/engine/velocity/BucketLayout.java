package io.vigil.engine.velocity;

/**
 * How a window is cut into buckets ({@code vigil.velocity.buckets-per-window}): a value shared by the
 * plans (bucket length and count per check) and so by the scripts generated from them.
 *
 * <p>A window of W ms is cut into n buckets, n the smallest count at least {@code bucketsPerWindow}
 * that divides W, so a window is always a whole number of buckets (windows are whole seconds, so with
 * the default 10 this is 10). The error bound of a window is one bucket (docs/velocity.md).
 *
 * @param bucketsPerWindow at least 10, at most 1000
 */
public record BucketLayout(int bucketsPerWindow) {

    public BucketLayout {
        if (bucketsPerWindow < 10 || bucketsPerWindow > 1000) {
            throw new IllegalArgumentException("vigil.velocity.buckets-per-window must be 10..1000, got " + bucketsPerWindow);
        }
    }

    /** Buckets in a window of {@code windowMillis}. */
    public int bucketsIn(long windowMillis) {
        for (int n = bucketsPerWindow; n <= 1023 && n < windowMillis; n++) {
            if (windowMillis % n == 0) {
                return n;
            }
        }
        return 1000; // not reached: windows are whole seconds, and 1000 divides every one
    }

    /** Bucket length (ms) of a window of {@code windowMillis}. */
    public long bucketMillis(long windowMillis) {
        return windowMillis / bucketsIn(windowMillis);
    }
}
