package dev.lanceflink.committer.core;

import java.io.IOException;

/**
 * A checkpoint's changes could not be committed and will not be by retrying here. The sink fails
 * the job with this message rather than drop the changes: after a restart the restored committer
 * tries again (and skips what an earlier attempt did commit).
 *
 * <p>Some failures no restart can cure, because the restored state carries the same changes to the
 * same rows ({@link #restartCannotHelp()}): the sink's key map no longer describes the table (its
 * rows were moved or replaced), a row-level statement conflicts with another writer's change, the
 * table is gone. The Flink sink stops the job on those instead of restarting it forever.
 */
public class CheckpointCommitException extends IOException {
    private static final long serialVersionUID = 1L;

    private final boolean restartCannotHelp;

    public CheckpointCommitException(String message, Throwable cause) {
        this(message, cause, false);
    }

    public CheckpointCommitException(String message) {
        this(message, null, false);
    }

    private CheckpointCommitException(String message, Throwable cause, boolean restartCannotHelp) {
        super(message, cause);
        this.restartCannotHelp = restartCannotHelp;
    }

    /** A failure that the same changes would hit again after any restart from the same state. */
    public static CheckpointCommitException permanent(String message, Throwable cause) {
        return new CheckpointCommitException(message, cause, true);
    }

    /** {@link #permanent(String, Throwable)} without a cause. */
    public static CheckpointCommitException permanent(String message) {
        return new CheckpointCommitException(message, null, true);
    }

    /** True if restarting from the same state would fail the same way (see the class comment). */
    public boolean restartCannotHelp() {
        return restartCannotHelp;
    }
}
