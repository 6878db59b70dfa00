package dev.lanceflink.flink.sink.writer;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;

/**
 * Appends Flink {@link RowData} rows to an Arrow batch laid out by the table's schema. Each column
 * has a writer chosen once from its Arrow type, which reads the cell with the matching primitive
 * getter and stores it without boxing. A NULL in a NOT NULL column and a row of the wrong width
 * are rejected with the column's name, before anything of the row is kept.
 */
public final class RowDataToArrow implements AutoCloseable {
    private final String table;
    private final VectorSchemaRoot root;
    private final ColumnWriter[] writers;
    private final boolean[] nullable;
    private final String[] names;
    private int rows;

    /** Writes one cell of a column; {@code pos} is the field position in the row, {@code index} the batch row. */
    @FunctionalInterface
    private interface ColumnWriter {
        void write(RowData row, int pos, int index);
    }

    public RowDataToArrow(Schema schema, BufferAllocator allocator, String table) {
        this.table = requireNonNull(table, "table is null");
        this.root = VectorSchemaRoot.create(schema, allocator);
        List<Field> fields = schema.getFields();
        this.writers = new ColumnWriter[fields.size()];
        this.nullable = new boolean[fields.size()];
        this.names = new String[fields.size()];
        for (int i = 0; i < fields.size(); i++) {
            writers[i] = writerFor(fields.get(i), root.getVector(i));
            nullable[i] = fields.get(i).isNullable();
            names[i] = fields.get(i).getName();
        }
        root.allocateNew();
    }

    /** Appends one row. */
    public void append(RowData row) {
        if (row.getArity() != writers.length) {
            throw new IllegalArgumentException("A record for " + table + " has " + row.getArity() + " fields, but the"
                    + " table has " + writers.length + " columns " + List.of(names) + "; write exactly the table's"
                    + " columns, in its order");
        }
        for (int pos = 0; pos < writers.length; pos++) {
            if (row.isNullAt(pos) && !nullable[pos]) {
                throw new IllegalArgumentException("Column '" + names[pos] + "' of " + table + " is NOT NULL, but a"
                        + " record has NULL in it (field " + pos + "); filter or fill such records before the sink");
            }
        }
        for (int pos = 0; pos < writers.length; pos++) {
            if (row.isNullAt(pos)) {
                root.getVector(pos).setNull(rows);
            } else {
                writers[pos].write(row, pos, rows);
            }
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
        root.allocateNew();
        rows = 0;
    }

    @Override
    public void close() {
        root.close();
    }

    private ColumnWriter writerFor(Field field, FieldVector vector) {
        ArrowType type = field.getType();
        if (vector instanceof TinyIntVector v) {
            return (row, pos, i) -> v.setSafe(i, row.getByte(pos));
        } else if (vector instanceof SmallIntVector v) {
            return (row, pos, i) -> v.setSafe(i, row.getShort(pos));
        } else if (vector instanceof IntVector v) {
            return (row, pos, i) -> v.setSafe(i, row.getInt(pos));
        } else if (vector instanceof BigIntVector v) {
            return (row, pos, i) -> v.setSafe(i, row.getLong(pos));
        } else if (vector instanceof Float4Vector v) {
            return (row, pos, i) -> v.setSafe(i, row.getFloat(pos));
        } else if (vector instanceof Float8Vector v) {
            return (row, pos, i) -> v.setSafe(i, row.getDouble(pos));
        } else if (vector instanceof BitVector v) {
            return (row, pos, i) -> v.setSafe(i, row.getBoolean(pos) ? 1 : 0);
        } else if (vector instanceof DateDayVector v) {
            return (row, pos, i) -> v.setSafe(i, row.getInt(pos));
        } else if (vector instanceof VarCharVector v) {
            return (row, pos, i) -> v.setSafe(i, row.getString(pos).toBytes());
        } else if (vector instanceof LargeVarCharVector v) {
            return (row, pos, i) -> v.setSafe(i, row.getString(pos).toBytes());
        } else if (vector instanceof VarBinaryVector v) {
            return (row, pos, i) -> v.setSafe(i, row.getBinary(pos));
        } else if (vector instanceof LargeVarBinaryVector v) {
            return (row, pos, i) -> v.setSafe(i, row.getBinary(pos));
        } else if (vector instanceof DecimalVector v) {
            ArrowType.Decimal d = (ArrowType.Decimal) type;
            return (row, pos, i) -> v.setSafe(i, row.getDecimal(pos, d.getPrecision(), d.getScale()).toBigDecimal());
        } else if (vector instanceof TimeStampVector v) {
            return timestampWriter(v, (ArrowType.Timestamp) type);
        } else if (vector instanceof FixedSizeListVector v) {
            return vectorWriter(field.getName(), v);
        } else if (vector instanceof ListVector v) {
            return listWriter(field.getName(), v);
        }
        throw new IllegalArgumentException("Column '" + field.getName() + "' of " + table + " has Arrow type " + type
                + ", which the Lance sink does not convert from Flink RowData. Supported: TINYINT, SMALLINT, INT,"
                + " BIGINT, FLOAT, DOUBLE, BOOLEAN, DATE, STRING, BYTES, DECIMAL, TIMESTAMP, and ARRAY/vectors of the"
                + " atomic ones");
    }

    /** Writes element {@code j} of an array into child slot {@code index}. */
    @FunctionalInterface
    private interface ElementWriter {
        void write(ArrayData array, int j, int index);
    }

    /**
     * A fixed-size list (a vector, e.g. an embedding): the array must have exactly the list size;
     * its elements go to the child at {@code row * size + j} without boxing.
     */
    private ColumnWriter vectorWriter(String column, FixedSizeListVector v) {
        int size = v.getListSize();
        FieldVector child = v.getDataVector();
        ElementWriter elements = elementWriter(column, child);
        boolean childNullable = child.getField().isNullable();
        return (row, pos, i) -> {
            ArrayData a = row.getArray(pos);
            if (a.size() != size) {
                throw new IllegalArgumentException("Column '" + column + "' of " + table + " holds vectors of " + size
                        + " values, but a record has " + a.size() + " (field " + pos + "); every vector of the column"
                        + " must have exactly " + size);
            }
            v.setNotNull(i);
            int base = i * size;
            for (int j = 0; j < size; j++) {
                if (a.isNullAt(j)) {
                    requireNullableElement(column, childNullable, pos);
                    setNullSafe(child, base + j);
                } else {
                    elements.write(a, j, base + j);
                }
            }
        };
    }

    /** A variable-size list: elements appended to the child after the previous row's. */
    private ColumnWriter listWriter(String column, ListVector v) {
        FieldVector child = v.getDataVector();
        ElementWriter elements = elementWriter(column, child);
        boolean childNullable = child.getField().isNullable();
        return (row, pos, i) -> {
            ArrayData a = row.getArray(pos);
            int start = v.startNewValue(i);
            for (int j = 0; j < a.size(); j++) {
                if (a.isNullAt(j)) {
                    requireNullableElement(column, childNullable, pos);
                    setNullSafe(child, start + j);
                } else {
                    elements.write(a, j, start + j);
                }
            }
            v.endValue(i, a.size());
        };
    }

    private void requireNullableElement(String column, boolean nullable, int pos) {
        if (!nullable) {
            throw new IllegalArgumentException("Column '" + column + "' of " + table + " has NOT NULL elements, but a"
                    + " record has a NULL element in it (field " + pos + ")");
        }
    }

    private static void setNullSafe(FieldVector child, int index) {
        while (index >= child.getValueCapacity()) {
            child.reAlloc();
        }
        child.setNull(index);
    }

    private ElementWriter elementWriter(String column, FieldVector child) {
        if (child instanceof Float4Vector c) {
            return (a, j, k) -> c.setSafe(k, a.getFloat(j));
        } else if (child instanceof Float8Vector c) {
            return (a, j, k) -> c.setSafe(k, a.getDouble(j));
        } else if (child instanceof IntVector c) {
            return (a, j, k) -> c.setSafe(k, a.getInt(j));
        } else if (child instanceof BigIntVector c) {
            return (a, j, k) -> c.setSafe(k, a.getLong(j));
        } else if (child instanceof SmallIntVector c) {
            return (a, j, k) -> c.setSafe(k, a.getShort(j));
        } else if (child instanceof TinyIntVector c) {
            return (a, j, k) -> c.setSafe(k, a.getByte(j));
        } else if (child instanceof BitVector c) {
            return (a, j, k) -> c.setSafe(k, a.getBoolean(j) ? 1 : 0);
        } else if (child instanceof DateDayVector c) {
            return (a, j, k) -> c.setSafe(k, a.getInt(j));
        } else if (child instanceof VarCharVector c) {
            return (a, j, k) -> c.setSafe(k, a.getString(j).toBytes());
        } else if (child instanceof VarBinaryVector c) {
            return (a, j, k) -> c.setSafe(k, a.getBinary(j));
        }
        throw new IllegalArgumentException("Column '" + column + "' of " + table + " is a list of "
                + child.getField().getType() + ", which the Lance sink does not convert from Flink RowData. Supported"
                + " list and vector elements: TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, BOOLEAN, DATE, STRING,"
                + " BYTES");
    }

    private static ColumnWriter timestampWriter(TimeStampVector v, ArrowType.Timestamp type) {
        // The precision tells a binary row how the value is stored (compact millis up to 3 digits);
        // the Flink column's precision is assumed to be the one of the table's unit.
        return switch (type.getUnit()) {
            case SECOND -> (row, pos, i) -> v.setSafe(i, Math.floorDiv(row.getTimestamp(pos, 0).getMillisecond(), 1000L));
            case MILLISECOND -> (row, pos, i) -> v.setSafe(i, row.getTimestamp(pos, 3).getMillisecond());
            case MICROSECOND -> (row, pos, i) -> {
                TimestampData t = row.getTimestamp(pos, 6);
                v.setSafe(i, t.getMillisecond() * 1000L + t.getNanoOfMillisecond() / 1000);
            };
            case NANOSECOND -> (row, pos, i) -> {
                TimestampData t = row.getTimestamp(pos, 9);
                v.setSafe(i, t.getMillisecond() * 1_000_000L + t.getNanoOfMillisecond());
            };
        };
    }
}
