/**
 * Deletion vectors: the deleted physical row offsets of a fragment and their two file encodings
 * (Arrow IPC {@code .arrow}, portable Roaring {@code .bin}), chosen the way Lance chooses them.
 * {@link dev.lanceflink.deletion.DeletionStager} merges new deletions into fragments' vectors
 * without committing (Dataset.delete and the checkpoint committer both use it).
 */
package dev.lanceflink.deletion;
