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
 */
public enum CommitStep {
    /** New fragments ({@code Append}). */
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
