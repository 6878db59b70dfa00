package dev.lanceflink.flink.table;

import java.util.Map;

/**
 * The resolved options of one Lance table in a query: where it is, the pinned version, and scan
 * tuning. Built by {@link LanceDynamicTableFactory}.
 */
record LanceTableConfig(String uri, Map<String, String> storageOptions, long version, int batchSize,
        long rowsPerSplit) {
    LanceTableConfig {
        storageOptions = Map.copyOf(storageOptions);
    }
}
