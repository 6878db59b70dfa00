package dev.lanceflink.flink.table;

import dev.lanceflink.flink.catalog.CatalogSchemas;
import dev.lanceflink.flink.sink.KeyMapMode;
import dev.lanceflink.flink.sink.LanceSinkBuilder;
import dev.lanceflink.flink.sink.UpdateMode;
import dev.lanceflink.flink.sink.maintenance.MaintenanceSettings;
import java.time.Duration;
import java.util.Map;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;

/** The options of {@code 'connector' = 'lance'} tables. Keys only; {@link LanceDynamicTableFactory} reads them. */
public final class LanceConnectorOptions {
    private LanceConnectorOptions() {}

    public static final ConfigOption<String> PATH = ConfigOptions.key("path")
            .stringType()
            .noDefaultValue()
            .withDescription("Location of the Lance table: a local path, file:// or s3:// URI.");

    public static final ConfigOption<Long> VERSION = ConfigOptions.key("version")
            .longType()
            .noDefaultValue()
            .withDescription("Read this table version (time travel). Exclusive with 'as-of'. Default: the latest "
                    + "version when the query is planned.");

    public static final ConfigOption<String> AS_OF = ConfigOptions.key("as-of")
            .stringType()
            .noDefaultValue()
            .withDescription("Read the newest version committed at or before this instant: ISO-8601 with an offset "
                    + "(e.g. '2026-11-29T21:00:00Z') or epoch milliseconds. Exclusive with 'version'. Default: the latest "
                    + "version when the query is planned.");

    public static final ConfigOption<Integer> SCAN_BATCH_SIZE = ConfigOptions.key("scan.batch-size")
            .intType()
            .defaultValue(8192)
            .withDescription(
                    "Rows per Arrow batch the reader decodes at a time; larger batches use more memory per split.");

    public static final ConfigOption<Long> SCAN_ROWS_PER_SPLIT = ConfigOptions.key("scan.rows-per-split")
            .longType()
            .defaultValue(1L << 20)
            .withDescription(
                    "Fragments larger than this many physical rows are read as " + "several splits, in parallel.");

    public static final ConfigOption<Boolean> SCAN_FILTER_PUSH_DOWN_ENABLED = ConfigOptions.key(
                    "scan.filter-push-down.enabled")
            .booleanType()
            .defaultValue(true)
            .withDescription("Evaluate WHERE conditions in the scan where its result equals Flink's on every row "
                    + "(comparisons of columns of every scalar type with literals, IN, IS NULL, AND/OR/NOT), so that "
                    + "only matching rows are read in full and emitted; 'false' leaves every condition to Flink.");

    public static final ConfigOption<Map<String, String>> VECTOR_DIMENSIONS = ConfigOptions.key("vector-dimensions")
            .mapType()
            .noDefaultValue()
            .withDescription("ARRAY columns stored as fixed-size vectors, with their "
                    + "dimension: 'embedding:768,image.clip:512' (nested columns by dotted path). Used when the Lance "
                    + "catalog creates a table, and set by it on tables that have such columns. Default: none, "
                    + "ARRAY columns are variable-length lists.");

    // ---- write side (INSERT INTO); 'sink.parallelism' is Flink's FactoryUtil.SINK_PARALLELISM ----

    public static final ConfigOption<Long> SINK_ROWS_PER_FILE = ConfigOptions.key("sink.rows-per-file")
            .longType()
            .defaultValue(LanceSinkBuilder.DEFAULT_ROWS_PER_FILE)
            .withDescription("Rows per data file, that is per "
                    + "new fragment, each writer subtask writes; a checkpoint also ends the open file.");

    public static final ConfigOption<Integer> SINK_BATCH_ROWS = ConfigOptions.key("sink.batch-rows")
            .intType()
            .defaultValue(LanceSinkBuilder.DEFAULT_BATCH_ROWS)
            .withDescription("Rows a writer buffers as one Arrow "
                    + "batch before encoding them; larger batches use more memory per subtask.");

    public static final ConfigOption<Integer> SINK_COMMIT_RETRIES = ConfigOptions.key("sink.commit-retries")
            .intType()
            .defaultValue(10)
            .withDescription("Commit attempts per checkpoint after store errors or a table so busy "
                    + "that other writers kept committing first, before the job fails (a concurrent writer's commit "
                    + "makes ours check and build again on the newer version without using up an attempt).");

    public static final ConfigOption<Duration> SINK_COMMIT_RETRY_BACKOFF = ConfigOptions.key(
                    "sink.commit-retry-backoff")
            .durationType()
            .defaultValue(Duration.ofMillis(200))
            .withDescription("Bound of the first random wait between commit attempts (a duration, e.g. "
                    + "'200 ms'); it doubles with each attempt, up to 10 s.");

    public static final ConfigOption<Boolean> SINK_ALLOW_RESTORE_FROM_OLDER_STATE = ConfigOptions.key(
                    "sink.allow-restore-from-older-state")
            .booleanType()
            .defaultValue(false)
            .withDescription("Accept a restore from a checkpoint or savepoint older than the sink's last commit; "
                    + "refused by default because its rows would be appended a second time.");

    public static final ConfigOption<String> SINK_UID_SUFFIX = ConfigOptions.key("sink.uid-suffix")
            .stringType()
            .noDefaultValue()
            .withDescription("Suffix of the sink operators' uids, to which the sink's commit "
                    + "state is bound; keep it stable across versions of a job. Default: derived from 'path'.");

    public static final ConfigOption<String> SINK_KEY_MAP = ConfigOptions.key("sink.key-map")
            .stringType()
            .defaultValue(KeyMapMode.IN_MEMORY.optionValue())
            .withDescription("Where the upsert sink (PRIMARY KEY table, streaming) keeps its key -> row map."
                    + " 'in-memory': a map on the heap, built from the table at every start; checkpoints hold only"
                    + " the changes not yet committed ('sink.key-map.max-memory' bounds it). 'keyed-state': Flink"
                    + " keyed state, the whole map in every checkpoint (incremental with RocksDB); for tables whose"
                    + " keys do not fit in the heap. State written with 'keyed-state' (the default before) restores"
                    + " into 'in-memory': the restored map is used as it is until a later checkpoint is committed."
                    + " State written with 'in-memory' does not restore into 'keyed-state'.");

    public static final ConfigOption<MemorySize> SINK_KEY_MAP_MAX_MEMORY = ConfigOptions.key("sink.key-map.max-memory")
            .memoryType()
            .noDefaultValue()
            .withDescription("The most heap the 'in-memory' key map may take per sink subtask, by an estimate made"
                    + " before it is built: the table's rows at the start, the subtask's share, times about 32 bytes"
                    + " per key for one integral key column (more for other keys: 35 bytes plus the key's binary"
                    + " row). A larger map stops the job, naming 'keyed-state' with RocksDB. Default: a quarter of"
                    + " the JVM's maximum heap; with several slots per TaskManager, each subtask may take that"
                    + " much.");

    public static final ConfigOption<String> SINK_UPDATE_MODE = ConfigOptions.key("sink.update-mode")
            .stringType()
            .defaultValue(UpdateMode.OVERLAY.optionValue())
            .withDescription("How an update of an existing row"
                    + " (UPDATE, or an upsert into a PRIMARY KEY table) is stored. 'overlay': data overlay files"
                    + " holding only the changed cells; rows stay put, but released Lance readers refuse the table"
                    + " unless LANCE_ENABLE_UNSTABLE_DATA_OVERLAY_FILES is set. 'rewrite-rows': like Lance's own"
                    + " update, the old row is deleted and the whole new row appended to a new fragment, so every"
                    + " Lance reader reads the table; it rewrites whole rows (a partial upsert reads the other"
                    + " columns' values), moves rows to new addresses, and indices do not cover the moved rows."
                    + " Not for tables with stable row ids.");

    // ---- maintenance inside the sink job (MaintenanceSettings holds the keys and the defaults) ----

    public static final ConfigOption<Boolean> SINK_MAINTENANCE_ENABLED = ConfigOptions.key(MaintenanceSettings.ENABLED)
            .booleanType()
            .defaultValue(false)
            .withDescription("Maintain the table inside the streaming sink job:"
                    + " after committed checkpoints, merge and fold overlays and remove old versions, on a thread of"
                    + " its own that never holds up the writers or the committer, while the sink holds the table's"
                    + " maintenance lease (_maintenance/ in the table directory; the standalone compaction job takes"
                    + " the same lease); fragment compaction too when 'sink.maintenance.fragments.enabled' is set."
                    + " Not used by INSERT OVERWRITE.");

    public static final ConfigOption<Integer> SINK_MAINTENANCE_CHECK_EVERY_COMMITS = ConfigOptions.key(
                    MaintenanceSettings.CHECK_EVERY_COMMITS)
            .intType()
            .defaultValue(MaintenanceSettings.DEFAULT_CHECK_EVERY_COMMITS)
            .withDescription(
                    "Check what maintenance is" + " due after this many committed checkpoints; 0 checks by time only.");

    public static final ConfigOption<Duration> SINK_MAINTENANCE_CHECK_INTERVAL = ConfigOptions.key(
                    MaintenanceSettings.CHECK_INTERVAL)
            .durationType()
            .defaultValue(MaintenanceSettings.DEFAULT_CHECK_INTERVAL)
            .withDescription("Also check this often, also"
                    + " while the sink commits nothing (needed for the quiet-period fold); 0 checks by commit count"
                    + " only.");

    public static final ConfigOption<Integer> SINK_MAINTENANCE_MERGE_MAX_OVERLAYS = ConfigOptions.key(
                    MaintenanceSettings.MERGE_MAX_OVERLAYS)
            .intType()
            .defaultValue(MaintenanceSettings.DEFAULT_MERGE_MAX_OVERLAYS)
            .withDescription("Overlays per fragment to"
                    + " stay under: a fragment with this many gets them merged into one (overlay-merge), and earlier"
                    + " by as many overlays as reached one fragment between recent checks, since as many arrive"
                    + " while maintenance works. 0 turns this trigger off; otherwise at least 2.");

    public static final ConfigOption<Integer> SINK_MAINTENANCE_MERGE_HARD_MAX_OVERLAYS = ConfigOptions.key(
                    MaintenanceSettings.MERGE_HARD_MAX_OVERLAYS)
            .intType()
            .defaultValue(0)
            .withDescription("Overlays per fragment that no committed version exceeds, even while maintenance"
                    + " falls behind: a checkpoint whose overlays would leave a fragment with more merges all of"
                    + " that fragment's overlays into one in its own commit (the same single version; it costs"
                    + " that commit a read of the fragment's overlays and one written file). 0 means twice '"
                    + MaintenanceSettings.MERGE_MAX_OVERLAYS + "' (no bound if that is 0 too); otherwise at least"
                    + " 2 and at least '" + MaintenanceSettings.MERGE_MAX_OVERLAYS + "'.");

    public static final ConfigOption<MemorySize> SINK_MAINTENANCE_MERGE_MAX_OVERLAY_BYTES = ConfigOptions.key(
                    MaintenanceSettings.MERGE_MAX_OVERLAY_BYTES)
            .memoryType()
            .defaultValue(MemorySize.parse(MaintenanceSettings.DEFAULT_MERGE_MAX_OVERLAY_BYTES + "b"))
            .withDescription("A fragment whose overlays hold this many bytes gets them merged (overlay-merge), if it"
                    + " has two or more. 0 turns this trigger off.");

    public static final ConfigOption<Double> SINK_MAINTENANCE_FOLD_MIN_COVERAGE = ConfigOptions.key(
                    MaintenanceSettings.FOLD_MIN_COVERAGE)
            .doubleType()
            .defaultValue(MaintenanceSettings.DEFAULT_FOLD_MIN_COVERAGE)
            .withDescription("A fragment whose overlays"
                    + " cover this fraction of one column's rows gets them folded into its base files"
                    + " (overlay-fold): scans then read that column from the base again. From 0 (off) to 1.");

    public static final ConfigOption<Duration> SINK_MAINTENANCE_FOLD_QUIET_PERIOD = ConfigOptions.key(
                    MaintenanceSettings.FOLD_QUIET_PERIOD)
            .durationType()
            .defaultValue(MaintenanceSettings.DEFAULT_FOLD_QUIET_PERIOD)
            .withDescription("After this long without a"
                    + " commit of the sink, every fragment's overlays are folded (overlay-fold); 0 turns this"
                    + " trigger off.");

    public static final ConfigOption<Boolean> SINK_MAINTENANCE_CLEANUP_ENABLED = ConfigOptions.key(
                    MaintenanceSettings.CLEANUP_ENABLED)
            .booleanType()
            .defaultValue(true)
            .withDescription("Remove old versions and the files no kept version references, with the rules of"
                    + " 'compact --mode cleanup': tagged versions and every sink's newest commit are kept, and every"
                    + " version from this sink's newest commit on, and a fragment compaction until the sink has"
                    + " committed two more checkpoints (its key map learns the compaction's row moves meanwhile).");

    public static final ConfigOption<Integer> SINK_MAINTENANCE_RETAIN_VERSIONS = ConfigOptions.key(
                    MaintenanceSettings.RETAIN_VERSIONS)
            .intType()
            .defaultValue(MaintenanceSettings.DEFAULT_RETAIN_VERSIONS)
            .withDescription("Cleanup keeps the newest this" + " many versions (at least 1).");

    public static final ConfigOption<Duration> SINK_MAINTENANCE_RETAIN_MIN_AGE = ConfigOptions.key(
                    MaintenanceSettings.RETAIN_MIN_AGE)
            .durationType()
            .defaultValue(MaintenanceSettings.DEFAULT_RETAIN_MIN_AGE)
            .withDescription("Cleanup keeps every version"
                    + " younger than this: longer than the longest read of an old version (time travel, a batch"
                    + " job) and than other writers' checkpoint interval plus restart time.");

    public static final ConfigOption<Duration> SINK_MAINTENANCE_CLEANUP_GRACE = ConfigOptions.key(
                    MaintenanceSettings.CLEANUP_GRACE)
            .durationType()
            .defaultValue(MaintenanceSettings.DEFAULT_CLEANUP_GRACE)
            .withDescription("Cleanup deletes a file that no"
                    + " version references only once it is older than this, since it may belong to a checkpoint"
                    + " whose commit has not landed: at least 1 min and three checkpoint intervals.");

    public static final ConfigOption<Duration> SINK_MAINTENANCE_LEASE_TIMEOUT = ConfigOptions.key(
                    MaintenanceSettings.LEASE_TIMEOUT)
            .durationType()
            .defaultValue(MaintenanceSettings.DEFAULT_LEASE_TIMEOUT)
            .withDescription("How long the maintenance lease lasts unless renewed (at every check, and between a"
                    + " check's steps and runs; a check that lost it stops after its current run); another maintainer"
                    + " takes an expired lease. At least 10 s, and more than 1.5 times `check-interval` (1 min if that"
                    + " is 0); keep it well above the clock skew between machines.");

    public static final ConfigOption<Integer> SINK_MAINTENANCE_PARALLELISM = ConfigOptions.key(
                    MaintenanceSettings.PARALLELISM)
            .intType()
            .defaultValue(MaintenanceSettings.DEFAULT_PARALLELISM)
            .withDescription("Maintenance tasks (threads of the maintenance operator) merging or folding fragments"
                    + " at once.");

    public static final ConfigOption<Integer> SINK_MAINTENANCE_MAX_FRAGMENTS_PER_RUN = ConfigOptions.key(
                    MaintenanceSettings.MAX_FRAGMENTS_PER_RUN)
            .intType()
            .defaultValue(MaintenanceSettings.DEFAULT_MAX_FRAGMENTS_PER_RUN)
            .withDescription("Fragments one merge or"
                    + " fold run takes at most (those with the most overlays first), and one fragment compaction run (in"
                    + " table order). A check runs one run after another until what it found due is done or its"
                    + " check interval has passed; the rest waits for the next check.");

    public static final ConfigOption<Boolean> SINK_MAINTENANCE_FRAGMENTS_ENABLED = ConfigOptions.key(
                    MaintenanceSettings.FRAGMENTS_ENABLED)
            .booleanType()
            .defaultValue(false)
            .withDescription("Also compact fragments inside the sink job, with the planner and committer of"
                    + " 'compact --mode fragments' (Lance's rules): fragments with many deleted rows are rewritten,"
                    + " small neighbouring fragments are merged. The sink's key map follows the rows it moves.");

    public static final ConfigOption<Long> SINK_MAINTENANCE_FRAGMENTS_TARGET_ROWS = ConfigOptions.key(
                    MaintenanceSettings.FRAGMENTS_TARGET_ROWS)
            .longType()
            .defaultValue(MaintenanceSettings.DEFAULT_FRAGMENTS_TARGET_ROWS)
            .withDescription("Rows per fragment that"
                    + " fragment compaction writes ('--target-rows-per-fragment' of the standalone job); at least 1.");

    public static final ConfigOption<Long> SINK_MAINTENANCE_FRAGMENTS_SMALL_ROWS = ConfigOptions.key(
                    MaintenanceSettings.FRAGMENTS_SMALL_ROWS)
            .longType()
            .defaultValue(0L)
            .withDescription("Fragments with fewer rows are merged with small neighbours ('--small-fragment-rows'"
                    + " of the standalone job); 0 means the target rows per fragment.");

    public static final ConfigOption<Double> SINK_MAINTENANCE_FRAGMENTS_MIN_DELETED_RATIO = ConfigOptions.key(
                    MaintenanceSettings.FRAGMENTS_MIN_DELETED_RATIO)
            .doubleType()
            .defaultValue(MaintenanceSettings.DEFAULT_FRAGMENTS_MIN_DELETED_RATIO)
            .withDescription("A fragment whose"
                    + " deleted rows exceed this fraction of its rows is rewritten even alone ('--min-deleted-ratio'"
                    + " of the standalone job); above 0, at most 1 (1: never for deletions alone).");

    public static final ConfigOption<Integer> SINK_MAINTENANCE_FRAGMENTS_MIN_FRAGMENTS = ConfigOptions.key(
                    MaintenanceSettings.FRAGMENTS_MIN_FRAGMENTS)
            .intType()
            .defaultValue(MaintenanceSettings.DEFAULT_FRAGMENTS_MIN_FRAGMENTS)
            .withDescription("Fragment compaction"
                    + " runs once it would rewrite at least this many fragments, so that a streaming sink's few new"
                    + " small fragments per checkpoint are compacted in batches; at least 1.");

    // ---- a new table: the first write to a path that holds none creates it ----

    public static final ConfigOption<String> CREATE_FILE_VERSION = ConfigOptions.key(
                    CatalogSchemas.CREATE_FILE_VERSION_KEY)
            .stringType()
            .noDefaultValue()
            .withDescription("Data storage version of a table the first write creates: '2.0', '2.1', '2.2' or"
                    + " 'stable' (= 2.2). Default: 2.2, what current Lance creates; choose 2.1 for readers older"
                    + " than Lance 0.38 (maps need 2.2).");

    public static final ConfigOption<Boolean> CREATE_STABLE_ROW_IDS = ConfigOptions.key("create.stable-row-ids")
            .booleanType()
            .defaultValue(false)
            .withDescription("Whether a table the first write creates uses"
                    + " stable row ids (row ids that survive compaction and row-moving updates).");

    /**
     * Prefix of object-store options passed through unchanged (without the prefix), e.g.
     * {@code 'storage.aws_region' = 'eu-west-1'} becomes the storage option {@code aws_region}.
     */
    public static final String STORAGE_PREFIX = "storage.";
}
