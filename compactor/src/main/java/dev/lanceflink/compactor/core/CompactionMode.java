package dev.lanceflink.compactor.core;

import dev.lanceflink.txn.Transaction;

/**
 * What a compaction run rewrites. Each mode keeps every visible value of the table unchanged; they
 * differ in which files they replace.
 */
public enum CompactionMode {
    /**
     * Overlay to overlay: a fragment's overlays (one run, contiguous in {@code committed_version})
     * become one overlay stamped with the run's largest {@code committed_version}. Base files and
     * index coverage are untouched, so this is the cheap mode to run often next to a streaming sink.
     */
    OVERLAY_MERGE(Transaction.COMPACTION_OVERLAY_MERGE),
    /**
     * Overlay to base: the post-images of every overlaid column go into a new base file and the
     * overlays are dropped. Indices on the folded columns stop covering the fragment in the same
     * commit (overlays.md §7), because their index data describes the old base values.
     */
    OVERLAY_FOLD(Transaction.COMPACTION_OVERLAY_FOLD),
    /**
     * Row rewrite (Lance's fragment compaction, overlays.md §7.3): fragments with many deleted rows
     * are rewritten without them, and runs of small neighbouring fragments with the same index
     * coverage are merged into fragments of about the target size. Overlays and deletions are
     * materialized into the new base files. Committed as a {@code Rewrite}. With stable row ids
     * the new fragments take over the index coverage of the fragments they replace (the indices
     * address rows by stable id), except for indices that overlays materialized by the rewrite had
     * made stale; without stable row ids the new fragments are not indexed until the index is
     * rebuilt (index files are never remapped).
     */
    FRAGMENTS(Transaction.COMPACTION_FRAGMENTS);

    private final String cliName;

    CompactionMode(String cliName) {
        this.cliName = cliName;
    }

    /** The name on the command line and in JSON: {@code overlay-merge}, {@code overlay-fold}, {@code fragments}. */
    public String cliName() {
        return cliName;
    }

    /** Parses a {@link #cliName()}. */
    public static CompactionMode parse(String name) {
        for (CompactionMode m : values()) {
            if (m.cliName.equals(name)) {
                return m;
            }
        }
        throw new IllegalArgumentException(
                "Unknown compaction mode '" + name + "'; expected one of overlay-merge," + " overlay-fold, fragments");
    }
}
