/**
 * Data overlay files (overlays.md; upstream status: unstable, reader/writer feature flag 64):
 * new values for cells {@code (physical offset, field)} of a fragment, stored beside the base
 * data files and addressed by rank within a coverage bitmap, so an UPDATE rewrites neither rows
 * nor columns.
 *
 * <ul>
 *   <li>{@link dev.lanceflink.overlay.OverlayWriter}: one overlay file for one fragment, dense or
 *       sparse, with Lance's writer invariants.
 *   <li>{@link dev.lanceflink.overlay.OverlayStager}: the overlay of one target from changes in
 *       any order (sorted, last write per cell, dense or sparse, NULLs allowed), uncommitted; what
 *       every writer of overlays stages through: Dataset.update and the Flink change writer with
 *       whole change sets, the overlay merge and {@link dev.lanceflink.overlay.OverlayRelocator}
 *       field by field in offset order ({@link dev.lanceflink.overlay.OverlayStager#open}).
 *   <li>{@link dev.lanceflink.overlay.OverlayCommits}: groups finished overlays into a
 *       {@code DataOverlay} operation and commits it.
 *   <li>{@link dev.lanceflink.overlay.OverlayResolver}: the read path, used by
 *       {@link dev.lanceflink.read.FragmentReader} for every value it returns.
 *   <li>{@link dev.lanceflink.overlay.OverlayExclusions}: rows an index must re-check.
 * </ul>
 *
 * <p>This package is the format's read side and the single-file writer; it depends on no reader
 * of whole fragments. What reads fragments to write overlays lives above it:
 * {@link dev.lanceflink.update.OverlayUpdate} (UPDATE by row address) and
 * {@link dev.lanceflink.compact.OverlayCompactor} (overlay merge and fold into base files).
 *
 * <p>Row lineage: a {@code DataOverlay} commit sets {@code last_updated_at_version} of every
 * covered row to the commit's version where the fragment tracks it inline (tables with stable row
 * ids), as the upstream spec asks; Lance's own implementation at the digest's snapshot leaves the
 * sequence unchanged, so such tables carry newer versions than Lance would write.
 */
package dev.lanceflink.overlay;
