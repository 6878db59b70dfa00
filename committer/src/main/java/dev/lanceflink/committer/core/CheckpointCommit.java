package dev.lanceflink.committer.core;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.table.Fragment;
import java.util.List;

/**
 * Everything one checkpoint adds to the table, gathered from all writer subtasks: the unit the
 * committer commits as one Lance version.
 *
 * @param commitUser the sink instance (see {@link CommitMarker})
 * @param jobId the job that produced the changes, informational
 * @param checkpointId the checkpoint the changes belong to
 * @param baseVersion the latest table version when the changes were gathered (0 if none was
 *     known). A commit of these changes can only be a later version, so the search for an
 *     earlier commit of them stops here: the walk is bounded by it.
 * @param fragments new fragments (ids 0, assigned at commit)
 * @param rows rows in {@code fragments}
 * @param bytes bytes of the data files in {@code fragments}
 */
public record CheckpointCommit(String commitUser, String jobId, long checkpointId, long baseVersion,
        List<Fragment> fragments, long rows, long bytes) {
    public CheckpointCommit {
        requireNonNull(commitUser, "commitUser is null");
        requireNonNull(jobId, "jobId is null");
        fragments = List.copyOf(fragments);
        if (baseVersion < 0) {
            throw new IllegalArgumentException("baseVersion must not be negative, got " + baseVersion);
        }
    }

    /** The marker of the append step of this checkpoint. */
    public CommitMarker appendMarker() {
        return new CommitMarker(commitUser, checkpointId, 0, jobId);
    }

    public boolean isEmpty() {
        return fragments.isEmpty();
    }
}
