package dev.lanceflink.flink.sink;

import dev.lanceflink.committer.core.TableLocation;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.flink.types.LanceTypeMapping;
import dev.lanceflink.schema.ColumnSet;
import dev.lanceflink.table.TableSnapshot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeFamily;
import org.apache.flink.table.types.logical.RowType;

/**
 * Checks made while the upsert and row-address sinks are wired, against the table's schema: so a
 * wrong key or column name fails when the job is built, naming the column, not at run time.
 */
final class ChangeSinkPlan {
    private ChangeSinkPlan() {}

    /**
     * The table's columns as Flink reads them: those of the statement's pinned {@code snapshot}, or
     * of the latest version if there is none.
     */
    static RowType tableColumns(TableLocation table, TableSnapshot snapshot) {
        return snapshot != null ? LanceTypeMapping.toRowType(snapshot.schema().toArrow()) : tableColumns(table);
    }

    /** Refuses update mode rewrite-rows for a table it cannot serve, as of {@code snapshot} if there is one. */
    static void requireRewritableRows(TableLocation table, TableSnapshot snapshot) {
        if (snapshot != null) {
            RewriteRowsCheck.requireNoStableRowIds(snapshot.stableRowIds(), table.toString());
        } else {
            requireRewritableRows(table);
        }
    }

    /** The table's columns as Flink reads them. */
    static RowType tableColumns(TableLocation table) {
        try (Dataset ds = Dataset.open(table.uri(), table.storageOptions())) {
            return LanceTypeMapping.toRowType(ds.schema().toArrow());
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "Cannot open the Lance table " + table + " to plan the sink: " + e.getMessage()
                            + ". The sink writes to an existing table; create it first",
                    e);
        }
    }

    /** Refuses update mode rewrite-rows for a table it cannot serve (see {@link RewriteRowsCheck}). */
    static void requireRewritableRows(TableLocation table) {
        try (Dataset ds = Dataset.open(table.uri(), table.storageOptions())) {
            RewriteRowsCheck.requireNoStableRowIds(ds.manifest(), table.toString());
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "Cannot open the Lance table " + table + " to plan the sink: " + e.getMessage(), e);
        }
    }

    static int[] keyPositions(TableLocation table, RowType rowType, List<String> primaryKey) {
        if (primaryKey.isEmpty()) {
            throw new IllegalArgumentException("The UPSERT mode needs a primary key: call primaryKey(\"col\", ...)"
                    + " (columns of " + table + ": " + rowType.getFieldNames() + ")");
        }
        int[] out = new int[primaryKey.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = position(table, rowType, primaryKey.get(i), "primary key");
            LogicalType t = rowType.getTypeAt(out[i]);
            if (!t.is(LogicalTypeFamily.PREDEFINED) || t.is(LogicalTypeFamily.COLLECTION)) {
                throw new IllegalArgumentException("Primary key column '" + primaryKey.get(i) + "' of " + table
                        + " has type " + t + "; a key column must be of an atomic type");
            }
            for (int j = 0; j < i; j++) {
                if (out[j] == out[i]) {
                    throw new IllegalArgumentException("Primary key column '" + primaryKey.get(i) + "' is named twice");
                }
            }
        }
        return out;
    }

    /** The positions of the written {@code columns}; all of the table's when null. */
    static ColumnSet writtenColumns(TableLocation table, RowType rowType, List<String> columns) {
        if (columns == null) {
            return ColumnSet.firstColumns(rowType.getFieldCount());
        }
        if (columns.isEmpty()) {
            throw new IllegalArgumentException("writtenColumns must name at least one column of " + table);
        }
        ColumnSet.Builder written = ColumnSet.builder();
        for (String c : columns) {
            written.add(position(table, rowType, c, "written"));
        }
        return written.build();
    }

    static void checkKeyIsWritten(TableLocation table, RowType rowType, int[] keys, ColumnSet written) {
        for (int k : keys) {
            if (!written.contains(k)) {
                throw new IllegalArgumentException("The written columns must include the primary key column '"
                        + rowType.getFieldNames().get(k) + "' of " + table);
            }
        }
    }

    /**
     * The stream as the change sink's operators read it: unchanged if its declared row type reads
     * like the table's ({@link InputRowAdapter#between}), else through an {@link InputRowAdapter}
     * (timestamps declared at another precision than the column's unit). {@code extra} names the
     * trailing fields beyond the table's columns (e.g. {@code _rowaddr}), passed on as they are.
     *
     * @throws IllegalArgumentException naming the column if a declared type does not fit it
     */
    static DataStream<RowData> adaptInput(
            TableLocation table, RowType rowType, DataStream<RowData> rows, List<String> extra, String uidSuffix) {
        if (!(rows.getType() instanceof InternalTypeInfo<RowData> internal)
                || !(internal.toLogicalType() instanceof RowType in)) {
            return rows;
        }
        int expected = rowType.getFieldCount() + extra.size();
        if (in.getFieldCount() != expected) {
            List<String> names = new ArrayList<>(rowType.getFieldNames());
            names.addAll(extra);
            throw new IllegalArgumentException("The stream's rows have " + in.getFieldCount() + " fields " + in
                    + ", but the sink into " + table + " expects " + expected + ": " + names);
        }
        List<RowType.RowField> fields = new ArrayList<>(rowType.getFields());
        for (int k = 0; k < extra.size(); k++) {
            fields.add(new RowType.RowField(extra.get(k), in.getTypeAt(rowType.getFieldCount() + k)));
        }
        RowType target = new RowType(fields);
        Optional<InputRowAdapter> adapter = InputRowAdapter.between(in, target, table.toString());
        if (adapter.isEmpty()) {
            return rows;
        }
        SingleOutputStreamOperator<RowData> adapted = rows.map(adapter.get(), InternalTypeInfo.of(target))
                .uid("lance-input-types-" + uidSuffix)
                .name("Lance input types");
        if (rows.getParallelism() > 0) {
            adapted.setParallelism(rows.getParallelism()); // chains to the input: no extra serialization
        }
        return adapted;
    }

    private static int position(TableLocation table, RowType rowType, String name, String what) {
        int p = rowType.getFieldNames().indexOf(name);
        if (p < 0) {
            throw new IllegalArgumentException("The " + what + " column '" + name + "' is not a column of " + table
                    + " (columns: " + rowType.getFieldNames() + ")");
        }
        return p;
    }
}
