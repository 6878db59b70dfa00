package dev.lanceflink.committer.core;

/**
 * The kinds of change one checkpoint carries. Since issue #15 a checkpoint commits all of them as
 * one Lance version (see {@link CheckpointOperation}), marked {@link CommitMarker#ALL_STEPS}.
 * Earlier versions of the sink committed them as up to three versions, in this order, each marked
 * with its step index; a job restored from such a sink's state resumes after the last step that
 * landed and commits the remaining ones together.
 *
 * <p>Within one checkpoint the writers never send an overlay and a deletion for the same row, nor
 * either for a row appended in the same checkpoint (the key resolver nets those out), except when
 * the aggregator merged a late checkpoint's results into this one; both may target rows appended
 * by an earlier checkpoint, whose fragments are committed by then.
 *
 * <p>A rewrite-rows checkpoint ({@link CheckpointCommit#rewriteRows()}) has no overlays: it
 * deletes the old versions of the rows and appends their new versions as one row-moving
 * {@code Update}, as Lance's own upsert does. In the old layout its append step carried those
 * deletions, and the delete step only those of rows in the checkpoint's own new fragments
 * ({@link CheckpointCommit#deletionsOf}).
 */
public enum CommitStep {
    /** New fragments; with rewritten rows, their old versions' deletions too. */
    APPEND(0),
    /** Deletion vectors. */
    DELETE(1),
    /** Data overlay files. */
    OVERLAY(2);

    private final int index;

    CommitStep(int index) {
        this.index = index;
    }

    public int index() {
        return index;
    }
}
