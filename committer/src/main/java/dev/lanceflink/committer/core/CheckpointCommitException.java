package dev.lanceflink.committer.core;

import java.io.IOException;

/**
 * A checkpoint's changes could not be committed and will not be by retrying here. The sink fails
 * the job with this message rather than drop the changes: after a restart the restored committer
 * tries again (and skips what an earlier attempt did commit).
 */
public class CheckpointCommitException extends IOException {
    private static final long serialVersionUID = 1L;

    public CheckpointCommitException(String message, Throwable cause) {
        super(message, cause);
    }

    public CheckpointCommitException(String message) {
        super(message);
    }
}
