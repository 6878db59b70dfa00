package dev.lanceflink.compactor.core;

import java.io.Serializable;

/**
 * When a fragment is worth compacting, and how much one run may do.
 *
 * <p><b>Overlay modes</b> ({@code overlay-merge}, {@code overlay-fold}): a fragment with overlays is
 * a candidate when any enabled trigger fires: it has at least {@code minOverlays} overlays; or its
 * overlay bytes reach {@code minOverlayBytesRatio} times its base bytes; or its oldest overlay is
 * at least {@code minVersionGap} versions older than the planned version. Merging additionally
 * needs two overlays (one overlay is already merged).
 *
 * <p><b>Mode {@code fragments}</b> (Lance's compaction rules): a fragment whose deleted rows exceed
 * {@code minDeletedRatio} of its physical rows is rewritten even on its own (its deletions are
 * materialized); a fragment with fewer than {@code smallFragmentRows} physical rows is rewritten
 * together with small neighbours, so that the result has about {@code targetRowsPerFragment}
 * rows. A {@code minDeletedRatio} of 1 or more never materializes deletions.
 *
 * <p>The budget bounds one run: at most {@code maxFragments} fragments and {@code maxBytes} bytes
 * of input (base plus overlay bytes for a fold or a rewrite, overlay bytes for a merge). Overlay
 * candidates are taken most overlays first, rewrite groups in table order; the rest wait for the
 * next run. A single task larger than the budget is still taken when it is the first, so that a
 * small budget never starves a large fragment forever.
 *
 * @param minOverlays overlay-count trigger; 0 disables it
 * @param minOverlayBytesRatio overlay-bytes / base-bytes trigger; 0 disables it
 * @param minVersionGap age trigger in versions; 0 disables it
 * @param maxFragments fragments per run; at least 1
 * @param maxBytes input bytes per run; at least 1
 * @param minDeletedRatio {@code fragments}: deleted / physical rows above which a fragment is rewritten
 * @param targetRowsPerFragment {@code fragments}: rows per new fragment; at least 1
 * @param smallFragmentRows {@code fragments}: fragments with fewer physical rows are merge candidates
 */
public record CompactionPolicy(
        int minOverlays,
        double minOverlayBytesRatio,
        long minVersionGap,
        int maxFragments,
        long maxBytes,
        double minDeletedRatio,
        long targetRowsPerFragment,
        long smallFragmentRows)
        implements Serializable {
    private static final long serialVersionUID = 2L;

    /** Lance's default {@code materialize_deletions_threshold}. */
    public static final double DEFAULT_MIN_DELETED_RATIO = 0.1;
    /** Lance's default {@code target_rows_per_fragment} (1Mi rows). */
    public static final long DEFAULT_TARGET_ROWS_PER_FRAGMENT = 1024 * 1024;

    public CompactionPolicy {
        if (minOverlays < 0) {
            throw new IllegalArgumentException("minOverlays must be >= 0 (0 disables the trigger), got " + minOverlays);
        }
        if (!(minOverlayBytesRatio >= 0) || Double.isInfinite(minOverlayBytesRatio)) {
            throw new IllegalArgumentException("minOverlayBytesRatio must be a finite number >= 0 (0 disables the"
                    + " trigger), got " + minOverlayBytesRatio);
        }
        if (minVersionGap < 0) {
            throw new IllegalArgumentException(
                    "minVersionGap must be >= 0 (0 disables the trigger), got " + minVersionGap);
        }
        if (minOverlays == 0 && minOverlayBytesRatio == 0 && minVersionGap == 0) {
            throw new IllegalArgumentException("At least one trigger (minOverlays, minOverlayBytesRatio,"
                    + " minVersionGap) must be enabled, otherwise no fragment is ever compacted");
        }
        if (maxFragments < 1) {
            throw new IllegalArgumentException("maxFragments must be >= 1, got " + maxFragments);
        }
        if (maxBytes < 1) {
            throw new IllegalArgumentException("maxBytes must be >= 1, got " + maxBytes);
        }
        if (!(minDeletedRatio >= 0) || Double.isInfinite(minDeletedRatio)) {
            throw new IllegalArgumentException("minDeletedRatio must be a finite number >= 0 (1 or more never"
                    + " materializes deletions), got " + minDeletedRatio);
        }
        if (targetRowsPerFragment < 1) {
            throw new IllegalArgumentException("targetRowsPerFragment must be >= 1, got " + targetRowsPerFragment);
        }
        if (smallFragmentRows < 0) {
            throw new IllegalArgumentException(
                    "smallFragmentRows must be >= 0 (0: no fragment is small), got " + smallFragmentRows);
        }
    }

    /** An overlay policy with the {@code fragments} settings at their defaults. */
    public CompactionPolicy(
            int minOverlays, double minOverlayBytesRatio, long minVersionGap, int maxFragments, long maxBytes) {
        this(
                minOverlays,
                minOverlayBytesRatio,
                minVersionGap,
                maxFragments,
                maxBytes,
                DEFAULT_MIN_DELETED_RATIO,
                DEFAULT_TARGET_ROWS_PER_FRAGMENT,
                DEFAULT_TARGET_ROWS_PER_FRAGMENT);
    }

    /**
     * Compact fragments with 8 or more overlays, or overlays half the size of the base; rewrite
     * fragments with more than 10% deleted rows and merge neighbours below 1Mi rows; no budget limit.
     */
    public static CompactionPolicy defaults() {
        return new CompactionPolicy(8, 0.5, 0, Integer.MAX_VALUE, Long.MAX_VALUE);
    }

    public CompactionPolicy withMinOverlays(int n) {
        return new CompactionPolicy(
                n,
                minOverlayBytesRatio,
                minVersionGap,
                maxFragments,
                maxBytes,
                minDeletedRatio,
                targetRowsPerFragment,
                smallFragmentRows);
    }

    public CompactionPolicy withMinOverlayBytesRatio(double r) {
        return new CompactionPolicy(
                minOverlays,
                r,
                minVersionGap,
                maxFragments,
                maxBytes,
                minDeletedRatio,
                targetRowsPerFragment,
                smallFragmentRows);
    }

    public CompactionPolicy withMinVersionGap(long gap) {
        return new CompactionPolicy(
                minOverlays,
                minOverlayBytesRatio,
                gap,
                maxFragments,
                maxBytes,
                minDeletedRatio,
                targetRowsPerFragment,
                smallFragmentRows);
    }

    public CompactionPolicy withBudget(int fragments, long bytes) {
        return new CompactionPolicy(
                minOverlays,
                minOverlayBytesRatio,
                minVersionGap,
                fragments,
                bytes,
                minDeletedRatio,
                targetRowsPerFragment,
                smallFragmentRows);
    }

    /** The {@code fragments} settings: deletion trigger, target size and small-fragment size. */
    public CompactionPolicy withFragmentRules(double deletedRatio, long targetRows, long smallRows) {
        return new CompactionPolicy(
                minOverlays,
                minOverlayBytesRatio,
                minVersionGap,
                maxFragments,
                maxBytes,
                deletedRatio,
                targetRows,
                smallRows);
    }
}
