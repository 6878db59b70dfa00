package dev.lanceflink.flink.source;

import dev.lanceflink.read.RowMetaColumn;
import java.util.Arrays;
import java.util.Optional;

/**
 * The virtual columns the Lance source can append after the table's columns, as Lance names them.
 * Both are Lance uint64 values carried bit for bit in a {@code BIGINT NOT NULL} (negative only at
 * 2^63 and above).
 */
public enum MetadataColumn {
    /** {@code fragment_id << 32 | offset}: where the row is now; changes when compaction moves it. */
    ROW_ADDRESS(RowMetaColumn.ROW_ADDRESS),
    /**
     * The row's id. With stable row ids (feature flag 2) it is the id from the fragment's row id
     * sequence, kept when compaction moves the row; without them Lance's row id is the row
     * address, and so is this column.
     */
    ROW_ID(RowMetaColumn.ROW_ID);

    private final RowMetaColumn scanColumn;
    private final String key;

    MetadataColumn(RowMetaColumn scanColumn) {
        this.scanColumn = scanColumn;
        this.key = scanColumn.columnName();
    }

    /** The column format-core's scan computes for this one. */
    public RowMetaColumn scanColumn() {
        return scanColumn;
    }

    /** The name Lance and the {@code METADATA FROM '...'} clause use. */
    public String key() {
        return key;
    }

    public static Optional<MetadataColumn> ofKey(String key) {
        return Arrays.stream(values()).filter(c -> c.key.equals(key)).findFirst();
    }

    /** The column for {@code key}, or an error listing the keys there are. */
    public static MetadataColumn requireKey(String key) {
        return ofKey(key)
                .orElseThrow(() -> new IllegalArgumentException("Unknown Lance metadata column '" + key
                        + "'; the Lance source provides "
                        + Arrays.stream(values()).map(MetadataColumn::key).toList()));
    }
}
