package dev.lanceflink.flink.table;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.expr.Expr;
import dev.lanceflink.expr.ExprPrinter;
import dev.lanceflink.file.FileVersion;
import dev.lanceflink.flink.catalog.CatalogSchemas;
import dev.lanceflink.flink.sink.LanceSinkBuilder;
import dev.lanceflink.flink.sink.LanceSinkMode;
import dev.lanceflink.flink.sink.UpdateMode;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.table.TableSnapshot;
import dev.lanceflink.txn.CommitOptions;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.TableException;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.RowLevelModificationScanContext;
import org.apache.flink.table.connector.sink.DataStreamSinkProvider;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.abilities.SupportsDeletePushDown;
import org.apache.flink.table.connector.sink.abilities.SupportsOverwrite;
import org.apache.flink.table.connector.sink.abilities.SupportsRowLevelDelete;
import org.apache.flink.table.connector.sink.abilities.SupportsRowLevelUpdate;
import org.apache.flink.table.connector.source.abilities.SupportsRowLevelModificationScan;
import org.apache.flink.table.expressions.ResolvedExpression;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write side of a {@code 'connector' = 'lance'} table.
 *
 * <p>{@code INSERT INTO} (batch and streaming) appends through the exactly-once
 * {@link dev.lanceflink.flink.sink.LanceSink}: each checkpoint (or the end of a batch job) commits
 * one Lance version, and a failed job commits nothing of its unfinished checkpoint.
 *
 * <p>{@code DELETE FROM t [WHERE ...]} in batch mode is pushed down whole when
 * {@link LanceFilterTranslator} translates every conjunct exactly: one Lance delete commit of
 * deletion files (whole fragments are dropped), no Flink job; it returns the number of rows
 * deleted. Any other condition runs as a row-level DELETE: the planner reads the matching rows'
 * {@code _rowaddr} and the sink writes deletion vectors. {@code UPDATE t SET ... WHERE ...}
 * writes data overlay files holding just the SET columns at the updated rows (no row moves);
 * a table with a PRIMARY KEY takes upsert changelogs (updates as overlays, deletes as deletion
 * vectors). With {@code 'sink.update-mode' = 'rewrite-rows'} both store an update as Lance's own
 * update does instead: the old row is deleted and the whole new row appended, one Lance
 * {@code Update} version per checkpoint, so readers that cannot enable overlays read the table. UPDATE and row-level DELETE read the version pinned at planning
 * ({@link LanceModificationScanContext}) and their commit fails, leaving the table as the other
 * writer left it, if a version committed since changed the same cells or moved the rows
 * (compaction, overwrite): rerunning the statement then applies it to the current rows.
 *
 * <p>{@code INSERT OVERWRITE t SELECT ...} (batch mode only: Flink's planner accepts it in
 * streaming mode, this sink refuses it there) replaces the table's content with the query's rows
 * as one Lance {@code Overwrite} version at the end of the job, exactly once; an empty result
 * empties the table. Schema, field
 * ids, table config and metadata stay, Lance drops the table's indices, and older versions stay
 * readable by time travel. A table with a PRIMARY KEY is overwritten the same way: the rows are
 * written as they come, with no upsert against the old rows (they are all replaced); like every
 * Flink PRIMARY KEY it is NOT ENFORCED, so the query must not produce a key twice (a later upsert
 * job refuses a table with duplicate keys, naming one).
 */
final class LanceDynamicTableSink
        implements DynamicTableSink,
                SupportsDeletePushDown,
                SupportsRowLevelUpdate,
                SupportsRowLevelDelete,
                SupportsOverwrite {
    /** The Lance filter matching every row, for a DELETE without WHERE. */
    static final Expr ALL_ROWS = new Expr.Literal(true);

    private static final Logger LOG = LoggerFactory.getLogger(LanceDynamicTableSink.class);

    private final String table;
    private final LanceSinkConfig config;
    private final RowType declared;
    private final Schema stored;
    private final List<String> primaryKey;
    /** The table's data storage version when the statement was planned (maps need 2.2). */
    private final FileVersion dataFormat;
    /** Whether the table used stable row ids when the statement was planned (rewrite-rows refuses them). */
    private final boolean stableRowIds;
    /** The table the first write creates, or null if the path held a table when the statement was planned. */
    private final CatalogSchemas.NewTable newTable;

    private Expr deleteFilter;
    /** Set when the planner turned an UPDATE or a row-level DELETE into this sink. */
    private SupportsRowLevelModificationScan.RowLevelModificationType modification;

    private List<String> updatedColumns = List.of();
    /** The version an UPDATE's or row-level DELETE's scan read (0 = unknown); its commit is checked against later ones. */
    private long readVersion;
    /**
     * The pinned view of {@link #readVersion} the statement's scan took (null if it took none):
     * the sink's operators, writers and committer use its schema and field ids.
     */
    private TableSnapshot snapshot;
    /** Set for {@code INSERT OVERWRITE}. */
    private boolean overwrite;

    /**
     * @param table the Flink table's name, for messages
     * @param declared the physical columns the table declares
     * @param stored the Lance table's schema when the statement was planned
     * @param dataFormat the table's data storage version then, or null if unknown
     * @param stableRowIds whether the table used stable row ids then
     * @param newTable the table to create before the first write if the path holds none (then
     *     {@code stored}, {@code dataFormat} and {@code stableRowIds} describe it), else null
     */
    LanceDynamicTableSink(
            String table,
            LanceSinkConfig config,
            RowType declared,
            Schema stored,
            List<String> primaryKey,
            FileVersion dataFormat,
            boolean stableRowIds,
            CatalogSchemas.NewTable newTable) {
        this.newTable = newTable;
        this.dataFormat = dataFormat;
        this.stableRowIds = stableRowIds;
        this.table = table;
        this.config = config;
        this.declared = declared;
        this.stored = stored;
        this.primaryKey = List.copyOf(primaryKey);
    }

    /**
     * Inserts only, except for a table with a PRIMARY KEY fed by an updating query: then an upsert
     * changelog (with before-images when the query has them, so updates overlay only the changed
     * cells). An overwrite takes inserts only: its rows replace the table's, there is nothing to
     * update.
     *
     * <p>An insert-only query into a PRIMARY KEY table is declared insert-only too, although the
     * rows are still upserted by key (the runtime provider does not depend on this mode). Flink
     * 2.3's planner rejects an upsert sink whose input has no upsert key equal to the primary key
     * unless the INSERT carries an ON CONFLICT clause (FlinkChangelogModeInferenceProgram,
     * {@code table.exec.sink.require-on-conflict}); an insert-only input never has one. The sink
     * already resolves conflicts as {@code ON CONFLICT DO DEDUPLICATE} would (the last row to
     * arrive for a key wins, with no SinkUpsertMaterializer), so declaring insert-only lets the
     * plain {@code INSERT INTO t SELECT ...} plan. The cost: the planner then refuses an ON CONFLICT
     * clause on such an INSERT ("only allowed for upsert sinks"). Updating queries are unchanged:
     * keyed by the primary key they need no clause; keyed otherwise they need one, and
     * {@code DO DEDUPLICATE} puts Flink's SinkUpsertMaterializer in front (see the README).
     */
    @Override
    public ChangelogMode getChangelogMode(ChangelogMode requestedMode) {
        if (modification != null || primaryKey.isEmpty() || overwrite || requestedMode.containsOnly(RowKind.INSERT)) {
            return ChangelogMode.insertOnly();
        }
        return requestedMode.contains(RowKind.UPDATE_BEFORE) ? ChangelogMode.all() : ChangelogMode.upsert();
    }

    @Override
    public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
        return runtimeProvider(context);
    }

    /**
     * Chooses how rows reach the table: appends; upserts by primary key (updates become overlay
     * cells of the written columns, or rewritten rows); UPDATE statements (overlays of the SET
     * columns at the rows' addresses, or the planner's whole updated rows rewritten); row-level
     * DELETE statements (deletion vectors at the rows' addresses).
     */
    private SinkRuntimeProvider runtimeProvider(Context context) {
        if (modification == SupportsRowLevelModificationScan.RowLevelModificationType.UPDATE) {
            // Checked against the schema the statement's scan pinned, which its writers write by.
            LanceWriteSchemaCheck.check(
                    table,
                    config.uri(),
                    declared,
                    tableSchema(),
                    snapshot != null ? FileVersion.parse(snapshot.dataStorageVersion()) : dataFormat,
                    LanceWriteSchemaCheck.Statement.UPDATE,
                    updatedColumns);
            LanceSinkBuilder builder =
                    withDeclaredColumns(pinned(config.sinkBuilder().mode(LanceSinkMode.ROW_ADDRESS)));
            if (rewritesRows() && !partial()) {
                // The planner sends every column of the updated rows (applyRowLevelUpdate requires
                // them all), current values included: the rows are rewritten whole, nothing is read.
                return provider(builder);
            }
            // Only the SET columns are written: the declaration's other columns are the rows'
            // current values, and undeclared ones are not in the rows at all.
            return provider(builder.writtenColumns(updatedColumns.toArray(new String[0])));
        }
        if (modification == SupportsRowLevelModificationScan.RowLevelModificationType.DELETE) {
            return provider(pinned(config.sinkBuilder().mode(LanceSinkMode.DELETE_BY_ROW_ADDRESS)));
        }
        if (overwrite) {
            requireBoundedOverwrite(context);
            // Also for a PRIMARY KEY table: the old rows are all replaced, so no key is resolved
            // against them and the append topology writes the rows as they come.
            LanceWriteSchemaCheck.check(
                    table,
                    config.uri(),
                    declared,
                    stored,
                    dataFormat,
                    LanceWriteSchemaCheck.Statement.OVERWRITE,
                    declared.getFieldNames());
            createTableIfAbsent();
            return provider(withDeclaredColumns(config.sinkBuilder().overwrite(true)));
        }
        if (!primaryKey.isEmpty()) {
            Optional<String[]> target = targetColumns(context);
            LanceWriteSchemaCheck.check(
                    table,
                    config.uri(),
                    declared,
                    stored,
                    dataFormat,
                    LanceWriteSchemaCheck.Statement.UPSERT,
                    target.map(List::of).orElse(declared.getFieldNames()));
            rewritesRows();
            createTableIfAbsent();
            LanceSinkBuilder builder = withDeclaredColumns(
                    config.sinkBuilder().mode(LanceSinkMode.UPSERT).primaryKey(primaryKey.toArray(new String[0])));
            target.ifPresent(builder::writtenColumns);
            return provider(builder);
        }
        return appendProvider();
    }

    /** The statement's pinned view of the table, or at least its read version. */
    private LanceSinkBuilder pinned(LanceSinkBuilder builder) {
        return snapshot != null ? builder.snapshot(snapshot) : builder.readVersion(readVersion);
    }

    /** Whether the declaration is not every column of the table in its order. */
    private boolean partial() {
        return !declared.getFieldNames()
                .equals(tableSchema().getFields().stream().map(f -> f.getName()).toList());
    }

    /**
     * The table's schema as the statement sees it: an UPDATE's or row-level DELETE's pinned
     * snapshot's, else the latest version's when the statement was planned.
     */
    private Schema tableSchema() {
        return snapshot != null ? snapshot.schema().toArrow() : stored;
    }

    /** Tells the sink which columns the rows carry when they are not the table's (a partial declaration). */
    private LanceSinkBuilder withDeclaredColumns(LanceSinkBuilder builder) {
        return partial() ? builder.inputColumns(declared.getFieldNames().toArray(new String[0])) : builder;
    }

    /**
     * Creates the table the path did not hold when the statement was planned, before the job is
     * built (the sink's operators plan against the table's schema). Version 1 is published
     * put-if-absent: if another job created the table meanwhile, this one writes into it when
     * its columns are the declared ones and fails naming the difference otherwise.
     */
    private void createTableIfAbsent() {
        if (newTable == null) {
            return;
        }
        try {
            boolean created = CatalogSchemas.createIfAbsent(table, config.uri(), config.storageOptions(), newTable);
            LOG.info(
                    "{} the Lance table at {} for {} (data storage version {}, stable row ids {})",
                    created ? "Created" : "Another writer created",
                    config.uri(),
                    table,
                    newTable.fileVersion().label(),
                    newTable.stableRowIds());
        } catch (IllegalStateException e) {
            throw new ValidationException(e.getMessage(), e);
        } catch (IOException e) {
            throw new TableException(
                    "Cannot create the Lance table at '" + config.uri() + "' for " + table + " at its"
                            + " first write: " + e.getMessage(),
                    e);
        }
    }

    /**
     * True if updates are rewritten rows ({@code 'sink.update-mode' = 'rewrite-rows'}).
     *
     * @throws ValidationException if the table uses stable row ids, which that mode cannot keep
     */
    private boolean rewritesRows() {
        if (config.updateMode() != UpdateMode.REWRITE_ROWS) {
            return false;
        }
        if (snapshot != null ? snapshot.stableRowIds() : stableRowIds) {
            throw new ValidationException("Table " + table + " sets '" + LanceConnectorOptions.SINK_UPDATE_MODE.key()
                    + "' = '" + UpdateMode.REWRITE_ROWS.optionValue() + "', but the Lance table at '" + config.uri()
                    + "' uses stable row ids, which a rewritten row would not keep (Lance's own update keeps them)."
                    + " Use '" + UpdateMode.OVERLAY.optionValue() + "' for this table");
        }
        return true;
    }

    /** The INSERT's target column list ({@code INSERT INTO t (id, age) ...}), as names. */
    private Optional<String[]> targetColumns(Context context) {
        Optional<int[][]> target = context.getTargetColumns();
        if (target.isEmpty()) {
            return Optional.empty();
        }
        List<String> names = new ArrayList<>();
        for (int[] path : target.get()) {
            names.add(declared.getFieldNames().get(path[0]));
        }
        if (names.containsAll(declared.getFieldNames())) {
            return Optional.empty(); // every declared column: the same as no list
        }
        for (String key : primaryKey) {
            if (!names.contains(key)) {
                throw new ValidationException("INSERT INTO " + table + " must write the primary key column '" + key
                        + "' (the upsert sink finds rows by their key); target columns: " + names);
            }
        }
        return Optional.of(names.toArray(new String[0]));
    }

    private SinkRuntimeProvider provider(LanceSinkBuilder builder) {
        Integer parallelism = config.parallelism();
        return (DataStreamSinkProvider) (providerContext, rows) -> {
            if (parallelism != null) {
                builder.parallelism(parallelism);
            }
            return builder.sinkTo(rows);
        };
    }

    private SinkRuntimeProvider appendProvider() {
        // Checked here rather than in the factory so that a DELETE, which writes no rows, works on
        // any declaration.
        LanceWriteSchemaCheck.check(
                table,
                config.uri(),
                declared,
                stored,
                dataFormat,
                LanceWriteSchemaCheck.Statement.INSERT,
                declared.getFieldNames());
        createTableIfAbsent();
        // Not a SinkV2Provider: the planner sets no uid on a sink it wires itself, and Flink refuses
        // a sink whose pre-commit topology has uids (the aggregator's) when the sink has none.
        // sinkTo sets them all (suffix 'sink.uid-suffix', default derived from the path).
        return provider(withDeclaredColumns(config.sinkBuilder()));
    }

    // ---- INSERT OVERWRITE -----------------------------------------------------------------------

    /**
     * {@code INSERT OVERWRITE}. A Lance table has no partitions, so the whole content is replaced.
     * The planner calls this in streaming mode too; {@link #requireBoundedOverwrite} then refuses.
     */
    @Override
    public void applyOverwrite(boolean overwrite) {
        this.overwrite = overwrite;
    }

    /**
     * An overwrite is one commit at the end of a bounded input. In streaming mode the sink commits
     * per checkpoint, and each commit would replace the rows of the one before.
     */
    private void requireBoundedOverwrite(Context context) {
        if (!context.isBounded()) {
            throw new ValidationException("INSERT OVERWRITE into " + table + " needs batch execution: it replaces the"
                    + " table's content in one commit at the end of the job, while a streaming job commits per"
                    + " checkpoint and each commit would replace the rows of the one before. Run it with SET"
                    + " 'execution.runtime-mode' = 'batch', or use INSERT INTO to append");
        }
    }

    // ---- UPDATE and row-level DELETE ------------------------------------------------------------

    /**
     * UPDATE: the planner sends the updated rows with all columns plus their {@code _rowaddr}
     * (a metadata column the source reads, declared or not); the sink overlays just the SET
     * columns at those addresses. Updating a primary key column is refused: rows are found by
     * their key, and an overlay never moves a row.
     */
    @Override
    public RowLevelUpdateInfo applyRowLevelUpdate(List<Column> updated, RowLevelModificationScanContext scan) {
        List<String> names = new ArrayList<>();
        for (Column c : updated) {
            if (primaryKey.contains(c.getName())) {
                throw new ValidationException("UPDATE of " + table + " sets primary key column '" + c.getName()
                        + "'; a row's key cannot change (the upsert sink finds rows by it). Delete the row and"
                        + " insert it with the new key instead");
            }
            names.add(c.getName());
        }
        this.modification = SupportsRowLevelModificationScan.RowLevelModificationType.UPDATE;
        this.updatedColumns = List.copyOf(names);
        this.readVersion = readVersion(scan);
        this.snapshot = snapshot(scan);
        List<Column> required = new ArrayList<>();
        for (RowType.RowField f : declared.getFields()) {
            required.add(Column.physical(f.getName(), DataTypes.of(f.getType())));
        }
        required.add(rowAddressColumn());
        return new RowLevelUpdateInfo() {
            @Override
            public Optional<List<Column>> requiredColumns() {
                return Optional.of(required);
            }

            @Override
            public RowLevelUpdateMode getRowLevelUpdateMode() {
                return RowLevelUpdateMode.UPDATED_ROWS;
            }
        };
    }

    /** Row-level DELETE (a condition that cannot be pushed down): the rows' addresses become deletions. */
    @Override
    public RowLevelDeleteInfo applyRowLevelDelete(RowLevelModificationScanContext scan) {
        this.modification = SupportsRowLevelModificationScan.RowLevelModificationType.DELETE;
        this.readVersion = readVersion(scan);
        this.snapshot = snapshot(scan);
        Column address = rowAddressColumn();
        return new RowLevelDeleteInfo() {
            @Override
            public Optional<List<Column>> requiredColumns() {
                return Optional.of(List.of(address));
            }

            @Override
            public RowLevelDeleteMode getRowLevelDeleteMode() {
                return RowLevelDeleteMode.DELETED_ROWS;
            }
        };
    }

    /**
     * The version the statement's scan of this table read, as its {@link LanceModificationScanContext}
     * says (the planner scans the modified table before it calls the sink). Without one (a scan of
     * another connector's table replaced the context) the commit cannot be checked for concurrent
     * changes; the statement still runs, as before such checks existed, and says so in the log.
     */
    private long readVersion(RowLevelModificationScanContext scan) {
        OptionalLong v =
                scan instanceof LanceModificationScanContext c ? c.readVersion(config.uri()) : OptionalLong.empty();
        if (v.isEmpty()) {
            LOG.warn(
                    "The scan of {} ({}) did not report the version it read (context: {}); the {} commits without"
                            + " checking for concurrent changes to the rows it read",
                    table,
                    config.uri(),
                    scan,
                    modification);
            return 0;
        }
        return v.getAsLong();
    }

    /** The snapshot the statement's scan of this table pinned, or null. */
    private TableSnapshot snapshot(RowLevelModificationScanContext scan) {
        return scan instanceof LanceModificationScanContext c
                ? c.snapshot(config.uri()).orElse(null)
                : null;
    }

    private static Column rowAddressColumn() {
        return Column.metadata(ScanOptions.ROW_ADDRESS, DataTypes.BIGINT().notNull(), ScanOptions.ROW_ADDRESS, false);
    }

    // ---- DELETE push-down ---------------------------------------------------------------------

    @Override
    public boolean applyDeleteFilters(List<ResolvedExpression> filters) {
        List<Expr> parts = new ArrayList<>();
        Set<String> columns = Set.copyOf(declared.getFieldNames());
        for (ResolvedExpression f : filters) {
            Optional<Expr> tree = LanceFilterTranslator.translate(f, columns);
            if (tree.isEmpty()) {
                return notPushedDown(f);
            }
            parts.add(tree.get());
        }
        deleteFilter = parts.isEmpty() ? ALL_ROWS : LanceFilterTranslator.conjunction(parts);
        return true;
    }

    /**
     * A DELETE condition Lance cannot evaluate exactly like Flink: not pushed down, so the planner
     * runs the statement as a row-level DELETE (it reads the matching rows' {@code _rowaddr}
     * and this sink deletes those rows).
     */
    private boolean notPushedDown(ResolvedExpression condition) {
        return false;
    }

    /** The Lance filter a pushed-down DELETE runs with, as text, or empty before one was accepted. */
    Optional<String> deleteFilter() {
        return Optional.ofNullable(deleteFilter).map(ExprPrinter::sql);
    }

    @Override
    public Optional<Long> executeDeletion() {
        if (deleteFilter == null) {
            throw new IllegalStateException("executeDeletion() before applyDeleteFilters() accepted the filters");
        }
        if (newTable != null) {
            throw new ValidationException("DELETE FROM " + table + ": there is no Lance table at '" + config.uri()
                    + "' yet, so nothing to delete; an INSERT INTO creates the table at its first write");
        }
        try (Dataset latest = Dataset.open(config.uri(), config.storageOptions())) {
            Dataset after = latest.delete(deleteFilter, Map.of(), CommitOptions.defaults());
            return Optional.of(latest.countRows() - after.countRows());
        } catch (IOException | RuntimeException e) {
            throw new TableException(
                    "DELETE FROM " + table + " failed on the Lance table at '" + config.uri() + "' (Lance filter: "
                            + ExprPrinter.sql(deleteFilter) + "): " + e.getMessage(),
                    e);
        }
    }

    @Override
    public DynamicTableSink copy() {
        LanceDynamicTableSink c = new LanceDynamicTableSink(
                table, config, declared, stored, primaryKey, dataFormat, stableRowIds, newTable);
        c.deleteFilter = deleteFilter;
        c.modification = modification;
        c.updatedColumns = updatedColumns;
        c.readVersion = readVersion;
        c.snapshot = snapshot;
        c.overwrite = overwrite;
        return c;
    }

    @Override
    public String asSummaryString() {
        return "Lance(" + config.uri() + ")";
    }
}
