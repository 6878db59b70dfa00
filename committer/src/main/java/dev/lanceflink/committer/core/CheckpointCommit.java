package dev.lanceflink.committer.core;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.table.Fragment;
import java.util.List;

/**
 * Everything one checkpoint changes in the table, gathered from all writer subtasks: the unit the
 * committer commits, as one Lance version per kind of change (see {@link CommitStep}).
 *
 * @param commitUser the sink instance (see {@link CommitMarker})
 * @param jobId the job that produced the changes, informational
 * @param checkpointId the checkpoint the changes belong to
 * @param baseVersion the latest table version when the changes were gathered (0 if none was
 *     known). A commit of these changes can only be a later version, so the search for an
 *     earlier commit of them stops here: the walk is bounded by it.
 * @param fragments new fragments (ids 0, assigned at commit)
 * @param overlays data overlay files for existing rows, in the order they must be applied
 * @param deletions rows to delete
 * @param rows rows in {@code fragments}
 * @param cells cells the overlays carry
 * @param bytes bytes of the files written
 */
public record CheckpointCommit(String commitUser, String jobId, long checkpointId, long baseVersion,
        List<Fragment> fragments, List<TargetedOverlay> overlays, List<TargetedDeletion> deletions, long rows,
        long cells, long bytes) {
    public CheckpointCommit {
        requireNonNull(commitUser, "commitUser is null");
        requireNonNull(jobId, "jobId is null");
        fragments = List.copyOf(fragments);
        overlays = List.copyOf(overlays);
        deletions = List.copyOf(deletions);
        if (baseVersion < 0) {
            throw new IllegalArgumentException("baseVersion must not be negative, got " + baseVersion);
        }
    }

    /** An append-only checkpoint. */
    public CheckpointCommit(String commitUser, String jobId, long checkpointId, long baseVersion,
            List<Fragment> fragments, long rows, long bytes) {
        this(commitUser, jobId, checkpointId, baseVersion, fragments, List.of(), List.of(), rows, 0, bytes);
    }

    /** The marker of {@code step} of this checkpoint. */
    public CommitMarker marker(CommitStep step) {
        return new CommitMarker(commitUser, checkpointId, step.index(), jobId);
    }

    /** The marker of the append step of this checkpoint. */
    public CommitMarker appendMarker() {
        return marker(CommitStep.APPEND);
    }

    /** True if {@code step} has nothing to commit in this checkpoint. */
    public boolean isEmpty(CommitStep step) {
        return switch (step) {
            case APPEND -> fragments.isEmpty();
            case DELETE -> deletions.isEmpty();
            case OVERLAY -> overlays.isEmpty();
        };
    }

    public boolean isEmpty() {
        return fragments.isEmpty() && overlays.isEmpty() && deletions.isEmpty();
    }

    /** One line for logs and errors. */
    public String describe() {
        return "checkpoint " + checkpointId + " (" + rows + " rows in " + fragments.size() + " new fragments, "
                + overlays.size() + " overlay files with " + cells + " cells, deletions in " + deletions.size()
                + " fragments)";
    }
}
