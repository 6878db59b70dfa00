package dev.lanceflink.committer.core;

import static java.util.Objects.requireNonNull;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The idempotency marker a sink commit stores in {@code Transaction.transaction_properties}: which
 * sink instance (commit user) committed which checkpoint, and which step of that checkpoint. A
 * restored committer reads these markers back to decide what was already committed.
 *
 * <p>The commit user is a random id created once per sink instance and kept in Flink operator
 * state, so it survives restores, also into a new job id; the job id is recorded for humans only.
 *
 * @param commitUser id of the sink instance (kept in operator state)
 * @param checkpointId the Flink checkpoint whose changes the commit carries
 * @param step {@link #ALL_STEPS} for a commit of the whole checkpoint (every change not committed
 *     by an earlier marker of the same checkpoint); 0–2 for one {@link CommitStep} of it, as earlier
 *     versions of the sink committed them, one version each
 * @param jobId the job that committed, informational
 */
public record CommitMarker(String commitUser, long checkpointId, int step, String jobId) {
    /**
     * The step of a commit that holds all of a checkpoint's changes (or all that an earlier,
     * step-by-step commit of it had not committed yet). Larger than every {@link CommitStep}
     * index, so that "this user's newest marker" comparisons order it after them.
     */
    public static final int ALL_STEPS = 3;
    /** Property key of {@link #commitUser}. */
    public static final String COMMIT_USER_KEY = "flink.commit-user";
    /** Property key of {@link #checkpointId}. */
    public static final String CHECKPOINT_ID_KEY = "flink.checkpoint-id";
    /** Property key of {@link #step}. */
    public static final String STEP_KEY = "flink.commit-step";
    /** Property key of {@link #jobId}. */
    public static final String JOB_ID_KEY = "flink.job-id";

    public CommitMarker {
        requireNonNull(commitUser, "commitUser is null");
        requireNonNull(jobId, "jobId is null");
        if (commitUser.isEmpty()) {
            throw new IllegalArgumentException("commitUser is empty");
        }
        if (step < 0) {
            throw new IllegalArgumentException("step must not be negative, got " + step);
        }
    }

    /** The marker as transaction properties. */
    public Map<String, String> toProperties() {
        Map<String, String> p = new LinkedHashMap<>();
        p.put(COMMIT_USER_KEY, commitUser);
        p.put(CHECKPOINT_ID_KEY, Long.toString(checkpointId));
        p.put(STEP_KEY, Integer.toString(step));
        p.put(JOB_ID_KEY, jobId);
        return p;
    }

    /**
     * The marker in a committed transaction's properties, or empty if the commit was not made by
     * a Flink sink. A marker with unparsable numbers is reported, not skipped: skipping it could
     * make a restored committer commit the same checkpoint twice.
     *
     * @param where the version and table, for the error message
     */
    public static Optional<CommitMarker> fromProperties(Map<String, String> properties, String where) {
        String user = properties.get(COMMIT_USER_KEY);
        if (user == null) {
            return Optional.empty();
        }
        String checkpoint = properties.get(CHECKPOINT_ID_KEY);
        String step = properties.getOrDefault(STEP_KEY, "0");
        try {
            return Optional.of(new CommitMarker(
                    user,
                    Long.parseLong(requireNonNull(checkpoint, CHECKPOINT_ID_KEY)),
                    Integer.parseInt(step),
                    properties.getOrDefault(JOB_ID_KEY, "")));
        } catch (RuntimeException e) {
            throw new IllegalStateException(
                    "The transaction of " + where + " has a malformed Flink commit marker ("
                            + COMMIT_USER_KEY + "=" + user + ", " + CHECKPOINT_ID_KEY + "=" + checkpoint + ", "
                            + STEP_KEY
                            + "=" + step + "); exactly-once recovery cannot read it. Was the property written by hand?",
                    e);
        }
    }

    /** True if this marker records the same commit (user, checkpoint, step) as {@code other}. */
    public boolean sameCommitAs(CommitMarker other) {
        return commitUser.equals(other.commitUser) && checkpointId == other.checkpointId && step == other.step;
    }
}
