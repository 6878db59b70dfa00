package dev.lanceflink.flink.sink.writer;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.flink.types.LanceTypeMapping;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

/**
 * Appends Flink {@link RowData} rows to an Arrow batch laid out by the table's schema. Each column
 * gets an {@link ArrowValueWriter} built once from two types: the type the rows DECLARE (the
 * sink's input row type) and the type the table STORES. The declared type decides how a cell is
 * read (a {@code BinaryRowData} lays out TIMESTAMP(3) as epoch milliseconds, TIMESTAMP(6) as
 * milliseconds plus nanoseconds), the stored one how it is written (e.g. microseconds). Atomic
 * cells are read with primitive getters and stored without boxing; ROW, ARRAY and MAP values are
 * written recursively into struct, list/fixed-size-list and map vectors.
 *
 * <p>A NULL in a NOT NULL column and a row of the wrong width are rejected with the column's name,
 * before anything of the row is kept. Problems found inside a value (a NULL in a NOT NULL nested
 * field, a NULL map key, a vector of the wrong size) are also reported with the field's path; the
 * batch stays usable: the refused row is not counted, and the next row overwrites what it left.
 *
 * <p>Note that the Lance file writer of this connector does not encode MAP columns: they are
 * converted here, but a data file holding them is refused when it is written.
 */
public final class RowDataToArrow implements AutoCloseable {
    private final String table;
    private final VectorSchemaRoot root;
    private final ArrowValueWriter[] writers;
    private final boolean[] nullable;
    private final String[] names;
    private int rows;

    /**
     * A converter for rows whose types are the ones the table's Arrow types read as in Flink
     * ({@link LanceTypeMapping#toLogicalType}), e.g. TIMESTAMP(6) for a microsecond column. Use
     * {@link #RowDataToArrow(Schema, RowType, BufferAllocator, String)} when the rows' declared
     * types are known.
     */
    public RowDataToArrow(Schema schema, BufferAllocator allocator, String table) {
        this(schema, null, allocator, table);
    }

    /**
     * @param schema the table's Arrow schema (the batch's layout)
     * @param inputType the declared type of the rows, one field per column in the table's order;
     *     null to derive it from the schema (see {@link #RowDataToArrow(Schema, BufferAllocator, String)})
     * @param table the table, for messages
     * @throws IllegalArgumentException naming the column if a declared type cannot be stored in
     *     its column unchanged, or the row type has another number of fields
     */
    public RowDataToArrow(Schema schema, RowType inputType, BufferAllocator allocator, String table) {
        this.table = requireNonNull(table, "table is null");
        List<Field> fields = schema.getFields();
        if (inputType != null && inputType.getFieldCount() != fields.size()) {
            throw new IllegalArgumentException(
                    "The rows for " + table + " are declared with " + inputType.getFieldCount()
                            + " fields " + inputType + ", but the table has " + fields.size() + " columns "
                            + schema.getFields().stream().map(Field::getName).toList() + "; write exactly the table's"
                            + " columns, in its order");
        }
        this.root = VectorSchemaRoot.create(schema, allocator);
        try {
            this.writers = new ArrowValueWriter[fields.size()];
            this.nullable = new boolean[fields.size()];
            this.names = new String[fields.size()];
            for (int i = 0; i < fields.size(); i++) {
                Field f = fields.get(i);
                LogicalType declared = inputType != null ? inputType.getTypeAt(i) : null;
                writers[i] = ArrowValueWriter.forColumn(
                        ArrowValueWriter.Target.of(table, f.getName(), f, root.getVector(i)), declared);
                nullable[i] = f.isNullable();
                names[i] = f.getName();
            }
            root.allocateNew();
        } catch (RuntimeException e) {
            root.close();
            throw e;
        }
    }

    /** Appends one row. */
    public void append(RowData row) {
        if (row.getArity() != writers.length) {
            throw new IllegalArgumentException("A record for " + table + " has " + row.getArity() + " fields, but the"
                    + " table has " + writers.length + " columns " + List.of(names) + "; write exactly the table's"
                    + " columns, in its order");
        }
        for (int pos = 0; pos < writers.length; pos++) {
            if (!nullable[pos] && row.isNullAt(pos)) {
                throw new IllegalArgumentException("Column '" + names[pos] + "' of " + table + " is NOT NULL, but a"
                        + " record has NULL in it (field " + pos + "); filter or fill such records before the sink");
            }
        }
        for (int pos = 0; pos < writers.length; pos++) {
            writers[pos].field(row, pos, rows);
        }
        rows++;
    }

    public int rowCount() {
        return rows;
    }

    /** The rows appended since the last {@link #reset()}; valid until then. */
    public VectorSchemaRoot batch() {
        root.setRowCount(rows);
        return root;
    }

    /** Drops the rows, keeping the vectors for the next batch. */
    public void reset() {
        // Zero the vectors in place: they keep the capacity the last batch grew them to, instead
        // of freeing and reallocating direct memory for every batch.
        for (FieldVector v : root.getFieldVectors()) {
            v.reset();
        }
        root.setRowCount(0);
        rows = 0;
    }

    @Override
    public void close() {
        root.close();
    }
}
