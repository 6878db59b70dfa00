package dev.lanceflink.committer.core;

/**
 * The ordered steps of one checkpoint's commit. Lance has no single operation that appends
 * fragments, deletes rows and attaches overlays, so a checkpoint with all three commits up to
 * three versions, always in this order, each with its own {@link CommitMarker} (the step index),
 * so that a restore resumes exactly after the last step that landed.
 *
 * <p>Why this order is safe: within one checkpoint the writers never send an overlay and a
 * deletion for the same row, nor either for a row appended in the same checkpoint (the key
 * resolver nets those out), but both may target rows appended by the previous checkpoint, whose
 * fragments are committed by then. Deletions go before overlays so that a reader between the two
 * versions never sees updated values of rows that the same checkpoint deletes.
 *
 * <p>A rewrite-rows checkpoint ({@link CheckpointCommit#rewriteRows()}) has no overlays: its
 * append step deletes the old versions of the rows and appends their new versions as one
 * row-moving {@code Update}, as Lance's own upsert does; the delete step only remains for rows of
 * the checkpoint's own new fragments ({@link CheckpointCommit#deletionsOf}).
 */
public enum CommitStep {
    /** New fragments ({@code Append}); with rewritten rows, their old versions' deletions too ({@code Update}). */
    APPEND(0),
    /** Deletion vectors ({@code Delete}). */
    DELETE(1),
    /** Data overlay files ({@code DataOverlay}). */
    OVERLAY(2);

    private final int index;

    CommitStep(int index) {
        this.index = index;
    }

    public int index() {
        return index;
    }
}
