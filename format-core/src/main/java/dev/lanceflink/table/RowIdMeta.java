package dev.lanceflink.table;

/**
 * A fragment's stable-row-id metadata: the row id of every physical row and the per-row created-at
 * and last-updated-at versions. Each part is null when absent. Only tables with feature flag 2
 * (stable row ids) carry them, and then every fragment must have {@link #rowIds()}.
 */
public record RowIdMeta(SequenceSource rowIds, SequenceSource lastUpdatedAtVersions, SequenceSource createdAtVersions) {

    public static final RowIdMeta NONE = new RowIdMeta(null, null, null);

    public boolean isEmpty() {
        return rowIds == null && lastUpdatedAtVersions == null && createdAtVersions == null;
    }
}
