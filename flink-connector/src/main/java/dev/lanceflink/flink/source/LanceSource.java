package dev.lanceflink.flink.source;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.expr.Expr;
import dev.lanceflink.expr.ExprParser;
import dev.lanceflink.expr.ExprPrinter;
import dev.lanceflink.expr.PredicateEvaluator;
import dev.lanceflink.flink.source.enumerator.LanceEnumeratorState;
import dev.lanceflink.flink.source.enumerator.LanceEnumeratorStateSerializer;
import dev.lanceflink.flink.source.enumerator.LanceSplitEnumerator;
import dev.lanceflink.flink.source.enumerator.LanceSplitPlanner;
import dev.lanceflink.flink.source.reader.LanceSourceReader;
import dev.lanceflink.flink.source.split.LanceSplit;
import dev.lanceflink.flink.source.split.LanceSplitSerializer;
import dev.lanceflink.flink.types.LanceTypeMapping;
import dev.lanceflink.schema.LanceField;
import dev.lanceflink.schema.LanceSchema;
import dev.lanceflink.table.Manifest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.RowType;

/**
 * A bounded FLIP-27 source of one Lance table version, emitting {@link RowData}.
 *
 * <p>The version is pinned when the source is built (latest, a version number, or the version
 * current at an instant), and the splits (fragment row ranges) are planned then, so every reader
 * and every restore reads the same snapshot. Projection, filter and limit are pushed into the
 * fragment scans. Rows are {@code ColumnarRowData} views over Arrow batches: a row object is
 * reused for the next row, as in Flink's own vectorized formats.
 *
 * <p>DataStream use: {@code env.fromSource(source, WatermarkStrategy.noWatermarks(), "lance",
 * InternalTypeInfo.of(source.producedRowType()))}.
 */
public final class LanceSource implements Source<RowData, LanceSplit, LanceEnumeratorState> {
    private static final long serialVersionUID = 1L;
    /** Default rows per split: large enough to amortize opening a fragment, small enough to balance. */
    public static final long DEFAULT_ROWS_PER_SPLIT = 1L << 20;

    private final LanceReadSpec spec;
    private final long version;
    private final RowType producedRowType;
    private final List<LanceSplit> splits;

    private LanceSource(LanceReadSpec spec, long version, RowType producedRowType, List<LanceSplit> splits) {
        this.spec = spec;
        this.version = version;
        this.producedRowType = producedRowType;
        this.splits = List.copyOf(splits);
    }

    public static Builder builder(String uri) {
        return new Builder(uri);
    }

    /** The table version this source reads. */
    public long version() {
        return version;
    }

    /** The type of the emitted rows: the chosen columns, then each metadata column asked for, as {@code BIGINT NOT NULL}. */
    public RowType producedRowType() {
        return producedRowType;
    }

    public LanceReadSpec spec() {
        return spec;
    }

    /** The splits planned at build time. */
    public List<LanceSplit> splits() {
        return splits;
    }

    @Override
    public Boundedness getBoundedness() {
        return Boundedness.BOUNDED;
    }

    @Override
    public SourceReader<RowData, LanceSplit> createReader(SourceReaderContext readerContext) {
        return new LanceSourceReader(spec, readerContext);
    }

    @Override
    public SplitEnumerator<LanceSplit, LanceEnumeratorState> createEnumerator(
            SplitEnumeratorContext<LanceSplit> context) {
        return new LanceSplitEnumerator(context, splits);
    }

    @Override
    public SplitEnumerator<LanceSplit, LanceEnumeratorState> restoreEnumerator(
            SplitEnumeratorContext<LanceSplit> context, LanceEnumeratorState checkpoint) {
        return new LanceSplitEnumerator(context, checkpoint.pendingSplits());
    }

    @Override
    public SimpleVersionedSerializer<LanceSplit> getSplitSerializer() {
        return LanceSplitSerializer.INSTANCE;
    }

    @Override
    public SimpleVersionedSerializer<LanceEnumeratorState> getEnumeratorCheckpointSerializer() {
        return new LanceEnumeratorStateSerializer();
    }

    /** Builds a {@link LanceSource}; {@link #build()} opens the table to pin the version and plan splits. */
    public static final class Builder {
        private final String uri;
        private Map<String, String> storageOptions = Map.of();
        private Long version;
        private Instant asOf;
        private List<String> columns;
        private String filterText;
        private Expr filter;
        private long limit = -1;
        private List<MetadataColumn> metadataColumns = List.of();
        private int batchSize = 8192;
        private long rowsPerSplit = DEFAULT_ROWS_PER_SPLIT;
        private Manifest pinned;

        private Builder(String uri) {
            this.uri = uri;
        }

        public Builder storageOptions(Map<String, String> options) {
            this.storageOptions = Map.copyOf(options);
            return this;
        }

        /** Reads this version (time travel); exclusive with {@link #asOf}. Default: the latest. */
        public Builder version(long v) {
            this.version = v;
            return this;
        }

        /** Reads the newest version committed at or before {@code instant}; exclusive with {@link #version}. */
        public Builder asOf(Instant instant) {
            this.asOf = instant;
            return this;
        }

        /** Top-level columns in output order; default all. */
        public Builder columns(List<String> names) {
            this.columns = names == null ? null : List.copyOf(names);
            return this;
        }

        /**
         * SQL filter in {@code ExprParser} syntax, e.g. {@code "id > 10 AND name IS NOT NULL"}
         * (null or blank: all rows); replaces an earlier filter.
         */
        public Builder filter(String sql) {
            this.filterText = sql == null || sql.isBlank() ? null : sql;
            this.filter = null;
            return this;
        }

        /** A filter built as a tree (as the SQL planner pushes it down); replaces an earlier filter. */
        public Builder filter(Expr tree) {
            this.filter = tree;
            this.filterText = null;
            return this;
        }

        /** Rows each split may stop after (-1 = no limit); the total is not bounded by this. */
        public Builder limit(long rows) {
            this.limit = rows;
            return this;
        }

        /** Appends {@code _rowaddr} (or stops appending it); same as naming it in {@link #metadataColumns}. */
        public Builder withRowAddress(boolean b) {
            List<MetadataColumn> out = new ArrayList<>(metadataColumns);
            out.remove(MetadataColumn.ROW_ADDRESS);
            if (b) {
                out.add(MetadataColumn.ROW_ADDRESS);
            }
            this.metadataColumns = List.copyOf(out);
            return this;
        }

        /**
         * Metadata columns to append after the table's columns, in this order, by their Lance
         * names ({@code _rowaddr}, {@code _rowid}); replaces earlier choices.
         */
        public Builder metadataColumns(List<String> keys) {
            List<MetadataColumn> out = new ArrayList<>();
            for (String k : keys) {
                MetadataColumn c = MetadataColumn.requireKey(k);
                if (out.contains(c)) {
                    throw new IllegalArgumentException("Metadata column '" + k + "' is asked for twice: " + keys);
                }
                out.add(c);
            }
            this.metadataColumns = List.copyOf(out);
            return this;
        }

        public Builder batchSize(int rows) {
            this.batchSize = rows;
            return this;
        }

        public Builder rowsPerSplit(long rows) {
            this.rowsPerSplit = rows;
            return this;
        }

        /**
         * Reads {@code manifest}'s version, already read by the caller (e.g. when a statement was
         * planned), instead of opening the table again; the version set must be the manifest's.
         */
        public Builder pinned(Manifest manifest) {
            this.pinned = manifest;
            return this;
        }

        /**
         * Opens the table, pins the version, checks the columns and the filter, plans the splits.
         *
         * @throws UncheckedIOException if the table cannot be read
         * @throws IllegalArgumentException for unknown columns, a bad filter or conflicting options
         */
        public LanceSource build() {
            if (version != null && asOf != null) {
                throw new IllegalArgumentException("Both a version (" + version + ") and an as-of time (" + asOf
                        + ") are set for " + uri + "; time travel takes one of them");
            }
            if (pinned != null) {
                if (asOf != null || (version != null && version != pinned.version())) {
                    throw new IllegalArgumentException("The pinned version " + pinned.version() + " of " + uri
                            + " is not the one asked for (" + (asOf != null ? "as of " + asOf : version) + ")");
                }
                return build(pinned);
            }
            try (Dataset latest = Dataset.open(uri, storageOptions)) {
                Dataset at = version != null
                        ? (version == latest.version() ? latest : latest.checkoutVersion(version))
                        : asOf != null ? latest.checkoutAsOf(asOf) : latest;
                return build(at.manifest());
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot open the Lance table at " + uri + ": " + e.getMessage(), e);
            }
        }

        private LanceSource build(Manifest at) {
            LanceSchema schema = at.schema();
            List<String> names = columns != null
                    ? columns
                    : schema.fields().stream().map(LanceField::name).toList();
            List<RowType.RowField> fields = new ArrayList<>();
            for (String n : names) {
                LanceField f = schema.fieldByName(n)
                        .orElseThrow(() -> new IllegalArgumentException("Column '"
                                + n + "' does not exist at version " + at.version() + " of " + uri + "; it has: "
                                + schema.fields().stream().map(LanceField::name).toList()));
                fields.add(new RowType.RowField(n, LanceTypeMapping.toLogicalType(n, f.toArrow())));
            }
            for (MetadataColumn c : metadataColumns) {
                fields.add(new RowType.RowField(c.key(), new BigIntType(false)));
            }
            Expr rows = filterText != null ? ExprParser.parse(filterText) : filter;
            if (rows != null) {
                for (String c : PredicateEvaluator.referencedColumns(rows)) {
                    if (schema.fieldByName(c).isEmpty()) {
                        throw new IllegalArgumentException(
                                "Filter \"" + (filterText != null ? filterText : ExprPrinter.sql(rows))
                                        + "\" refers to column '" + c + "', which version "
                                        + at.version() + " of " + uri + " does not have");
                    }
                }
            }
            LanceReadSpec spec = new LanceReadSpec(uri, storageOptions, names, rows, limit, metadataColumns, batchSize);
            return new LanceSource(
                    spec,
                    at.version(),
                    new RowType(false, fields),
                    LanceSplitPlanner.plan(at.version(), at.fragments(), rowsPerSplit));
        }
    }
}
