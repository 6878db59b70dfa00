/**
 * Deletion vectors: the deleted physical row offsets of a fragment and their two file encodings
 * (Arrow IPC {@code .arrow}, portable Roaring {@code .bin}), chosen the way Lance chooses them.
 * {@link dev.lanceflink.deletion.DeletionStager} merges new deletions into fragments' vectors
 * without committing; it is the only writer of deletion files (Dataset.delete and update, the
 * checkpoint committer for committed and just appended fragments, the commit loop's rebase of a
 * Delete or Update over concurrent deletions).
 */
package dev.lanceflink.deletion;
