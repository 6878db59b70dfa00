package dev.lanceflink.flink.sink;

import dev.lanceflink.committer.core.CommitSettings;
import dev.lanceflink.committer.core.TableLocation;
import dev.lanceflink.flink.sink.maintenance.MaintenanceSettings;
import dev.lanceflink.flink.sink.upsert.ChangelogKeyResolver;
import dev.lanceflink.flink.sink.upsert.LanceChangeSink;
import dev.lanceflink.flink.sink.upsert.LocatedChange;
import dev.lanceflink.flink.sink.upsert.LocatedChangeTypeInfo;
import dev.lanceflink.flink.sink.upsert.PrimaryKeySelector;
import dev.lanceflink.flink.sink.upsert.RowAddressChanges;
import dev.lanceflink.schema.ColumnSet;
import dev.lanceflink.table.RowAddress;
import dev.lanceflink.table.TableSnapshot;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;

/**
 * Builds a {@link LanceSink}. Only the table URI is required; the table must exist, and its
 * schema defines the record layout (one RowData field per top-level column, in order).
 *
 * <pre>{@code
 * LanceSinkBuilder.forTable("s3://bucket/events.lance")
 *     .storageOptions(Map.of("aws_region", "eu-west-1"))
 *     .rowsPerFile(1_000_000)
 *     .uidSuffix("events")
 *     .sinkTo(rows);
 * }</pre>
 */
public final class LanceSinkBuilder {
    /** Default rows per data file (Lance's default is 1Mi rows). */
    public static final long DEFAULT_ROWS_PER_FILE = 1024 * 1024;
    /** Default rows per Arrow batch handed to the file writer. */
    public static final int DEFAULT_BATCH_ROWS = 8192;

    private final String uri;
    private final Map<String, String> storageOptions = new HashMap<>();
    private LanceSinkMode mode = LanceSinkMode.APPEND;
    private long rowsPerFile = DEFAULT_ROWS_PER_FILE;
    private int batchRows = DEFAULT_BATCH_ROWS;
    private CommitSettings commitSettings = CommitSettings.defaults();
    private String uidSuffix;
    private List<String> primaryKey = List.of();
    private List<String> writtenColumns;
    private List<String> inputColumns;
    private OverlayShape overlayShape = OverlayShape.SPARSE;
    private UpdateMode updateMode = UpdateMode.OVERLAY;
    private KeyMapMode keyMap = KeyMapMode.IN_MEMORY;
    /** The in-memory key map's budget per subtask in bytes; 0: a quarter of the JVM's maximum heap. */
    private long keyMapMaxMemory;

    private int parallelism = -1;
    private boolean overwrite;
    private MaintenanceSettings maintenance = MaintenanceSettings.disabled();
    /** The statement's pinned view of the table (ROW_ADDRESS and DELETE_BY_ROW_ADDRESS), or null. */
    private TableSnapshot snapshot;

    private LanceSinkBuilder(String uri) {
        if (uri == null || uri.isBlank()) {
            throw new IllegalArgumentException("The Lance table URI is required");
        }
        this.uri = uri;
    }

    public static LanceSinkBuilder forTable(String uri) {
        return new LanceSinkBuilder(uri);
    }

    /** Storage options with Lance's key names ({@code aws_region}, {@code aws_endpoint}, ...). */
    public LanceSinkBuilder storageOptions(Map<String, String> options) {
        storageOptions.putAll(options);
        return this;
    }

    public LanceSinkBuilder mode(LanceSinkMode m) {
        this.mode = Objects.requireNonNull(m, "mode is null");
        return this;
    }

    /** Rows per data file (= per new fragment); a checkpoint also ends the open file. */
    public LanceSinkBuilder rowsPerFile(long rows) {
        if (rows < 1) {
            throw new IllegalArgumentException("rowsPerFile must be positive, got " + rows);
        }
        this.rowsPerFile = rows;
        return this;
    }

    /** Rows buffered as one Arrow batch before they are encoded. */
    public LanceSinkBuilder batchRows(int rows) {
        if (rows < 1) {
            throw new IllegalArgumentException("batchRows must be positive, got " + rows);
        }
        this.batchRows = rows;
        return this;
    }

    /** Commit attempts per checkpoint before the job fails (default 10). */
    public LanceSinkBuilder commitRetries(int attempts) {
        this.commitSettings = commitSettings.withCommitAttempts(attempts);
        return this;
    }

    /** Bound of the first random wait between commit attempts, doubling per attempt (default 200 ms). */
    public LanceSinkBuilder commitRetryBackoff(Duration backoff) {
        this.commitSettings = commitSettings.withRetryBackoff(backoff);
        return this;
    }

    /**
     * Accept a restore from a checkpoint or savepoint older than the sink's last commit (default
     * false: such a restore fails, because rows would be appended twice).
     */
    public LanceSinkBuilder allowRestoreFromOlderState(boolean allow) {
        this.commitSettings = commitSettings.withAllowRestoreFromOlderState(allow);
        return this;
    }

    /**
     * The table version the rows' changes were computed from (ROW_ADDRESS and
     * DELETE_BY_ROW_ADDRESS modes: the version an UPDATE or DELETE statement scanned; default 0 =
     * none). Each commit then first checks the versions committed since: it fails, leaving the
     * table as the other writer left it, if one of them overlaid the same cells, moved or replaced
     * the changed rows' fragments (compaction, row-moving update, overwrite, restore), rather than
     * lose an update or change the wrong rows. Concurrent deletions and appends are fine.
     */
    public LanceSinkBuilder readVersion(long version) {
        this.commitSettings = commitSettings.withReadVersion(version);
        return this;
    }

    /**
     * The statement's pinned view of the table: {@link #readVersion} is its version, and the sink
     * plans and writes by its schema and field ids instead of reading the table again (ROW_ADDRESS
     * and DELETE_BY_ROW_ADDRESS modes). Its commit still checks every version committed since; a
     * column the statement writes that was dropped since fails it.
     */
    public LanceSinkBuilder snapshot(TableSnapshot snapshot) {
        this.snapshot = snapshot;
        return readVersion(snapshot.version());
    }

    /**
     * Suffix of the sink's operator uids. The commit user lives in operator state bound to these
     * uids, so keep the suffix stable across job versions. Default: derived from the table URI.
     */
    public LanceSinkBuilder uidSuffix(String suffix) {
        if (suffix == null || suffix.isBlank()) {
            throw new IllegalArgumentException("uidSuffix must not be blank");
        }
        this.uidSuffix = suffix;
        return this;
    }

    /** The primary key columns (UPSERT mode): unique in the table, never NULL, never updated. */
    public LanceSinkBuilder primaryKey(String... columns) {
        this.primaryKey = List.of(columns);
        return this;
    }

    /**
     * The columns the records write (UPSERT and ROW_ADDRESS modes; default: all, or
     * {@link #inputColumns}). Updates overlay
     * only these columns and leave the others alone; new rows get NULL in the others. This is
     * Flink SQL's target column list ({@code INSERT INTO t (id, age) ...}).
     */
    public LanceSinkBuilder writtenColumns(String... columns) {
        this.writtenColumns = List.of(columns);
        return this;
    }

    /**
     * The table's columns the records carry, in the records' order (default: every column, in the
     * table's order); ROW_ADDRESS records carry {@code _rowaddr} after them. The others are NULL
     * in appended and new upserted rows, so they must be nullable there, and untouched by updates.
     * In UPSERT mode the written columns default to these. This is a Flink table declaring only
     * some of the Lance table's columns.
     */
    public LanceSinkBuilder inputColumns(String... columns) {
        this.inputColumns = List.of(columns);
        return this;
    }

    /** Which cells an update overlays (default {@link OverlayShape#SPARSE}). */
    public LanceSinkBuilder overlayShape(OverlayShape shape) {
        this.overlayShape = Objects.requireNonNull(shape, "shape is null");
        return this;
    }

    /**
     * How updates of existing rows are stored (UPSERT and ROW_ADDRESS modes; default
     * {@link UpdateMode#OVERLAY}). {@link UpdateMode#REWRITE_ROWS} deletes the old row and
     * appends the whole new row, as Lance's own update does, so that readers that cannot enable
     * data overlay files read the table; it rewrites whole rows (a partial upsert reads the
     * existing row's other columns), moves rows to new addresses, and indices do not cover the
     * moved rows. Refused for tables with stable row ids.
     */
    public LanceSinkBuilder updateMode(UpdateMode mode) {
        this.updateMode = Objects.requireNonNull(mode, "mode is null");
        return this;
    }

    /**
     * Where the UPSERT mode keeps its key → row location map in a streaming job (default {@link
     * KeyMapMode#IN_MEMORY}): on the heap, rebuilt from the table at every start, checkpoints hold
     * only the changes not yet committed. {@link KeyMapMode#KEYED_STATE} keeps it in Flink keyed
     * state (with RocksDB, for keys that do not fit in the heap). State written with keyed state
     * restores into the in-memory map (a one-time migration); in-memory state is refused by
     * keyed state. BATCH jobs always keep the map on the heap.
     */
    public LanceSinkBuilder keyMap(KeyMapMode mode) {
        this.keyMap = Objects.requireNonNull(mode, "mode is null");
        return this;
    }

    /**
     * The most heap the in-memory key map may take per resolver subtask, by an estimate made before
     * it is built (the table's rows, the subtask's share, bytes per key of the key's type: 32 for
     * one integral column); a larger map stops the job, naming keyed state with RocksDB. Default
     * (0): a quarter of the JVM's maximum heap.
     */
    public LanceSinkBuilder keyMapMaxMemory(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("keyMapMaxMemory must not be negative, got " + bytes);
        }
        this.keyMapMaxMemory = bytes;
        return this;
    }

    /**
     * Parallelism of the writers (and of the key resolver in UPSERT mode); default: the job's
     * default parallelism, as for any Flink sink. In APPEND mode, giving the sink its input's
     * parallelism lets Flink chain the writer to the operator before it, so rows are not
     * serialized between the two (profiling showed that hop costs more CPU than encoding them).
     */
    public LanceSinkBuilder parallelism(int p) {
        if (p < 1) {
            throw new IllegalArgumentException("parallelism must be positive, got " + p);
        }
        this.parallelism = p;
        return this;
    }

    /**
     * Replace the table's content instead of appending ({@code INSERT OVERWRITE}; default false).
     * The job must run in BATCH execution: everything the writers wrote becomes one Lance
     * {@code Overwrite} at the end of the input, committed exactly once, also when no row was
     * written (that empties the table). Schema, field ids, table config and metadata stay; Lance
     * drops the table's indices. APPEND mode only; {@link #sinkTo} refuses a streaming job.
     */
    public LanceSinkBuilder overwrite(boolean overwrite) {
        this.overwrite = overwrite;
        return this;
    }

    /**
     * Maintenance inside the sink job (default: off): after committed checkpoints, a maintenance
     * operator merges and folds overlays and removes old versions of the table, on its own
     * thread, while it holds the table's maintenance lease. See {@link MaintenanceSettings}; for
     * example {@code maintenance(MaintenanceSettings.enabledWithDefaults().withOverlayMerge(8, 0))}; the
     * checkpoint commits then also keep every version within {@link
     * MaintenanceSettings#effectiveHardMaxOverlays()} overlays per fragment ({@code withHardMaxOverlays}).
     * Not attached to an overwriting sink (one commit at the end of a batch job). The cleanup grace
     * must cover three checkpoint intervals (checked when the job graph is built). The sink of
     * {@link #build()} then needs a uid ({@code sinkTo(sink).uid(...)}), which Flink requires of a
     * sink that adds operators after its committer; {@link #sinkTo} sets it.
     */
    public LanceSinkBuilder maintenance(MaintenanceSettings settings) {
        this.maintenance = Objects.requireNonNull(settings, "settings is null");
        return this;
    }

    /** Gives the sink the maintenance settings (checked against the job's checkpoints where its topology is built). */
    private void attachMaintenance(CommittingLanceSink<?> sink) {
        if (maintenance.enabled() && !sink.overwrite()) {
            sink.maintenance(maintenance);
        }
    }

    private String suffix() {
        return uidSuffix != null ? uidSuffix : uri.replaceAll("[^A-Za-z0-9._-]", "_");
    }

    /**
     * The append sink ({@link LanceSinkMode#APPEND}); the other modes are wired by {@link #sinkTo}.
     * Its records must have the types the table's columns read as in Flink (e.g. TIMESTAMP(6) for
     * a microsecond column); {@link #sinkTo} instead reads them with the stream's declared row type.
     */
    public LanceSink build() {
        if (mode != LanceSinkMode.APPEND) {
            throw new IllegalStateException("build() makes the append sink; mode " + mode + " needs the keyed"
                    + " topology that sinkTo(DataStream) builds");
        }
        requireNoReadVersion();
        LanceSink sink = new LanceSink(
                new TableLocation(uri, storageOptions), rowsPerFile, batchRows, commitSettings, suffix(), overwrite);
        attachMaintenance(sink);
        return sink;
    }

    /**
     * Builds the sink for the mode and attaches it to {@code rows}; operator uids end in the uid
     * suffix ({@code lance-sink-<suffix>}, and in UPSERT mode {@code lance-key-resolver-<suffix>}).
     */
    public DataStreamSink<?> sinkTo(DataStream<RowData> rows) {
        if (overwrite) {
            if (mode != LanceSinkMode.APPEND) {
                throw new IllegalStateException("overwrite(true) replaces the content of " + uri + " with the stream's"
                        + " rows, which only the APPEND mode writes; mode " + mode + " changes existing rows, which an"
                        + " overwrite removes. Use mode APPEND to overwrite");
            }
            OverwriteExecutionCheck.requireBatch(rows, uri);
        }
        if (inputColumns != null && mode != LanceSinkMode.DELETE_BY_ROW_ADDRESS) {
            rows = expandColumns(rows);
        }
        return switch (mode) {
            case APPEND -> {
                LanceSink sink = build();
                if (rows.getType() instanceof InternalTypeInfo<RowData> info
                        && info.toLogicalType() instanceof RowType t) {
                    sink.inputType(t); // read cells with their declared precision (e.g. TIMESTAMP(3))
                }
                DataStreamSink<RowData> out =
                        rows.sinkTo(sink).uid("lance-sink-" + sink.uidSuffix()).name("Lance sink");
                if (parallelism > 0) {
                    out.setParallelism(parallelism);
                }
                yield out;
            }
            case UPSERT -> upsert(rows);
            case ROW_ADDRESS -> rowAddress(rows, false);
            case DELETE_BY_ROW_ADDRESS -> rowAddress(rows, true);
        };
    }

    /**
     * Records of some columns as whole table rows ({@link ColumnExpansion}); unchanged if they
     * carry every column in the table's order.
     */
    private DataStream<RowData> expandColumns(DataStream<RowData> rows) {
        TableLocation table = new TableLocation(uri, storageOptions);
        RowType tableType = ChangeSinkPlan.tableColumns(table, snapshot);
        if (inputColumns.equals(tableType.getFieldNames())) {
            return rows;
        }
        if (!(rows.getType() instanceof InternalTypeInfo<RowData> info)
                || !(info.toLogicalType() instanceof RowType in)) {
            throw new IllegalArgumentException("inputColumns(" + inputColumns + ") needs the stream's rows typed as"
                    + " InternalTypeInfo of a RowType, to read the carried columns; got " + rows.getType());
        }
        if (mode == LanceSinkMode.APPEND || mode == LanceSinkMode.UPSERT) {
            List<String> notNull = new ArrayList<>();
            for (RowType.RowField f : tableType.getFields()) {
                if (!inputColumns.contains(f.getName()) && !f.getType().isNullable()) {
                    notNull.add(f.getName());
                }
            }
            if (!notNull.isEmpty()) {
                throw new IllegalArgumentException("Mode " + mode + " gives new rows of " + table + " NULL in the"
                        + " columns the records do not carry, but " + notNull + " are NOT NULL; carry them too");
            }
        }
        if (writtenColumns == null) {
            writtenColumns = inputColumns; // a column the records do not carry is never written
        } else if (!inputColumns.containsAll(writtenColumns)) {
            throw new IllegalArgumentException("The written columns " + writtenColumns + " of " + table + " must be"
                    + " among the columns the records carry, " + inputColumns + "; others would be written as NULL");
        }
        int extra = mode == LanceSinkMode.ROW_ADDRESS ? 1 : 0;
        ColumnExpansion.Expanded e = ColumnExpansion.of(in, inputColumns, extra, tableType, table.toString());
        SingleOutputStreamOperator<RowData> out = rows.map(e.function(), InternalTypeInfo.of(e.rowType()))
                .uid("lance-input-columns-" + suffix())
                .name("Lance input columns");
        if (rows.getParallelism() > 0) {
            out.setParallelism(rows.getParallelism()); // chains to the input: no extra serialization
        }
        return out;
    }

    /**
     * A pinned read version describes where row addresses came from; appended rows and rows found
     * by key are placed against the latest version, so those modes refuse one.
     */
    private void requireNoReadVersion() {
        if (commitSettings.readVersion() != 0) {
            throw new IllegalStateException("readVersion(" + commitSettings.readVersion() + ") is for changes at row"
                    + " addresses read from that version (modes ROW_ADDRESS and DELETE_BY_ROW_ADDRESS); mode " + mode
                    + " writes against the latest version of " + uri + ". Remove readVersion or change the mode");
        }
    }

    private DataStreamSink<?> upsert(DataStream<RowData> rows) {
        requireNoReadVersion();
        TableLocation table = new TableLocation(uri, storageOptions);
        RowType rowType = ChangeSinkPlan.tableColumns(table);
        boolean rewriteRows = updateMode == UpdateMode.REWRITE_ROWS;
        if (rewriteRows) {
            ChangeSinkPlan.requireRewritableRows(table);
        }
        int[] keys = ChangeSinkPlan.keyPositions(table, rowType, primaryKey);
        ColumnSet written = ChangeSinkPlan.writtenColumns(table, rowType, writtenColumns);
        ChangeSinkPlan.checkKeyIsWritten(table, rowType, keys, written);
        String suffix = suffix();
        rows = ChangeSinkPlan.adaptInput(table, rowType, rows, List.of(), suffix);
        PrimaryKeySelector keySelector = new PrimaryKeySelector(rowType, keys);
        SingleOutputStreamOperator<LocatedChange> resolved = rows.keyBy(
                        keySelector, InternalTypeInfo.of(keySelector.keyType()))
                .transform(
                        "Lance key resolver",
                        new LocatedChangeTypeInfo(rowType),
                        new ChangelogKeyResolver(
                                        table,
                                        rowType,
                                        keys,
                                        written,
                                        overlayShape == OverlayShape.SPARSE,
                                        rowsPerFile,
                                        rewriteRows,
                                        keyMap)
                                .keyMapMaxMemory(keyMapMaxMemory))
                .uid("lance-key-resolver-" + suffix)
                .name("Lance key resolver");
        if (parallelism > 0) {
            resolved.setParallelism(parallelism);
        }
        LanceChangeSink sink = new LanceChangeSink(table, batchRows, rowsPerFile, commitSettings, suffix, rewriteRows);
        attachMaintenance(sink);
        // Same parallelism, forward: each writer gets exactly its resolver's rows, in order.
        return resolved.forward()
                .sinkTo(sink)
                .setParallelism(resolved.getParallelism())
                .uid("lance-sink-" + suffix)
                .name("Lance sink");
    }

    private DataStreamSink<?> rowAddress(DataStream<RowData> rows, boolean deletesOnly) {
        TableLocation table = new TableLocation(uri, storageOptions);
        RowType rowType = ChangeSinkPlan.tableColumns(table, snapshot);
        ColumnSet written =
                deletesOnly ? ColumnSet.EMPTY : ChangeSinkPlan.writtenColumns(table, rowType, writtenColumns);
        boolean rewriteRows = !deletesOnly && updateMode == UpdateMode.REWRITE_ROWS;
        if (rewriteRows) {
            ChangeSinkPlan.requireRewritableRows(table, snapshot);
        }
        String suffix = suffix();
        if (!deletesOnly) {
            rows = ChangeSinkPlan.adaptInput(table, rowType, rows, List.of("_rowaddr"), suffix);
        }
        LanceChangeSink sink =
                new LanceChangeSink(table, batchRows, rowsPerFile, commitSettings, suffix, rewriteRows, snapshot);
        attachMaintenance(sink);
        SingleOutputStreamOperator<LocatedChange> changes = rows.map(
                        deletesOnly
                                ? RowAddressChanges.deletes(rowType)
                                : rewriteRows
                                        ? RowAddressChanges.rewrites(rowType, written)
                                        : new RowAddressChanges(rowType, written),
                        new LocatedChangeTypeInfo(rowType))
                .uid("lance-row-address-changes-" + suffix)
                .name("Lance row-address changes");
        if (parallelism > 0) {
            changes.setParallelism(parallelism);
        }
        // One writer per fragment, so a fragment's updates become one overlay file (or, rewriting
        // rows, one deletion vector and one new fragment per writer).
        DataStreamSink<LocatedChange> out = changes.keyBy(c -> RowAddress.fragmentId(c.position()), Types.LONG)
                .sinkTo(sink)
                .uid("lance-sink-" + suffix)
                .name("Lance sink");
        if (parallelism > 0) {
            out.setParallelism(parallelism);
        }
        return out;
    }
}
