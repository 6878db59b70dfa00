package dev.lanceflink.compactor.core;

import java.io.Serializable;

/**
 * When a fragment is worth compacting, and how much one run may do.
 *
 * <p>A fragment with overlays is a candidate when any enabled trigger fires: it has at least
 * {@code minOverlays} overlays; or its overlay bytes reach {@code minOverlayBytesRatio} times its
 * base bytes; or its oldest overlay is at least {@code minVersionGap} versions older than the
 * planned version. Merging additionally needs two overlays (one overlay is already merged).
 *
 * <p>The budget bounds one run: at most {@code maxFragments} fragments and {@code maxBytes} bytes
 * of input (base plus overlay bytes for a fold, overlay bytes for a merge). Candidates are taken
 * most overlays first, so a bounded run removes the most read amplification; the rest wait for the
 * next run. A single candidate larger than {@code maxBytes} is still taken when it is the first,
 * so that a small budget never starves a large fragment forever.
 *
 * @param minOverlays overlay-count trigger; 0 disables it
 * @param minOverlayBytesRatio overlay-bytes / base-bytes trigger; 0 disables it
 * @param minVersionGap age trigger in versions; 0 disables it
 * @param maxFragments fragments per run; at least 1
 * @param maxBytes input bytes per run; at least 1
 */
public record CompactionPolicy(int minOverlays, double minOverlayBytesRatio, long minVersionGap, int maxFragments,
        long maxBytes) implements Serializable {
    private static final long serialVersionUID = 1L;

    public CompactionPolicy {
        if (minOverlays < 0) {
            throw new IllegalArgumentException("minOverlays must be >= 0 (0 disables the trigger), got " + minOverlays);
        }
        if (!(minOverlayBytesRatio >= 0) || Double.isInfinite(minOverlayBytesRatio)) {
            throw new IllegalArgumentException("minOverlayBytesRatio must be a finite number >= 0 (0 disables the"
                    + " trigger), got " + minOverlayBytesRatio);
        }
        if (minVersionGap < 0) {
            throw new IllegalArgumentException("minVersionGap must be >= 0 (0 disables the trigger), got "
                    + minVersionGap);
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
    }

    /** Compact fragments with 8 or more overlays, or overlays half the size of the base; no budget limit. */
    public static CompactionPolicy defaults() {
        return new CompactionPolicy(8, 0.5, 0, Integer.MAX_VALUE, Long.MAX_VALUE);
    }

    public CompactionPolicy withMinOverlays(int n) {
        return new CompactionPolicy(n, minOverlayBytesRatio, minVersionGap, maxFragments, maxBytes);
    }

    public CompactionPolicy withMinOverlayBytesRatio(double r) {
        return new CompactionPolicy(minOverlays, r, minVersionGap, maxFragments, maxBytes);
    }

    public CompactionPolicy withMinVersionGap(long gap) {
        return new CompactionPolicy(minOverlays, minOverlayBytesRatio, gap, maxFragments, maxBytes);
    }

    public CompactionPolicy withBudget(int fragments, long bytes) {
        return new CompactionPolicy(minOverlays, minOverlayBytesRatio, minVersionGap, fragments, bytes);
    }
}
