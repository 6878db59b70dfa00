package dev.lanceflink.compactor.core;

import java.util.List;

/**
 * What one {@link CompactionCommitter#commit} call did.
 *
 * @param committed results now part of the table
 * @param committedVersions the versions created, in order (one per commit group)
 * @param staleFragmentIds fragments that changed since their task's version; their staged files
 *     were deleted and they must be planned again on the latest version
 * @param carriedDeletions rows other writers deleted in rewritten fragments after the tasks read
 *     them, which the committed rewrites deleted in their new fragments
 * @param carriedOverlays overlays other writers committed on rewritten fragments after the tasks
 *     read them, which the committed rewrites relocated to their new fragments
 */
public record CommitReport(
        List<TaskResult> committed,
        List<Long> committedVersions,
        List<Long> staleFragmentIds,
        long carriedDeletions,
        long carriedOverlays) {
    public CommitReport(List<TaskResult> committed, List<Long> committedVersions, List<Long> staleFragmentIds) {
        this(committed, committedVersions, staleFragmentIds, 0, 0);
    }

    public CommitReport {
        committed = List.copyOf(committed);
        committedVersions = List.copyOf(committedVersions);
        staleFragmentIds = List.copyOf(staleFragmentIds);
    }
}
