package dev.lanceflink.committer.flink;

import dev.lanceflink.committer.core.CheckpointCommitException;
import java.io.IOException;
import org.apache.flink.runtime.throwable.ThrowableAnnotation;
import org.apache.flink.runtime.throwable.ThrowableType;

/**
 * Fails the job without restarts: the commit failed in a way that a restart from the same state
 * would hit again ({@link CheckpointCommitException#restartCannotHelp()}), so restarting would only
 * repeat the failure forever without progress. Flink's failover treats this exception type as a
 * non-recoverable error; the message says what the user has to do.
 */
@ThrowableAnnotation(ThrowableType.NonRecoverableError)
public final class SinkStoppedException extends IOException {
    private static final long serialVersionUID = 1L;

    SinkStoppedException(CheckpointCommitException cause) {
        super(
                cause.getMessage() + " (the job is stopped, not restarted: a restart from the same state would fail"
                        + " the same way)",
                cause);
    }
}
