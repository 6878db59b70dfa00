package dev.lanceflink.flink.table;

import dev.lanceflink.expr.Expr;
import dev.lanceflink.expr.ExprPrinter;
import dev.lanceflink.flink.source.LanceSource;
import dev.lanceflink.flink.source.MetadataColumn;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.TableSnapshot;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.RowLevelModificationScanContext;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.SourceProvider;
import org.apache.flink.table.connector.source.abilities.SupportsFilterPushDown;
import org.apache.flink.table.connector.source.abilities.SupportsLimitPushDown;
import org.apache.flink.table.connector.source.abilities.SupportsProjectionPushDown;
import org.apache.flink.table.connector.source.abilities.SupportsReadingMetadata;
import org.apache.flink.table.connector.source.abilities.SupportsRowLevelModificationScan;
import org.apache.flink.table.expressions.ResolvedExpression;
import org.apache.flink.table.types.DataType;

/**
 * The scan side of a {@code 'connector' = 'lance'} table: a bounded read of one pinned version
 * (pinned by {@link LanceDynamicTableFactory} when the query is planned). Projection, filters and
 * limit are pushed into the fragment scans; {@code _rowaddr} is readable as metadata
 * ({@code addr BIGINT METADATA FROM '_rowaddr' VIRTUAL}): Lance's unsigned 64-bit address
 * {@code fragment_id << 32 | offset}, whose bits a BIGINT holds unchanged (negative only for
 * fragment ids of 2^31 and above). {@code _rowid} ({@code id BIGINT METADATA FROM '_rowid' VIRTUAL})
 * is Lance's row id: the stable id in a table with stable row ids (unchanged by compaction), else
 * the row address, as in Lance.
 *
 * <p>Filters are pushed down only where the scan's result equals Flink's on every row
 * ({@link LanceFilterTranslator}), as a typed expression tree the split readers evaluate; those
 * leave Flink's plan, the others stay ({@code 'scan.filter-push-down.enabled' = 'false'} keeps
 * them all). A LIMIT reaches the scan only when no filter stays with Flink.
 */
public final class LanceDynamicTableSource
        implements ScanTableSource,
                SupportsProjectionPushDown,
                SupportsFilterPushDown,
                SupportsLimitPushDown,
                SupportsReadingMetadata,
                SupportsRowLevelModificationScan {

    private final LanceTableConfig config;
    private final List<String> physicalColumns;
    private List<String> projectedColumns;
    private final List<Expr> filters = new ArrayList<>();
    private long limit = -1;
    private List<String> metadataKeys = List.of();
    /**
     * The version the scan reads, as the factory read it when the statement was planned (null if
     * not given): the scan's splits and the statement's {@link TableSnapshot} come from it, so
     * planning reads the table once.
     */
    private final Manifest pinned;

    LanceDynamicTableSource(LanceTableConfig config, List<String> physicalColumns) {
        this(config, physicalColumns, null);
    }

    LanceDynamicTableSource(LanceTableConfig config, List<String> physicalColumns, Manifest pinned) {
        if (pinned != null && pinned.version() != config.version()) {
            throw new IllegalArgumentException(
                    "Pinned version " + pinned.version() + " is not the scanned " + config.version());
        }
        this.config = config;
        this.physicalColumns = List.copyOf(physicalColumns);
        this.projectedColumns = this.physicalColumns;
        this.pinned = pinned;
    }

    @Override
    public ChangelogMode getChangelogMode() {
        return ChangelogMode.insertOnly();
    }

    @Override
    public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
        LanceSource.Builder b = LanceSource.builder(config.uri())
                .storageOptions(config.storageOptions())
                .version(config.version())
                .columns(projectedColumns)
                .limit(limit)
                .metadataColumns(metadataKeys)
                .batchSize(config.batchSize())
                .rowsPerSplit(config.rowsPerSplit());
        if (pinned != null) {
            b.pinned(pinned);
        }
        if (!filters.isEmpty()) {
            b.filter(LanceFilterTranslator.conjunction(filters));
        }
        return SourceProvider.of(b.build());
    }

    /** The pushed-down filter as text (for tests and messages), or empty. */
    Optional<String> pushedFilter() {
        return filters.isEmpty()
                ? Optional.empty()
                : Optional.of(ExprPrinter.sql(LanceFilterTranslator.conjunction(filters)));
    }

    @Override
    public DynamicTableSource copy() {
        LanceDynamicTableSource c = new LanceDynamicTableSource(config, physicalColumns, pinned);
        c.projectedColumns = projectedColumns;
        c.filters.addAll(filters);
        c.limit = limit;
        c.metadataKeys = metadataKeys;
        return c;
    }

    @Override
    public String asSummaryString() {
        return "Lance(" + config.uri() + "@v" + config.version() + ")";
    }

    // ---- projection ---------------------------------------------------------------------------

    @Override
    public boolean supportsNestedProjection() {
        return false;
    }

    @Override
    public void applyProjection(int[][] projectedFields, DataType producedDataType) {
        List<String> out = new ArrayList<>();
        for (int[] path : projectedFields) {
            out.add(physicalColumns.get(path[0]));
        }
        projectedColumns = List.copyOf(out);
    }

    // ---- filters ------------------------------------------------------------------------------

    @Override
    public Result applyFilters(List<ResolvedExpression> expressions) {
        List<ResolvedExpression> accepted = new ArrayList<>();
        List<ResolvedExpression> remaining = new ArrayList<>();
        Set<String> columns = Set.copyOf(physicalColumns);
        for (ResolvedExpression e : expressions) {
            Optional<Expr> tree =
                    config.filterPushDown() ? LanceFilterTranslator.translate(e, columns) : Optional.empty();
            if (tree.isPresent()) {
                filters.add(tree.get());
                accepted.add(e);
            } else {
                remaining.add(e);
            }
        }
        return Result.of(accepted, remaining);
    }

    // ---- limit --------------------------------------------------------------------------------

    @Override
    public void applyLimit(long rows) {
        this.limit = rows;
    }

    // ---- UPDATE and row-level DELETE ------------------------------------------------------------

    /**
     * The scan of an {@code UPDATE} or row-level {@code DELETE} reads the version pinned when the
     * statement was planned; the returned context tells the sink which one and carries its
     * {@link TableSnapshot} (schema, field ids), so that the sink writes by that schema and its
     * commit fails on conflicting changes committed since ({@link LanceModificationScanContext}).
     *
     * <p>A time-travel scan ({@code 'version'} / {@code 'as-of'}) adds nothing: it can only be
     * another table of the statement (a time-travel table cannot be modified, its sink refuses),
     * and it reads the old version by request. A context of another connector (a statement that
     * also scans such a table) is passed on unchanged, as it belongs to that connector's sink.
     */
    @Override
    public RowLevelModificationScanContext applyRowLevelModificationScan(
            RowLevelModificationType type, RowLevelModificationScanContext previous) {
        if (config.timeTravel() || (previous != null && !(previous instanceof LanceModificationScanContext))) {
            return previous;
        }
        return LanceModificationScanContext.after(
                (LanceModificationScanContext) previous,
                config.uri(),
                config.version(),
                pinned == null ? null : TableSnapshot.of(pinned));
    }

    // ---- metadata -----------------------------------------------------------------------------

    @Override
    public Map<String, DataType> listReadableMetadata() {
        Map<String, DataType> m = new LinkedHashMap<>();
        m.put(ScanOptions.ROW_ADDRESS, DataTypes.BIGINT().notNull());
        m.put(MetadataColumn.ROW_ID.key(), DataTypes.BIGINT().notNull());
        return m;
    }

    @Override
    public void applyReadableMetadata(List<String> keys, DataType producedDataType) {
        this.metadataKeys = List.copyOf(keys);
    }
}
