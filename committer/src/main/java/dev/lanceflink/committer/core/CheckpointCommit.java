package dev.lanceflink.committer.core;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.table.Fragment;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Everything one checkpoint changes in the table, gathered from all writer subtasks: the unit the
 * committer commits, as one Lance version (see {@link CheckpointOperation}).
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
 * @param overwrite the new fragments replace the table's whole content ({@code INSERT OVERWRITE}):
 *     the append step commits an {@code Overwrite} instead of an {@code Append}, even with no
 *     fragments at all (that empties the table). Such a checkpoint carries no overlays or deletions:
 *     they would target rows the overwrite removes.
 * @param rewriteRows the deletions are the old versions of rows whose new versions are among
 *     {@code fragments} (the sink's {@code rewrite-rows} update mode): the append step commits
 *     both as one row-moving Lance {@code Update}, so that no version shows a row twice or not at
 *     all, and a row-level statement whose deletions conflict commits nothing. Such a checkpoint
 *     carries no overlays. See {@link #deletionsOf}.
 */
public record CheckpointCommit(
        String commitUser,
        String jobId,
        long checkpointId,
        long baseVersion,
        List<Fragment> fragments,
        List<TargetedOverlay> overlays,
        List<TargetedDeletion> deletions,
        long rows,
        long cells,
        long bytes,
        boolean overwrite,
        boolean rewriteRows) {
    public CheckpointCommit {
        requireNonNull(commitUser, "commitUser is null");
        requireNonNull(jobId, "jobId is null");
        fragments = List.copyOf(fragments);
        overlays = List.copyOf(overlays);
        deletions = List.copyOf(deletions);
        if (baseVersion < 0) {
            throw new IllegalArgumentException("baseVersion must not be negative, got " + baseVersion);
        }
        if (overwrite && (!overlays.isEmpty() || !deletions.isEmpty())) {
            throw new IllegalArgumentException("An overwrite of checkpoint " + checkpointId + " carries "
                    + overlays.size() + " overlay files and deletions in " + deletions.size() + " fragments; an"
                    + " overwrite replaces every row, so only the append mode can overwrite");
        }
        if (rewriteRows && (overwrite || !overlays.isEmpty())) {
            throw new IllegalArgumentException("Checkpoint " + checkpointId + " rewrites rows but carries "
                    + overlays.size() + " overlay files" + (overwrite ? " and overwrites the table" : "") + "; a"
                    + " rewrite-rows checkpoint has only new fragments and deletions");
        }
    }

    /** Changes that add to the table's content, or replace it ({@code overwrite}); updates as overlays. */
    public CheckpointCommit(
            String commitUser,
            String jobId,
            long checkpointId,
            long baseVersion,
            List<Fragment> fragments,
            List<TargetedOverlay> overlays,
            List<TargetedDeletion> deletions,
            long rows,
            long cells,
            long bytes,
            boolean overwrite) {
        this(
                commitUser,
                jobId,
                checkpointId,
                baseVersion,
                fragments,
                overlays,
                deletions,
                rows,
                cells,
                bytes,
                overwrite,
                false);
    }

    /** Changes that add to the table's content (no overwrite). */
    public CheckpointCommit(
            String commitUser,
            String jobId,
            long checkpointId,
            long baseVersion,
            List<Fragment> fragments,
            List<TargetedOverlay> overlays,
            List<TargetedDeletion> deletions,
            long rows,
            long cells,
            long bytes) {
        this(commitUser, jobId, checkpointId, baseVersion, fragments, overlays, deletions, rows, cells, bytes, false);
    }

    /** An append-only checkpoint. */
    public CheckpointCommit(
            String commitUser,
            String jobId,
            long checkpointId,
            long baseVersion,
            List<Fragment> fragments,
            long rows,
            long bytes) {
        this(commitUser, jobId, checkpointId, baseVersion, fragments, List.of(), List.of(), rows, 0, bytes, false);
    }

    /** A checkpoint whose {@code fragments} (possibly none) replace the table's content. */
    public static CheckpointCommit overwriting(
            String commitUser,
            String jobId,
            long checkpointId,
            long baseVersion,
            List<Fragment> fragments,
            long rows,
            long bytes) {
        return new CheckpointCommit(
                commitUser, jobId, checkpointId, baseVersion, fragments, List.of(), List.of(), rows, 0, bytes, true);
    }

    /** A rewrite-rows checkpoint: {@code deletions} are the old versions of rows rewritten into {@code fragments}. */
    public static CheckpointCommit rewritingRows(
            String commitUser,
            String jobId,
            long checkpointId,
            long baseVersion,
            List<Fragment> fragments,
            List<TargetedDeletion> deletions,
            long rows,
            long bytes) {
        return new CheckpointCommit(
                commitUser,
                jobId,
                checkpointId,
                baseVersion,
                fragments,
                List.of(),
                deletions,
                rows,
                0,
                bytes,
                false,
                true);
    }

    /**
     * The deletions {@code step} commits. Normally all of them in the delete step. In a
     * rewrite-rows checkpoint the append step commits them with the new fragments, except those of
     * rows in the checkpoint's own new fragments (possible when the aggregator merged a late
     * checkpoint's results into this one): those fragments get their ids only when the append
     * step lands, so the delete step deletes those rows in a version of its own.
     */
    public List<TargetedDeletion> deletionsOf(CommitStep step) {
        if (step == CommitStep.OVERLAY || (!rewriteRows && step == CommitStep.APPEND)) {
            return List.of();
        }
        if (!rewriteRows) {
            return deletions;
        }
        Set<Long> ownFiles = new HashSet<>();
        for (Fragment f : fragments) {
            if (!f.files().isEmpty()) {
                ownFiles.add(PendingFiles.fileIdOf(f.files().get(0).path()));
            }
        }
        boolean inOwnFiles = step == CommitStep.DELETE;
        return deletions.stream()
                .filter(d ->
                        (d.target().isPending() && ownFiles.contains(d.target().pendingFileId())) == inOwnFiles)
                .toList();
    }

    /** The marker of {@code step} of this checkpoint. */
    public CommitMarker marker(CommitStep step) {
        return new CommitMarker(commitUser, checkpointId, step.index(), jobId);
    }

    /** The marker of the commit of this whole checkpoint as one version. */
    public CommitMarker marker() {
        return new CommitMarker(commitUser, checkpointId, CommitMarker.ALL_STEPS, jobId);
    }

    /**
     * True if {@code step} has nothing to commit in this checkpoint. The append step of an
     * overwrite is never empty: replacing the content with nothing is a change. The append step of
     * a rewrite-rows checkpoint also commits its deletions ({@link #deletionsOf}).
     */
    public boolean isEmpty(CommitStep step) {
        return switch (step) {
            case APPEND ->
                fragments.isEmpty() && !overwrite && deletionsOf(step).isEmpty();
            case DELETE -> deletionsOf(step).isEmpty();
            case OVERLAY -> overlays.isEmpty();
        };
    }

    /** True if no step has anything to commit (never for an overwrite). */
    public boolean isEmpty() {
        return fragments.isEmpty() && overlays.isEmpty() && deletions.isEmpty() && !overwrite;
    }

    /** One line for logs and errors. */
    public String describe() {
        if (overwrite) {
            return "checkpoint " + checkpointId + " (overwrite of the table's content with " + rows + " rows in "
                    + fragments.size() + " new fragments)";
        }
        if (rewriteRows) {
            return "checkpoint " + checkpointId + " (rewrite rows: " + rows + " rows in " + fragments.size()
                    + " new fragments, deletions in " + deletions.size() + " fragments)";
        }
        return "checkpoint " + checkpointId + " (" + rows + " rows in " + fragments.size() + " new fragments, "
                + overlays.size() + " overlay files with " + cells + " cells, deletions in " + deletions.size()
                + " fragments)";
    }
}
