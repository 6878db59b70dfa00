package dev.lanceflink.flink.table;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.flink.sink.KeyMapMode;
import dev.lanceflink.flink.sink.LanceSinkBuilder;
import dev.lanceflink.flink.sink.UpdateMode;
import dev.lanceflink.flink.sink.maintenance.MaintenanceSettings;
import java.time.Duration;
import java.util.Map;

/**
 * The resolved write options of one Lance table in a query (see {@link LanceConnectorOptions},
 * {@code sink.*}). Built by {@link LanceDynamicTableFactory}.
 *
 * @param uidSuffix the sink's operator uid suffix, or null for the default derived from the URI
 * @param parallelism the writers' parallelism, or null for the planner's choice
 * @param updateMode how updates of existing rows are stored
 * @param keyMap where the upsert sink keeps its key map ({@code sink.key-map})
 * @param keyMapMaxMemory the in-memory key map's budget per subtask in bytes, 0 for the default
 *     ({@code sink.key-map.max-memory})
 * @param maintenance the in-job maintenance ({@code sink.maintenance.*})
 */
record LanceSinkConfig(
        String uri,
        Map<String, String> storageOptions,
        long rowsPerFile,
        int batchRows,
        int commitRetries,
        Duration commitRetryBackoff,
        boolean allowRestoreFromOlderState,
        String uidSuffix,
        Integer parallelism,
        UpdateMode updateMode,
        KeyMapMode keyMap,
        long keyMapMaxMemory,
        MaintenanceSettings maintenance) {
    LanceSinkConfig {
        storageOptions = Map.copyOf(storageOptions);
        requireNonNull(keyMap, "keyMap is null");
        requireNonNull(maintenance, "maintenance is null");
    }

    /** A builder of the exactly-once append sink with these options. */
    LanceSinkBuilder sinkBuilder() {
        LanceSinkBuilder b = LanceSinkBuilder.forTable(uri)
                .storageOptions(storageOptions)
                .rowsPerFile(rowsPerFile)
                .batchRows(batchRows)
                .commitRetries(commitRetries)
                .commitRetryBackoff(commitRetryBackoff)
                .allowRestoreFromOlderState(allowRestoreFromOlderState)
                .updateMode(updateMode)
                .keyMap(keyMap)
                .keyMapMaxMemory(keyMapMaxMemory)
                .maintenance(maintenance);
        if (uidSuffix != null) {
            b.uidSuffix(uidSuffix);
        }
        return b;
    }
}
