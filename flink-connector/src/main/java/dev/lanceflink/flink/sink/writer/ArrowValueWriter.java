package dev.lanceflink.flink.sink.writer;

import dev.lanceflink.flink.types.TypeCompatibility;
import dev.lanceflink.flink.types.TypeCompatibility.ValueWrite;
import java.nio.ByteOrder;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.util.Float16;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeMilliVector;
import org.apache.arrow.vector.TimeNanoVector;
import org.apache.arrow.vector.TimeSecVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryArrayData;
import org.apache.flink.table.data.binary.BinaryFormat;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.types.logical.LogicalType;

/**
 * Writes Flink internal values of one declared type into one Arrow vector of the table's stored
 * type. A writer is built once per column (recursively for nested types) from both types, so the
 * per-cell path is a primitive getter and a primitive Arrow setter: no boxing, no type dispatch.
 *
 * <p>The same writer reads its value from a row field ({@link #field}) or an array element
 * ({@link #element}), because nested values arrive in both (ROW fields, ARRAY and MAP elements).
 * Values are read with the DECLARED precision: a {@code BinaryRowData} lays TIMESTAMP(p) and
 * DECIMAL(p, s) out differently by p (compact for TIMESTAMP(0..3) and DECIMAL(..18)), so reading
 * them with the stored precision would misread them.
 *
 * <p>Which declared types go into which stored types, and how their values are adapted, is
 * decided by {@link TypeCompatibility#valueWrite}, once per column: this class only executes the
 * plan, one writer class per {@link TypeCompatibility.Adaptation} (e.g. TIMESTAMP(3) into
 * microseconds: read with precision 3, milliseconds &times; 1000 plus the microseconds).
 */
abstract class ArrowValueWriter {
    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    /** Table, for messages. */
    final String table;
    /** Dotted path of the value in the table ({@code col.field.item}), for messages. */
    final String path;

    final FieldVector vector;
    private final boolean nullable;
    /** The message of a NULL where the stored field is NOT NULL. */
    private final String notNullMessage;

    ArrowValueWriter(Target t) {
        this.table = t.table;
        this.path = t.path;
        this.vector = t.vector;
        this.nullable = t.field.isNullable();
        this.notNullMessage = t.notNullMessage;
    }

    /** Writes the non-null field {@code pos} of {@code row} into slot {@code index}. */
    abstract void writeField(RowData row, int pos, int index);

    /** Writes the non-null element {@code j} of {@code array} into slot {@code index}. */
    abstract void writeElement(ArrayData array, int j, int index);

    /** Field {@code pos} of {@code row}, NULL or not, into slot {@code index}. */
    final void field(RowData row, int pos, int index) {
        if (row.isNullAt(pos)) {
            setNull(index);
        } else {
            writeField(row, pos, index);
        }
    }

    /** Element {@code j} of {@code array}, NULL or not, into slot {@code index}. */
    final void element(ArrayData array, int j, int index) {
        if (array.isNullAt(j)) {
            setNull(index);
        } else {
            writeElement(array, j, index);
        }
    }

    final void setNull(int index) {
        if (!nullable) {
            throw new IllegalArgumentException(notNullMessage);
        }
        // Every Arrow vector's setNull grows the validity (and offset) buffers as needed.
        vector.setNull(index);
    }

    /**
     * The one heap segment a {@link BinaryRowData} lies in (what Flink's network deserializer and
     * its serializers produce: a byte array per record), or null when the row is another kind or
     * spans several segments or off-heap memory. Writers read strings and vectors of such a row
     * straight from its bytes, without the {@code StringData} and {@code ArrayData} objects its
     * getters make per cell.
     */
    static MemorySegment heapSegment(RowData row) {
        if (row instanceof BinaryRowData b) {
            MemorySegment[] segments = b.getSegments();
            if (segments.length == 1 && !segments[0].isOffHeap()) {
                return segments[0];
            }
        }
        return null;
    }

    /**
     * The offset of field {@code pos}'s 8-byte slot in a binary row's segment (Flink's layout: a
     * header byte and the null bits, then one slot per field).
     */
    static int slotOffset(BinaryRowData row, int pos) {
        return row.getOffset() + BinaryRowData.calculateBitSetWidthInBytes(row.getArity()) + 8 * pos;
    }

    /**
     * Sets bits {@code [from, to)} of an Arrow validity bitmap: whole bytes at once, bit by bit
     * only at the two ends. Marking a vector's {@code size} values valid one {@code setBit} at a
     * time cost more than copying the values themselves.
     */
    static void setBits(ArrowBuf bitmap, long from, long to) {
        long bit = from;
        while (bit < to && (bit & 7) != 0) {
            BitVectorHelper.setBit(bitmap, bit++);
        }
        long wholeBytes = (to - bit) >>> 3;
        if (wholeBytes > 0) {
            bitmap.setOne(bit >>> 3, wholeBytes);
            bit += wholeBytes << 3;
        }
        while (bit < to) {
            BitVectorHelper.setBit(bitmap, bit++);
        }
    }

    /**
     * Where a writer writes: the vector, its field in the table's schema (Arrow renames the
     * children of list vectors, so names come from the schema), and the names messages use.
     */
    record Target(String table, String path, Field field, FieldVector vector, String notNullMessage) {
        static Target of(String table, String path, Field field, FieldVector vector) {
            return new Target(
                    table,
                    path,
                    field,
                    vector,
                    "'" + path + "' of " + table + " is NOT NULL, but a record"
                            + " has NULL in it; filter or fill such records before the sink");
        }

        /** Child {@code k} of the field, written into {@code child}. */
        Target child(int k, FieldVector child) {
            Field f = field.getChildren().get(k);
            return of(table, path + "." + f.getName(), f, child);
        }
    }

    // ------------------------------------------------------------------------------------------
    // Construction: the column's plan x its Arrow vector
    // ------------------------------------------------------------------------------------------

    /**
     * The writer of values declared {@code declared} into {@code target.vector}, as
     * {@link TypeCompatibility#valueWrite} plans it.
     *
     * @param declared the declared type, or null for the type the column reads as
     * @throws IllegalArgumentException naming the path if the declared type cannot be stored in
     *     the column's type unchanged
     */
    static ArrowValueWriter forColumn(Target target, LogicalType declared) {
        return forPlan(target, TypeCompatibility.valueWrite(target.table, declared, target.field));
    }

    /** The writer executing {@code plan}; the vector is the one the plan's stored type creates. */
    private static ArrowValueWriter forPlan(Target target, ValueWrite plan) {
        FieldVector v = target.vector;
        return switch (plan.adaptation()) {
            case BOOLEAN -> new BooleanWriter(target, (BitVector) v);
            case TINYINT -> new TinyIntWriter(target, (TinyIntVector) v);
            case SMALLINT -> new SmallIntWriter(target, (SmallIntVector) v);
            case INT -> new IntWriter(target, (IntVector) v);
            case BIGINT -> new BigIntWriter(target, (BigIntVector) v);
            case FLOAT -> new FloatWriter(target, (Float4Vector) v);
            case DOUBLE -> new DoubleWriter(target, (Float8Vector) v);
            case UINT8 -> new UInt8Writer(target, (UInt1Vector) v);
            case UINT16 -> new UInt16Writer(target, (UInt2Vector) v);
            case UINT32 -> new UInt32Writer(target, (UInt4Vector) v);
            case HALF_FLOAT -> new HalfFloatWriter(target, (Float2Vector) v);
            case STRING -> new StringWriter(target, (VarCharVector) v);
            case LARGE_STRING -> new LargeStringWriter(target, (LargeVarCharVector) v);
            case BINARY -> new BinaryWriter(target, (VarBinaryVector) v);
            case LARGE_BINARY -> new LargeBinaryWriter(target, (LargeVarBinaryVector) v);
            case FIXED_SIZE_BINARY -> new FixedBinaryWriter(target, (FixedSizeBinaryVector) v);
            case DATE_DAYS -> new DateDayWriter(target, (DateDayVector) v);
            case DATE_MILLIS -> new DateMilliWriter(target, (DateMilliVector) v);
            case TIME_SECONDS -> new TimeSecondWriter(target, (TimeSecVector) v);
            case TIME_MILLIS -> new TimeMilliWriter(target, (TimeMilliVector) v);
            case TIME_MICROS -> new TimeMicroWriter(target, (TimeMicroVector) v);
            case TIME_NANOS -> new TimeNanoWriter(target, (TimeNanoVector) v);
            case TIMESTAMP_SECONDS -> new TimestampSecondWriter(target, (TimeStampVector) v, plan.precision());
            case TIMESTAMP_MILLIS -> new TimestampMilliWriter(target, (TimeStampVector) v, plan.precision());
            case TIMESTAMP_MICROS -> new TimestampMicroWriter(target, (TimeStampVector) v, plan.precision());
            case TIMESTAMP_NANOS -> new TimestampNanoWriter(target, (TimeStampVector) v, plan.precision());
            case DECIMAL128 -> new Decimal128Writer(target, (DecimalVector) v, plan.precision(), plan.scale());
            case DECIMAL256 -> new Decimal256Writer(target, (Decimal256Vector) v, plan.precision(), plan.scale());
            case LIST -> {
                ListVector l = (ListVector) v;
                yield new ListWriter(
                        target,
                        l,
                        forPlan(
                                target.child(0, l.getDataVector()),
                                plan.children().get(0)));
            }
            case LARGE_LIST -> {
                LargeListVector l = (LargeListVector) v;
                yield new LargeListWriter(
                        target,
                        l,
                        forPlan(
                                target.child(0, l.getDataVector()),
                                plan.children().get(0)));
            }
            case FIXED_SIZE_LIST -> {
                FixedSizeListVector l = (FixedSizeListVector) v;
                yield new FixedSizeListWriter(
                        target,
                        l,
                        forPlan(
                                target.child(0, l.getDataVector()),
                                plan.children().get(0)));
            }
            case STRUCT -> {
                StructVector s = (StructVector) v;
                ArrowValueWriter[] fields = new ArrowValueWriter[plan.children().size()];
                List<FieldVector> children = s.getChildrenFromFields();
                for (int f = 0; f < fields.length; f++) {
                    fields[f] = forPlan(
                            target.child(f, children.get(f)), plan.children().get(f));
                }
                yield new StructWriter(target, s, fields);
            }
            case MAP -> {
                MapVector m = (MapVector) v;
                StructVector entries = (StructVector) m.getDataVector();
                Target entriesTarget = target.child(0, entries);
                Target keys =
                        entriesTarget.child(0, entries.getChildrenFromFields().get(0));
                Target keyTarget = new Target(
                        target.table,
                        keys.path,
                        keys.field,
                        keys.vector,
                        "Column '"
                                + target.path + "' of " + target.table
                                + " is a MAP, whose keys cannot be NULL in Lance,"
                                + " but a record has an entry with a NULL key; drop such entries (or records) before the"
                                + " sink");
                Target values =
                        entriesTarget.child(1, entries.getChildrenFromFields().get(1));
                yield new MapWriter(
                        target,
                        m,
                        entries,
                        forPlan(keyTarget, plan.children().get(0)),
                        forPlan(values, plan.children().get(1)));
            }
        };
    }

    // ------------------------------------------------------------------------------------------
    // Atomic values
    // ------------------------------------------------------------------------------------------

    private static final class BooleanWriter extends ArrowValueWriter {
        private final BitVector v;

        BooleanWriter(Target t, BitVector v) {
            super(t);
            this.v = v;
        }

        @Override
        void writeField(RowData row, int pos, int index) {
            v.setSafe(index, row.getBoolean(pos) ? 1 : 0);
        }

        @Override
        void writeElement(ArrayData a, int j, int index) {
            v.setSafe(index, a.getBoolean(j) ? 1 : 0);
        }
    }

    private static final class TinyIntWriter extends ArrowValueWriter {
        private final TinyIntVector v;

        TinyIntWriter(Target t, TinyIntVector v) {
            super(t);
            this.v = v;
        }

        @Override
        void writeField(RowData row, int pos, int index) {
            v.setSafe(index, row.getByte(pos));
        }

        @Override
        void writeElement(ArrayData a, int j, int index) {
            v.setSafe(index, a.getByte(j));
        }
    }

    private static final class SmallIntWriter extends ArrowValueWriter {
        private final SmallIntVector v;

        SmallIntWriter(Target t, SmallIntVector v) {
            super(t);
            this.v = v;
        }

        @Override
        void writeField(RowData row, int pos, int index) {
            v.setSafe(index, row.getShort(pos));
        }

        @Override
        void writeElement(ArrayData a, int j, int index) {
            v.setSafe(index, a.getShort(j));
        }
    }

    private static final class IntWriter extends ArrowValueWriter {
        private final IntVector v;

        IntWriter(Target t, IntVector v) {
            super(t);
            this.v = v;
        }

        @Override
        void writeField(RowData row, int pos, int index) {
            v.setSafe(index, row.getInt(pos));
        }

        @Override
        void writeElement(ArrayData a, int j, int index) {
            v.setSafe(index, a.getInt(j));
        }
    }

    private static final class BigIntWriter extends ArrowValueWriter {
        private final BigIntVector v;

        BigIntWriter(Target t, BigIntVector v) {
            super(t);
            this.v = v;
        }

        @Override
        void writeField(RowData row, int pos, int index) {
            v.setSafe(index, row.getLong(pos));
        }

        @Override
        void writeElement(ArrayData a, int j, int index) {
            v.setSafe(index, a.getLong(j));
        }
    }

    private static final class FloatWriter extends ArrowValueWriter {
        private final Float4Vector v;

        FloatWriter(Target t, Float4Vector v) {
            super(t);
            this.v = v;
        }

        @Override
        void writeField(RowData row, int pos, int index) {
            v.setSafe(index, row.getFloat(pos));
        }

        @Override
        void writeElement(ArrayData a, int j, int index) {
            v.setSafe(index, a.getFloat(j));
        }
    }

    // Unsigned integers and half floats: only the values such a column reads as, written back
    // (see TypeCompatibility.Adaptation.UINT8); a value the column cannot hold is refused.

    /** The refusal of a value outside what the stored column holds. */
    final IllegalArgumentException outOfRange(Object value, String holds) {
        return new IllegalArgumentException("'" + path + "' of " + table + " holds " + holds + ", but a record has "
                + value + " in it; Flink cannot write other values into this column (leave it out of the written"
                + " columns, or keep the values read from it)");
    }

    private static final class UInt8Writer extends ArrowValueWriter {
        private final UInt1Vector v;

        UInt8Writer(Target t, UInt1Vector v) {
            super(t);
            this.v = v;
        }

        private void write(short value, int index) {
            if (value < 0 || value > 0xFF) {
                throw outOfRange(value, "unsigned 8-bit integers (0..255)");
            }
            v.setSafe(index, value);
        }

        @Override
        void writeField(RowData row, int pos, int index) {
            write(row.getShort(pos), index);
        }

        @Override
        void writeElement(ArrayData a, int j, int index) {
            write(a.getShort(j), index);
        }
    }

    private static final class UInt16Writer extends ArrowValueWriter {
        private final UInt2Vector v;

        UInt16Writer(Target t, UInt2Vector v) {
            super(t);
            this.v = v;
        }

        private void write(int value, int index) {
            if (value < 0 || value > 0xFFFF) {
                throw outOfRange(value, "unsigned 16-bit integers (0..65535)");
            }
            v.setSafe(index, value);
        }

        @Override
        void writeField(RowData row, int pos, int index) {
            write(row.getInt(pos), index);
        }

        @Override
        void writeElement(ArrayData a, int j, int index) {
            write(a.getInt(j), index);
        }
    }

    private static final class UInt32Writer extends ArrowValueWriter {
        private final UInt4Vector v;

        UInt32Writer(Target t, UInt4Vector v) {
            super(t);
            this.v = v;
        }

        private void write(long value, int index) {
            if (value < 0 || value > 0xFFFF_FFFFL) {
                throw outOfRange(value, "unsigned 32-bit integers (0..4294967295)");
            }
            v.setSafe(index, (int) value);
        }

        @Override
        void writeField(RowData row, int pos, int index) {
            write(row.getLong(pos), index);
        }

        @Override
        void writeElement(ArrayData a, int j, int index) {
            write(a.getLong(j), index);
        }
    }

    private static final class HalfFloatWriter extends ArrowValueWriter {
        private final Float2Vector v;

        HalfFloatWriter(Target t, Float2Vector v) {
            super(t);
            this.v = v;
        }

        private void write(float value, int index) {
            short half = Float16.toFloat16(value);
            if (Float.compare(Float16.toFloat(half), value) != 0 && !Float.isNaN(value)) {
                throw outOfRange(value, "half floats");
            }
            v.setSafe(index, half);
        }

        @Override
        void writeField(RowData row, int pos, int index) {
            write(row.getFloat(pos), index);
        }

        @Override
        void writeElement(ArrayData a, int j, int index) {
            write(a.getFloat(j), index);
        }
    }

    private static final class DoubleWriter extends ArrowValueWriter {
        private final Float8Vector v;

        DoubleWriter(Target t, Float8Vector v) {
            super(t);
            this.v = v;
        }

        @Override
        void writeField(RowData row, int pos, int index) {
            v.setSafe(index, row.getDouble(pos));
        }

        @Override
        void writeElement(ArrayData a, int j, int index) {
            v.setSafe(index, a.getDouble(j));
        }
    }

    /**
     * utf8. A binary string in one heap segment (what Flink's binary rows and its serializers
     * produce) is copied straight from that segment; others are encoded once.
     */
    private static final class StringWriter extends ArrowValueWriter {
        private final VarCharVector v;

        StringWriter(Target t, VarCharVector v) {
            super(t);
            this.v = v;
        }

        private void put(int index, StringData s) {
            if (s instanceof BinaryStringData b) {
                b.ensureMaterialized();
                MemorySegment[] segments = b.getSegments();
                if (segments.length == 1 && !segments[0].isOffHeap()) {
                    v.setSafe(index, segments[0].getArray(), b.getOffset(), b.getSizeInBytes());
                    return;
                }
            }
            v.setSafe(index, s.toBytes());
        }

        @Override
        void writeField(RowData row, int pos, int index) {
            MemorySegment segment = heapSegment(row);
            if (segment == null) {
                put(index, row.getString(pos));
                return;
            }
            // Flink's binary layout (BinarySegmentUtils.readStringData): a slot with the highest
            // bit set holds the string itself (up to 7 bytes, length in the next 7 bits), else
            // the string's offset from the row's start and its length.
            BinaryRowData b = (BinaryRowData) row;
            int slot = slotOffset(b, pos);
            long offsetAndLength = segment.getLong(slot);
            if ((offsetAndLength & BinaryFormat.HIGHEST_FIRST_BIT) == 0) {
                v.setSafe(index, segment.getArray(), b.getOffset() + (int) (offsetAndLength >> 32), (int)
                        offsetAndLength);
            } else {
                int length = (int) ((offsetAndLength & BinaryFormat.HIGHEST_SECOND_TO_EIGHTH_BIT) >>> 56);
                v.setSafe(index, segment.getArray(), LITTLE_ENDIAN ? slot : slot + 1, length);
            }
        }

        @Override
        void writeElement(ArrayData a, int j, int index) {
            put(index, a.getString(j));
        }
    }

    private static final class LargeStringWriter extends ArrowValueWriter {
        private final LargeVarCharVector v;

        LargeStringWriter(Target t, LargeVarCharVector v) {
            super(t);
            this.v = v;
        }

        @Override
        void writeField(RowData row, int pos, int index) {
            v.setSafe(index, row.getString(pos).toBytes());
        }

        @Override
        void writeElement(ArrayData a, int j, int index) {
            v.setSafe(index, a.getString(j).toBytes());
        }
    }

    private static final class BinaryWriter extends ArrowValueWriter {
        private final VarBinaryVector v;

        BinaryWriter(Target t, VarBinaryVector v) {
            super(t);
            this.v = v;
        }

        @Override
        void writeField(RowData row, int pos, int index) {
            v.setSafe(index, row.getBinary(pos));
        }

        @Override
        void writeElement(ArrayData a, int j, int index) {
            v.setSafe(index, a.getBinary(j));
        }
    }

    private static final class LargeBinaryWriter extends ArrowValueWriter {
        private final LargeVarBinaryVector v;

        LargeBinaryWriter(Target t, LargeVarBinaryVector v) {
            super(t);
            this.v = v;
        }

        @Override
        void writeField(RowData row, int pos, int index) {
            v.setSafe(index, row.getBinary(pos));
        }

        @Override
        void writeElement(ArrayData a, int j, int index) {
            v.setSafe(index, a.getBinary(j));
        }
    }

    /** fixed_size_binary:n from BINARY(n): Flink does not pad BINARY values, so the length is checked. */
    private static final class FixedBinaryWriter extends ArrowValueWriter {
        private final FixedSizeBinaryVector v;
        private final int width;

        FixedBinaryWriter(Target t, FixedSizeBinaryVector v) {
            super(t);
            this.v = v;
            this.width = v.getByteWidth();
        }

        private void put(int index, byte[] value) {
            if (value.length != width) {
                throw new IllegalArgumentException("'" + path + "' of " + table + " holds exactly " + width
                        + " bytes per value, but a record has " + value.length + "; pad or cut the values to "
                        + width + " bytes before the sink");
            }
            v.setSafe(index, value);
        }

        @Override
        void writeField(RowData row, int pos, int index) {
            put(index, row.getBinary(pos));
        }

        @Override
        void writeElement(ArrayData a, int j, int index) {
            put(index, a.getBinary(j));
        }
    }

    private static final class DateDayWriter extends ArrowValueWriter {
        private final DateDayVector v;

        DateDayWriter(Target t, DateDayVector v) {
            super(t);
            this.v = v;
        }

        @Override
        void writeField(RowData row, int pos, int index) {
            v.setSafe(index, row.getInt(pos));
        }

        @Override
        void writeElement(ArrayData a, int j, int index) {
            v.setSafe(index, a.getInt(j));
        }
    }

    private static final class DateMilliWriter extends ArrowValueWriter {
        private static final long MILLIS_PER_DAY = 86_400_000L;
        private final DateMilliVector v;

        DateMilliWriter(Target t, DateMilliVector v) {
            super(t);
            this.v = v;
        }

        @Override
        void writeField(RowData row, int pos, int index) {
            v.setSafe(index, row.getInt(pos) * MILLIS_PER_DAY);
        }

        @Override
        void writeElement(ArrayData a, int j, int index) {
            v.setSafe(index, a.getInt(j) * MILLIS_PER_DAY);
        }
    }

    /** time32:s from milliseconds of the day (never negative), truncated to the second. */
    private static final class TimeSecondWriter extends ArrowValueWriter {
        private final TimeSecVector v;

        TimeSecondWriter(Target t, TimeSecVector v) {
            super(t);
            this.v = v;
        }

        @Override
        void writeField(RowData row, int pos, int index) {
            v.setSafe(index, Math.floorDiv(row.getInt(pos), 1000));
        }

        @Override
        void writeElement(ArrayData a, int j, int index) {
            v.setSafe(index, Math.floorDiv(a.getInt(j), 1000));
        }
    }

    private static final class TimeMilliWriter extends ArrowValueWriter {
        private final TimeMilliVector v;

        TimeMilliWriter(Target t, TimeMilliVector v) {
            super(t);
            this.v = v;
        }

        @Override
        void writeField(RowData row, int pos, int index) {
            v.setSafe(index, row.getInt(pos));
        }

        @Override
        void writeElement(ArrayData a, int j, int index) {
            v.setSafe(index, a.getInt(j));
        }
    }

    /** time64:us: milliseconds of the day scaled up (exact). */
    private static final class TimeMicroWriter extends ArrowValueWriter {
        private final TimeMicroVector v;

        TimeMicroWriter(Target t, TimeMicroVector v) {
            super(t);
            this.v = v;
        }

        @Override
        void writeField(RowData row, int pos, int index) {
            v.setSafe(index, row.getInt(pos) * 1_000L);
        }

        @Override
        void writeElement(ArrayData a, int j, int index) {
            v.setSafe(index, a.getInt(j) * 1_000L);
        }
    }

    /** time64:ns: milliseconds of the day scaled up (exact). */
    private static final class TimeNanoWriter extends ArrowValueWriter {
        private final TimeNanoVector v;

        TimeNanoWriter(Target t, TimeNanoVector v) {
            super(t);
            this.v = v;
        }

        @Override
        void writeField(RowData row, int pos, int index) {
            v.setSafe(index, row.getInt(pos) * 1_000_000L);
        }

        @Override
        void writeElement(ArrayData a, int j, int index) {
            v.setSafe(index, a.getInt(j) * 1_000_000L);
        }
    }

    /**
     * TIMESTAMP(p) / TIMESTAMP_LTZ(p) into one unit: the value is read with the declared
     * precision, then converted to the unit (one subclass per unit, chosen when the writer is
     * built, each with its own monomorphic conversion), truncated towards negative infinity.
     */
    private abstract static class TimestampWriter extends ArrowValueWriter {
        final TimeStampVector v;
        final int precision;

        TimestampWriter(Target t, TimeStampVector v, int precision) {
            super(t);
            this.v = v;
            this.precision = precision;
        }
    }

    private static final class TimestampSecondWriter extends TimestampWriter {
        TimestampSecondWriter(Target t, TimeStampVector v, int precision) {
            super(t, v, precision);
        }

        @Override
        void writeField(RowData row, int pos, int index) {
            v.setSafe(index, Math.floorDiv(row.getTimestamp(pos, precision).getMillisecond(), 1000L));
        }

        @Override
        void writeElement(ArrayData a, int j, int index) {
            v.setSafe(index, Math.floorDiv(a.getTimestamp(j, precision).getMillisecond(), 1000L));
        }
    }

    private static final class TimestampMilliWriter extends TimestampWriter {
        TimestampMilliWriter(Target t, TimeStampVector v, int precision) {
            super(t, v, precision);
        }

        @Override
        void writeField(RowData row, int pos, int index) {
            v.setSafe(index, row.getTimestamp(pos, precision).getMillisecond());
        }

        @Override
        void writeElement(ArrayData a, int j, int index) {
            v.setSafe(index, a.getTimestamp(j, precision).getMillisecond());
        }
    }

    private static final class TimestampMicroWriter extends TimestampWriter {
        TimestampMicroWriter(Target t, TimeStampVector v, int precision) {
            super(t, v, precision);
        }

        /** nanoOfMillisecond is 0..999_999, so this truncates towards negative infinity. */
        private static long micros(TimestampData t) {
            return t.getMillisecond() * 1000L + t.getNanoOfMillisecond() / 1000;
        }

        @Override
        void writeField(RowData row, int pos, int index) {
            v.setSafe(index, micros(row.getTimestamp(pos, precision)));
        }

        @Override
        void writeElement(ArrayData a, int j, int index) {
            v.setSafe(index, micros(a.getTimestamp(j, precision)));
        }
    }

    /**
     * Nanoseconds cover 1677-09-21T00:12:43.145224192 to 2262-04-11T23:47:16.854775807; a value
     * outside fails, naming the column.
     */
    private static final class TimestampNanoWriter extends TimestampWriter {
        TimestampNanoWriter(Target t, TimeStampVector v, int precision) {
            super(t, v, precision);
        }

        private long nanos(TimestampData t) {
            long millis = t.getMillisecond();
            int nanos = t.getNanoOfMillisecond(); // 0..999_999
            try {
                // Below the epoch, millis * 10^6 alone may overflow although the sum fits (the
                // smallest nanosecond timestamp has nanos > 0): borrow one millisecond first.
                return millis < 0 && nanos > 0
                        ? Math.addExact(Math.multiplyExact(millis + 1, 1_000_000L), nanos - 1_000_000L)
                        : Math.addExact(Math.multiplyExact(millis, 1_000_000L), nanos);
            } catch (ArithmeticException e) {
                throw new IllegalArgumentException(
                        "'" + path + "' of " + table + " stores nanoseconds since"
                                + " 1970-01-01, which hold 1677-09-21T00:12:43.145224192 to 2262-04-11T23:47:16.854775807,"
                                + " but a record has " + TimestampData.fromEpochMillis(millis, nanos)
                                + "; filter or clamp"
                                + " such values before the sink",
                        e);
            }
        }

        @Override
        void writeField(RowData row, int pos, int index) {
            v.setSafe(index, nanos(row.getTimestamp(pos, precision)));
        }

        @Override
        void writeElement(ArrayData a, int j, int index) {
            v.setSafe(index, nanos(a.getTimestamp(j, precision)));
        }
    }

    /**
     * DECIMAL(p, s) into decimal128 of the same scale and at least p digits: the unscaled value is
     * stored, from a long for p &le; 18 (no BigInteger), else from its bytes.
     */
    private static final class Decimal128Writer extends ArrowValueWriter {
        private final DecimalVector v;
        private final int precision;
        private final int scale;
        private final boolean compact;

        Decimal128Writer(Target t, DecimalVector v, int precision, int scale) {
            super(t);
            this.v = v;
            this.precision = precision;
            this.scale = scale;
            this.compact = DecimalData.isCompact(precision);
        }

        private void put(int index, DecimalData d) {
            if (compact) {
                v.setSafe(index, d.toUnscaledLong());
            } else {
                v.setBigEndianSafe(index, d.toUnscaledBytes());
            }
        }

        @Override
        void writeField(RowData row, int pos, int index) {
            put(index, row.getDecimal(pos, precision, scale));
        }

        @Override
        void writeElement(ArrayData a, int j, int index) {
            put(index, a.getDecimal(j, precision, scale));
        }
    }

    /** DECIMAL(p, s) into decimal256, as {@link Decimal128Writer}. */
    private static final class Decimal256Writer extends ArrowValueWriter {
        private final Decimal256Vector v;
        private final int precision;
        private final int scale;
        private final boolean compact;

        Decimal256Writer(Target t, Decimal256Vector v, int precision, int scale) {
            super(t);
            this.v = v;
            this.precision = precision;
            this.scale = scale;
            this.compact = DecimalData.isCompact(precision);
        }

        private void put(int index, DecimalData d) {
            if (compact) {
                v.setSafe(index, d.toUnscaledLong());
            } else {
                v.setBigEndianSafe(index, d.toUnscaledBytes());
            }
        }

        @Override
        void writeField(RowData row, int pos, int index) {
            put(index, row.getDecimal(pos, precision, scale));
        }

        @Override
        void writeElement(ArrayData a, int j, int index) {
            put(index, a.getDecimal(j, precision, scale));
        }
    }

    // ------------------------------------------------------------------------------------------
    // Nested values
    // ------------------------------------------------------------------------------------------

    /** ROW into struct: the struct's slot is marked valid, then each field goes to its child's slot. */
    private static final class StructWriter extends ArrowValueWriter {
        private final StructVector v;
        private final ArrowValueWriter[] fields;

        StructWriter(Target t, StructVector v, ArrowValueWriter[] fields) {
            super(t);
            this.v = v;
            this.fields = fields;
        }

        private void put(int index, RowData row) {
            if (row.getArity() != fields.length) {
                throw new IllegalArgumentException("'" + path + "' of " + table + " is a struct of " + fields.length
                        + " fields, but a record has a ROW of " + row.getArity() + " there");
            }
            v.setIndexDefined(index);
            for (int f = 0; f < fields.length; f++) {
                fields[f].field(row, f, index);
            }
        }

        @Override
        void writeField(RowData row, int pos, int index) {
            put(index, row.getRow(pos, fields.length));
        }

        @Override
        void writeElement(ArrayData a, int j, int index) {
            put(index, a.getRow(j, fields.length));
        }
    }

    /** ARRAY into list: the elements go after the previous slot's, in the child vector. */
    private static final class ListWriter extends ArrowValueWriter {
        private final ListVector v;
        private final ArrowValueWriter items;

        ListWriter(Target t, ListVector v, ArrowValueWriter items) {
            super(t);
            this.v = v;
            this.items = items;
        }

        private void put(int index, ArrayData a) {
            int n = a.size();
            int start = v.startNewValue(index);
            for (int j = 0; j < n; j++) {
                items.element(a, j, start + j);
            }
            v.endValue(index, n);
        }

        @Override
        void writeField(RowData row, int pos, int index) {
            put(index, row.getArray(pos));
        }

        @Override
        void writeElement(ArrayData a, int j, int index) {
            put(index, a.getArray(j));
        }
    }

    private static final class LargeListWriter extends ArrowValueWriter {
        private final LargeListVector v;
        private final ArrowValueWriter items;

        LargeListWriter(Target t, LargeListVector v, ArrowValueWriter items) {
            super(t);
            this.v = v;
            this.items = items;
        }

        private void put(int index, ArrayData a) {
            int n = a.size();
            int start = Math.toIntExact(v.startNewValue(index));
            for (int j = 0; j < n; j++) {
                items.element(a, j, start + j);
            }
            v.endValue(index, n);
        }

        @Override
        void writeField(RowData row, int pos, int index) {
            put(index, row.getArray(pos));
        }

        @Override
        void writeElement(ArrayData a, int j, int index) {
            put(index, a.getArray(j));
        }
    }

    /**
     * ARRAY into fixed_size_list (a vector, e.g. an embedding): exactly the list size, elements at
     * {@code slot * size + j}. FLOAT vectors, the common embedding, have a bulk path: a
     * {@link BinaryArrayData} without NULLs in one heap segment is copied as one block (both
     * hold little-endian IEEE floats).
     */
    private static final class FixedSizeListWriter extends ArrowValueWriter {
        private final FixedSizeListVector v;
        private final ArrowValueWriter items;
        private final int size;
        /** The child when it is a float vector (bulk path), else null. */
        private final Float4Vector floats;

        FixedSizeListWriter(Target t, FixedSizeListVector v, ArrowValueWriter items) {
            super(t);
            this.v = v;
            this.items = items;
            this.size = v.getListSize();
            this.floats = items instanceof FloatWriter && LITTLE_ENDIAN ? (Float4Vector) v.getDataVector() : null;
        }

        private void put(int index, ArrayData a) {
            if (a.size() != size) {
                throw new IllegalArgumentException("Column '" + path + "' of " + table + " holds vectors of " + size
                        + " values, but a record has " + a.size() + "; every vector of the column must have exactly "
                        + size);
            }
            v.setNotNull(index);
            int base = index * size;
            if (floats != null && a instanceof BinaryArrayData b && copyFloats(b, base)) {
                return;
            }
            for (int j = 0; j < size; j++) {
                items.element(a, j, base + j);
            }
        }

        private boolean copyFloats(BinaryArrayData b, int base) {
            MemorySegment[] segments = b.getSegments();
            if (segments.length != 1 || segments[0].isOffHeap() || b.anyNull()) {
                return false;
            }
            copy(segments[0].getArray(), b.getOffset() + BinaryArrayData.calculateHeaderInBytes(size), base);
            return true;
        }

        /** {@code size} little-endian floats at {@code from} into the items from {@code base}, all valid. */
        private void copy(byte[] bytes, int from, int base) {
            int end = base + size;
            while (floats.getValueCapacity() < end) {
                floats.reAlloc();
            }
            floats.getDataBuffer().setBytes((long) base * Float.BYTES, bytes, from, (long) size * Float.BYTES);
            setBits(floats.getValidityBuffer(), base, end);
        }

        @Override
        void writeField(RowData row, int pos, int index) {
            MemorySegment segment = floats != null ? heapSegment(row) : null;
            if (segment == null || !copyFloats((BinaryRowData) row, segment, pos, index)) {
                put(index, row.getArray(pos));
            }
        }

        /**
         * The bulk copy straight from a binary row's bytes (Flink's layout,
         * BinarySegmentUtils.readArrayData: the slot holds the array's offset from the row's start
         * and its byte size; the array starts with its element count and null bits). False, with
         * nothing written, when an element is NULL or the size is wrong: then the general path
         * writes the elements or names the column.
         */
        private boolean copyFloats(BinaryRowData row, MemorySegment segment, int pos, int index) {
            long offsetAndSize = segment.getLong(slotOffset(row, pos));
            int start = row.getOffset() + (int) (offsetAndSize >> 32);
            if (segment.getInt(start) != size) {
                return false;
            }
            int header = BinaryArrayData.calculateHeaderInBytes(size);
            for (int k = start + 4; k < start + header; k += 4) {
                if (segment.getInt(k) != 0) {
                    return false;
                }
            }
            v.setNotNull(index);
            copy(segment.getArray(), start + header, index * size);
            return true;
        }

        @Override
        void writeElement(ArrayData a, int j, int index) {
            put(index, a.getArray(j));
        }
    }

    /**
     * MAP into map (a list of non-null key/value structs): entries in the order the MapData
     * lists them; a NULL key fails, naming the column.
     */
    private static final class MapWriter extends ArrowValueWriter {
        private final MapVector v;
        private final StructVector entries;
        private final ArrowValueWriter keys;
        private final ArrowValueWriter values;

        MapWriter(Target t, MapVector v, StructVector entries, ArrowValueWriter keys, ArrowValueWriter values) {
            super(t);
            this.v = v;
            this.entries = entries;
            this.keys = keys;
            this.values = values;
        }

        private void put(int index, MapData m) {
            int n = m.size();
            ArrayData k = m.keyArray();
            ArrayData val = m.valueArray();
            int start = v.startNewValue(index);
            for (int j = 0; j < n; j++) {
                int slot = start + j;
                entries.setIndexDefined(slot);
                keys.element(k, j, slot);
                values.element(val, j, slot);
            }
            v.endValue(index, n);
        }

        @Override
        void writeField(RowData row, int pos, int index) {
            put(index, row.getMap(pos));
        }

        @Override
        void writeElement(ArrayData a, int j, int index) {
            put(index, a.getMap(j));
        }
    }
}
