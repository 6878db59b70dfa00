package dev.lanceflink.committer.flink;

import dev.lanceflink.committer.core.CheckpointCommitException;
import java.io.IOException;
import org.apache.flink.runtime.throwable.ThrowableAnnotation;
import org.apache.flink.runtime.throwable.ThrowableType;

/**
 * Fails the job without restarts: the sink failed in a way that a restart from the same state
 * would hit again, so restarting would only repeat the failure forever without progress. Flink's
 * failover treats this exception type (anywhere in a failure's cause chain) as a non-recoverable
 * error; the message, its cause's, says what the user has to do.
 *
 * <p>Thrown for a commit that {@link CheckpointCommitException#restartCannotHelp()} (the
 * committer), a restore from state older than the sink's last commit (the commit aggregator), and
 * by the upsert sink's key resolver for restored state it cannot use: state of the other key-map
 * mode, a key map that does not fit a compaction it learned. The engine-neutral code that finds
 * these ({@code dev.lanceflink.committer.core}, no Flink imports) throws its own exception types;
 * the Flink operators wrap them in this one.
 */
@ThrowableAnnotation(ThrowableType.NonRecoverableError)
public final class SinkStoppedException extends IOException {
    private static final long serialVersionUID = 1L;

    private static final String STOPPED =
            " (the job is stopped, not restarted: a restart from the same state would fail the same way)";

    /** Stops the job on {@code cause}, whose message says what failed and what to do. */
    public SinkStoppedException(Exception cause) {
        super(cause.getMessage() + STOPPED, cause);
    }

    /** Stops the job; {@code message} says what failed, on which table and state, and what to do. */
    public SinkStoppedException(String message) {
        super(message + STOPPED);
    }
}
