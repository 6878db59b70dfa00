package dev.lanceflink.table;

import java.util.ArrayList;
import java.util.List;

/**
 * Lance's reader/writer feature-flag bits ({@code Manifest.reader_feature_flags} and
 * {@code writer_feature_flags}).
 *
 * <p>A reader must refuse any reader bit it does not implement, and a writer must refuse any
 * writer bit it does not implement: an unknown bit means the table relies on semantics we would
 * silently get wrong. The flags of a new manifest are recomputed from its content on every
 * commit (so bit 1 disappears once no deletion file is left), except stable row ids, which are
 * sticky.
 */
public final class FeatureFlags {
    /** Some fragment has a deletion file. */
    public static final long DELETION_FILES = 1;
    /** Stable row ids: every fragment carries a row-id sequence. */
    public static final long STABLE_ROW_IDS = 2;
    /** Legacy marker of very old v2 manifests; never set by current writers, known and ignored. */
    public static final long USE_V2_FORMAT_DEPRECATED = 4;
    /** {@code Manifest.config} is non-empty (writer flag only). */
    public static final long TABLE_CONFIG = 8;
    /** {@code Manifest.base_paths} is non-empty. */
    public static final long BASE_PATHS = 16;
    /** The writer deliberately wrote no {@code .txn} file (writer flag only). */
    public static final long DISABLE_TRANSACTION_FILE = 32;
    /** Some fragment carries data overlay files (unstable upstream feature). */
    public static final long UNSTABLE_DATA_OVERLAY_FILES = 64;

    /** Every bit this library implements; any other bit is refused. */
    public static final long KNOWN = DELETION_FILES
            | STABLE_ROW_IDS
            | USE_V2_FORMAT_DEPRECATED
            | TABLE_CONFIG
            | BASE_PATHS
            | DISABLE_TRANSACTION_FILE
            | UNSTABLE_DATA_OVERLAY_FILES;

    private FeatureFlags() {}

    /** The reader and writer words computed for a manifest's content. */
    public record Words(long reader, long writer) {}

    /**
     * Computes both flag words from a manifest's content.
     *
     * @param hasDeletionFiles some fragment has a deletion file
     * @param stableRowIds the table uses stable row ids (sticky: keep it once set)
     * @param hasConfig the config map is non-empty
     * @param hasBasePaths the base-path list is non-empty
     * @param transactionFileSkipped no {@code .txn} file was written for this version
     * @param hasOverlays some fragment has a non-empty overlay list
     */
    public static Words compute(
            boolean hasDeletionFiles,
            boolean stableRowIds,
            boolean hasConfig,
            boolean hasBasePaths,
            boolean transactionFileSkipped,
            boolean hasOverlays) {
        long both = 0;
        if (hasDeletionFiles) {
            both |= DELETION_FILES;
        }
        if (stableRowIds) {
            both |= STABLE_ROW_IDS;
        }
        if (hasBasePaths) {
            both |= BASE_PATHS;
        }
        if (hasOverlays) {
            both |= UNSTABLE_DATA_OVERLAY_FILES;
        }
        long writer = both;
        if (hasConfig) {
            writer |= TABLE_CONFIG;
        }
        if (transactionFileSkipped) {
            writer |= DISABLE_TRANSACTION_FILE;
        }
        return new Words(both, writer);
    }

    /**
     * Refuses to read a manifest whose reader flags contain a bit we do not implement.
     *
     * @param manifestPath named in the error
     */
    public static void checkReadable(long readerFlags, String manifestPath) throws UnsupportedTableFeatureException {
        check(readerFlags, "reader", "read", manifestPath);
    }

    /** Refuses to commit on top of a manifest whose writer flags contain a bit we do not implement. */
    public static void checkWritable(long writerFlags, String manifestPath) throws UnsupportedTableFeatureException {
        check(writerFlags, "writer", "write to", manifestPath);
    }

    private static void check(long flags, String word, String verb, String manifestPath)
            throws UnsupportedTableFeatureException {
        long unknown = flags & ~KNOWN;
        if (unknown != 0) {
            throw new UnsupportedTableFeatureException("Cannot " + verb + " the table: manifest " + manifestPath
                    + " sets " + word + " feature flag bit(s) " + describe(unknown)
                    + " that this library does not implement (known bits: 1, 2, 4, 8, 16, 32, 64). The table"
                    + " was written by a newer Lance; use a Lance release that supports the feature.");
        }
    }

    /** Names each set bit, e.g. {@code "128, 1024"}. */
    public static String describe(long bits) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            long bit = 1L << i;
            if ((bits & bit) != 0) {
                out.add(Long.toUnsignedString(bit) + nameOf(bit));
            }
        }
        return String.join(", ", out);
    }

    private static String nameOf(long bit) {
        if (bit == DELETION_FILES) {
            return " (deletion files)";
        } else if (bit == STABLE_ROW_IDS) {
            return " (stable row ids)";
        } else if (bit == USE_V2_FORMAT_DEPRECATED) {
            return " (v2 format, deprecated)";
        } else if (bit == TABLE_CONFIG) {
            return " (table config)";
        } else if (bit == BASE_PATHS) {
            return " (base paths)";
        } else if (bit == DISABLE_TRANSACTION_FILE) {
            return " (no transaction file)";
        } else if (bit == UNSTABLE_DATA_OVERLAY_FILES) {
            return " (data overlay files)";
        }
        return "";
    }
}
