package io.vigil.engine.velocity;

/** The velocity script answered something that is not one number per check. */
public class VelocityReplyException extends RuntimeException {
    public VelocityReplyException(String message, Throwable cause) {
        super(message, cause, false, false);
    }
}
