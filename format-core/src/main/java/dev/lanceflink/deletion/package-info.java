/**
 * Deletion vectors: the deleted physical row offsets of a fragment and their two file encodings
 * (Arrow IPC {@code .arrow}, portable Roaring {@code .bin}), chosen the way Lance chooses them.
 */
package dev.lanceflink.deletion;
