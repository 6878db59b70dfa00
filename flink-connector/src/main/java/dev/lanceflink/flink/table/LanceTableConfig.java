package dev.lanceflink.flink.table;

import java.util.Map;

/**
 * The resolved options of one Lance table in a query: where it is, the pinned version, and scan
 * tuning. Built by {@link LanceDynamicTableFactory}.
 *
 * @param timeTravel whether {@code version} was chosen by the table's {@code 'version'} or
 *     {@code 'as-of'} option rather than being the latest version at planning
 * @param filterPushDown whether filters the scan can evaluate exactly are pushed into it
 */
record LanceTableConfig(
        String uri,
        Map<String, String> storageOptions,
        long version,
        int batchSize,
        long rowsPerSplit,
        boolean timeTravel,
        boolean filterPushDown) {
    LanceTableConfig {
        storageOptions = Map.copyOf(storageOptions);
    }

    /** With filter push-down. */
    LanceTableConfig(
            String uri,
            Map<String, String> storageOptions,
            long version,
            int batchSize,
            long rowsPerSplit,
            boolean timeTravel) {
        this(uri, storageOptions, version, batchSize, rowsPerSplit, timeTravel, true);
    }

    /** A scan of the latest version at planning. */
    LanceTableConfig(String uri, Map<String, String> storageOptions, long version, int batchSize, long rowsPerSplit) {
        this(uri, storageOptions, version, batchSize, rowsPerSplit, false);
    }
}
