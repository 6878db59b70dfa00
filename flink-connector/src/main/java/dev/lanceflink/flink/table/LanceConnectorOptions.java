package dev.lanceflink.flink.table;

import dev.lanceflink.flink.catalog.CatalogSchemas;
import dev.lanceflink.flink.sink.LanceSinkBuilder;
import dev.lanceflink.flink.sink.UpdateMode;
import java.time.Duration;
import java.util.Map;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/** The options of {@code 'connector' = 'lance'} tables. Keys only; {@link LanceDynamicTableFactory} reads them. */
public final class LanceConnectorOptions {
    private LanceConnectorOptions() {}

    public static final ConfigOption<String> PATH = ConfigOptions.key("path").stringType().noDefaultValue()
            .withDescription("Location of the Lance table: a local path, file:// or s3:// URI.");

    public static final ConfigOption<Long> VERSION = ConfigOptions.key("version").longType().noDefaultValue()
            .withDescription("Read this table version (time travel). Exclusive with 'as-of'. Default: the latest "
                    + "version when the query is planned.");

    public static final ConfigOption<String> AS_OF = ConfigOptions.key("as-of").stringType().noDefaultValue()
            .withDescription("Read the newest version committed at or before this instant: ISO-8601 with an offset "
                    + "(e.g. '2026-11-29T21:00:00Z') or epoch milliseconds. Exclusive with 'version'. Default: the latest "
                    + "version when the query is planned.");

    public static final ConfigOption<Integer> SCAN_BATCH_SIZE = ConfigOptions.key("scan.batch-size").intType()
            .defaultValue(8192).withDescription("Rows per Arrow batch the reader decodes at a time; larger batches use more memory per split.");

    public static final ConfigOption<Long> SCAN_ROWS_PER_SPLIT = ConfigOptions.key("scan.rows-per-split").longType()
            .defaultValue(1L << 20).withDescription("Fragments larger than this many physical rows are read as "
                    + "several splits, in parallel.");

    public static final ConfigOption<Boolean> SCAN_FILTER_PUSH_DOWN_ENABLED = ConfigOptions
            .key("scan.filter-push-down.enabled").booleanType().defaultValue(true)
            .withDescription("Evaluate WHERE conditions in the scan where its result equals Flink's on every row "
                    + "(comparisons of columns of every scalar type with literals, IN, IS NULL, AND/OR/NOT), so that "
                    + "only matching rows are read in full and emitted; 'false' leaves every condition to Flink.");

    public static final ConfigOption<Map<String, String>> VECTOR_DIMENSIONS = ConfigOptions.key("vector-dimensions")
            .mapType().noDefaultValue().withDescription("ARRAY columns stored as fixed-size vectors, with their "
                    + "dimension: 'embedding:768,image.clip:512' (nested columns by dotted path). Used when the Lance "
                    + "catalog creates a table, and set by it on tables that have such columns. Default: none, "
                    + "ARRAY columns are variable-length lists.");

    // ---- write side (INSERT INTO); 'sink.parallelism' is Flink's FactoryUtil.SINK_PARALLELISM ----

    public static final ConfigOption<Long> SINK_ROWS_PER_FILE = ConfigOptions.key("sink.rows-per-file").longType()
            .defaultValue(LanceSinkBuilder.DEFAULT_ROWS_PER_FILE).withDescription("Rows per data file, that is per "
                    + "new fragment, each writer subtask writes; a checkpoint also ends the open file.");

    public static final ConfigOption<Integer> SINK_BATCH_ROWS = ConfigOptions.key("sink.batch-rows").intType()
            .defaultValue(LanceSinkBuilder.DEFAULT_BATCH_ROWS).withDescription("Rows a writer buffers as one Arrow "
                    + "batch before encoding them; larger batches use more memory per subtask.");

    public static final ConfigOption<Integer> SINK_COMMIT_RETRIES = ConfigOptions.key("sink.commit-retries").intType()
            .defaultValue(10).withDescription("Commit attempts per checkpoint (a concurrent writer's commit makes "
                    + "ours rebase and retry) before the job fails.");

    public static final ConfigOption<Duration> SINK_COMMIT_RETRY_BACKOFF = ConfigOptions
            .key("sink.commit-retry-backoff").durationType().defaultValue(Duration.ofMillis(200))
            .withDescription("First wait between commit attempts (a duration, e.g. '200 ms'); it "
                    + "doubles with each attempt.");

    public static final ConfigOption<Boolean> SINK_ALLOW_RESTORE_FROM_OLDER_STATE = ConfigOptions
            .key("sink.allow-restore-from-older-state").booleanType().defaultValue(false)
            .withDescription("Accept a restore from a checkpoint or savepoint older than the sink's last commit; "
                    + "refused by default because its rows would be appended a second time.");

    public static final ConfigOption<String> SINK_UID_SUFFIX = ConfigOptions.key("sink.uid-suffix").stringType()
            .noDefaultValue().withDescription("Suffix of the sink operators' uids, to which the sink's commit "
                    + "state is bound; keep it stable across versions of a job. Default: derived from 'path'.");

    public static final ConfigOption<String> SINK_UPDATE_MODE = ConfigOptions.key("sink.update-mode").stringType()
            .defaultValue(UpdateMode.OVERLAY.optionValue()).withDescription("How an update of an existing row"
                    + " (UPDATE, or an upsert into a PRIMARY KEY table) is stored. 'overlay': data overlay files"
                    + " holding only the changed cells; rows stay put, but released Lance readers refuse the table"
                    + " unless LANCE_ENABLE_UNSTABLE_DATA_OVERLAY_FILES is set. 'rewrite-rows': like Lance's own"
                    + " update, the old row is deleted and the whole new row appended to a new fragment, so every"
                    + " Lance reader reads the table; it rewrites whole rows (a partial upsert reads the other"
                    + " columns' values), moves rows to new addresses, and indices do not cover the moved rows."
                    + " Not for tables with stable row ids.");

    // ---- a new table: the first write to a path that holds none creates it ----

    public static final ConfigOption<String> CREATE_FILE_VERSION = ConfigOptions
            .key(CatalogSchemas.CREATE_FILE_VERSION_KEY).stringType().noDefaultValue()
            .withDescription("Data storage version of a table the first write creates: '2.0', '2.1', '2.2' or"
                    + " 'stable' (= 2.2). Default: 2.2, what current Lance creates; choose 2.1 for readers older"
                    + " than Lance 0.38 (maps need 2.2).");

    public static final ConfigOption<Boolean> CREATE_STABLE_ROW_IDS = ConfigOptions.key("create.stable-row-ids")
            .booleanType().defaultValue(false).withDescription("Whether a table the first write creates uses"
                    + " stable row ids (row ids that survive compaction and row-moving updates).");

    /**
     * Prefix of object-store options passed through unchanged (without the prefix), e.g.
     * {@code 'storage.aws_region' = 'eu-west-1'} becomes the storage option {@code aws_region}.
     */
    public static final String STORAGE_PREFIX = "storage.";
}
