/**
 * Row-level changes staged as uncommitted operations: {@link dev.lanceflink.update.OverlayUpdate}
 * turns new values for some columns of rows given by address into overlay files (or, for released
 * Lance readers, rewritten rows) plus the operation that commits them. It reads the fragments it
 * changes through {@link dev.lanceflink.read.FragmentReader}, which is why it sits above both
 * {@code read} and {@code overlay} rather than in {@code overlay}.
 */
package dev.lanceflink.update;
