package dev.lanceflink.flink.types;

import java.math.BigDecimal;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
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
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.columnar.ColumnarArrayData;
import org.apache.flink.table.data.columnar.ColumnarMapData;
import org.apache.flink.table.data.columnar.ColumnarRowData;
import org.apache.flink.table.data.columnar.vector.ArrayColumnVector;
import org.apache.flink.table.data.columnar.vector.BooleanColumnVector;
import org.apache.flink.table.data.columnar.vector.ByteColumnVector;
import org.apache.flink.table.data.columnar.vector.BytesColumnVector;
import org.apache.flink.table.data.columnar.vector.ColumnVector;
import org.apache.flink.table.data.columnar.vector.DecimalColumnVector;
import org.apache.flink.table.data.columnar.vector.DoubleColumnVector;
import org.apache.flink.table.data.columnar.vector.FloatColumnVector;
import org.apache.flink.table.data.columnar.vector.IntColumnVector;
import org.apache.flink.table.data.columnar.vector.LongColumnVector;
import org.apache.flink.table.data.columnar.vector.MapColumnVector;
import org.apache.flink.table.data.columnar.vector.RowColumnVector;
import org.apache.flink.table.data.columnar.vector.ShortColumnVector;
import org.apache.flink.table.data.columnar.vector.TimestampColumnVector;
import org.apache.flink.table.data.columnar.vector.VectorizedColumnBatch;

/**
 * Flink {@link ColumnVector} views over Arrow vectors, so a {@link ColumnarRowData} reads Lance
 * batches in place: fixed-width values come straight from the Arrow data buffer (no boxing, no
 * copy). Variable-width values are copied once per batch into one heap array, because Flink's
 * {@code StringData}/{@code byte[]} API needs heap bytes; each cell then only wraps a slice.
 * DECIMAL and TIMESTAMP cells are objects in Flink's API, so those allocate per value read.
 *
 * <p>A view is valid as long as the Arrow vector it wraps is open; string/binary values handed
 * out stay valid after that (they live on the heap).
 */
public final class ArrowColumnVectors {
    private static final long MILLIS_PER_DAY = 86_400_000L;
    /** Decimals of up to 18 digits fit a long (Flink calls them compact). */
    private static final int MAX_LONG_DIGITS = 18;

    private static final long[] POWERS_OF_TEN = {1L, 10L, 100L, 1_000L, 10_000L, 100_000L, 1_000_000L};

    private ArrowColumnVectors() {}

    /** A batch over the given vectors (one per output column, in order) holding {@code rows} rows. */
    public static VectorizedColumnBatch batch(List<FieldVector> vectors, int rows) {
        ColumnVector[] columns = new ColumnVector[vectors.size()];
        for (int i = 0; i < columns.length; i++) {
            columns[i] = of(vectors.get(i));
        }
        VectorizedColumnBatch batch = new VectorizedColumnBatch(columns);
        batch.setNumRows(rows);
        return batch;
    }

    /**
     * The Flink view of one Arrow vector.
     *
     * @throws LanceTypeException for a vector type the connector does not read (the same set
     *     {@link LanceTypeMapping#toLogicalType} rejects)
     */
    public static ColumnVector of(FieldVector v) {
        if (v instanceof BitVector b) {
            return new BooleanView(b);
        } else if (v instanceof TinyIntVector t) {
            return new ByteView(t);
        } else if (v instanceof SmallIntVector s) {
            return new ShortView(s);
        } else if (v instanceof UInt1Vector u) {
            return new UnsignedByteView(u);
        } else if (v instanceof IntVector i) {
            return new IntView(i);
        } else if (v instanceof UInt2Vector u) {
            return new UnsignedShortView(u);
        } else if (v instanceof DateDayVector d) {
            return new IntView(d);
        } else if (v instanceof DateMilliVector d) {
            return new DateMilliView(d);
        } else if (v instanceof BigIntVector b) {
            return new LongView(b);
        } else if (v instanceof UInt4Vector u) {
            return new UnsignedIntView(u);
        } else if (v instanceof UInt8Vector u) {
            // Only the _rowaddr metadata column: its bits are kept as a BIGINT.
            return new LongView(u);
        } else if (v instanceof Float2Vector f) {
            return new HalfFloatView(f);
        } else if (v instanceof Float4Vector f) {
            return new FloatView(f);
        } else if (v instanceof Float8Vector f) {
            return new DoubleView(f);
        } else if (v instanceof VarCharVector || v instanceof VarBinaryVector) {
            return new VariableWidthView(v, false);
        } else if (v instanceof LargeVarCharVector || v instanceof LargeVarBinaryVector) {
            return new VariableWidthView(v, true);
        } else if (v instanceof FixedSizeBinaryVector f) {
            return new FixedWidthBinaryView(f);
        } else if (v instanceof DecimalVector || v instanceof Decimal256Vector) {
            return new DecimalView((BaseFixedWidthVector) v);
        } else if (v instanceof TimeStampVector t) {
            return new TimestampView(t);
        } else if (v instanceof TimeSecVector t) {
            return new TimeOfDayView(t, 32, 1000, 1);
        } else if (v instanceof TimeMilliVector t) {
            return new TimeOfDayView(t, 32, 1, 1);
        } else if (v instanceof TimeMicroVector t) {
            return new TimeOfDayView(t, 64, 1, 1000);
        } else if (v instanceof TimeNanoVector t) {
            return new TimeOfDayView(t, 64, 1, 1_000_000);
        } else if (v instanceof MapVector m) {
            return new MapView(m);
        } else if (v instanceof ListVector l) {
            return new ListView(l, of(l.getDataVector()));
        } else if (v instanceof LargeListVector l) {
            return new LargeListView(l, of(l.getDataVector()));
        } else if (v instanceof FixedSizeListVector l) {
            return new FixedSizeListView(l, of(l.getDataVector()));
        } else if (v instanceof StructVector s) {
            return new StructView(s);
        }
        throw new LanceTypeException("Column '" + v.getName() + "' is an Arrow "
                + v.getField().getType() + " vector, which the Flink connector cannot read");
    }

    /** Shared null check: every Arrow vector keeps its own validity bitmap. */
    private abstract static class View implements ColumnVector {
        final FieldVector vector;

        View(FieldVector vector) {
            this.vector = vector;
        }

        @Override
        public boolean isNullAt(int i) {
            return vector.isNull(i);
        }
    }

    private static final class BooleanView extends View implements BooleanColumnVector {
        private final BitVector v;

        BooleanView(BitVector v) {
            super(v);
            this.v = v;
        }

        @Override
        public boolean getBoolean(int i) {
            return ((v.getDataBuffer().getByte(i >> 3) >> (i & 7)) & 1) == 1;
        }
    }

    private static final class ByteView extends View implements ByteColumnVector {
        private final ArrowBuf data;

        ByteView(TinyIntVector v) {
            super(v);
            this.data = v.getDataBuffer();
        }

        @Override
        public byte getByte(int i) {
            return data.getByte(i);
        }
    }

    private static final class UnsignedByteView extends View implements ShortColumnVector {
        private final ArrowBuf data;

        UnsignedByteView(UInt1Vector v) {
            super(v);
            this.data = v.getDataBuffer();
        }

        @Override
        public short getShort(int i) {
            return (short) (data.getByte(i) & 0xFF);
        }
    }

    private static final class ShortView extends View implements ShortColumnVector {
        private final ArrowBuf data;

        ShortView(SmallIntVector v) {
            super(v);
            this.data = v.getDataBuffer();
        }

        @Override
        public short getShort(int i) {
            return data.getShort((long) i << 1);
        }
    }

    private static final class UnsignedShortView extends View implements IntColumnVector {
        private final ArrowBuf data;

        UnsignedShortView(UInt2Vector v) {
            super(v);
            this.data = v.getDataBuffer();
        }

        @Override
        public int getInt(int i) {
            return data.getShort((long) i << 1) & 0xFFFF;
        }
    }

    /** INT and DATE (days since the epoch, the representation both Arrow date32 and Flink use). */
    private static final class IntView extends View implements IntColumnVector {
        private final ArrowBuf data;

        IntView(BaseFixedWidthVector v) {
            super(v);
            this.data = v.getDataBuffer();
        }

        @Override
        public int getInt(int i) {
            return data.getInt((long) i << 2);
        }
    }

    private static final class DateMilliView extends View implements IntColumnVector {
        private final ArrowBuf data;

        DateMilliView(DateMilliVector v) {
            super(v);
            this.data = v.getDataBuffer();
        }

        @Override
        public int getInt(int i) {
            return (int) Math.floorDiv(data.getLong((long) i << 3), MILLIS_PER_DAY);
        }
    }

    private static final class UnsignedIntView extends View implements LongColumnVector {
        private final ArrowBuf data;

        UnsignedIntView(UInt4Vector v) {
            super(v);
            this.data = v.getDataBuffer();
        }

        @Override
        public long getLong(int i) {
            return data.getInt((long) i << 2) & 0xFFFF_FFFFL;
        }
    }

    private static final class LongView extends View implements LongColumnVector {
        private final ArrowBuf data;

        LongView(BaseFixedWidthVector v) {
            super(v);
            this.data = v.getDataBuffer();
        }

        @Override
        public long getLong(int i) {
            return data.getLong((long) i << 3);
        }
    }

    private static final class HalfFloatView extends View implements FloatColumnVector {
        private final Float2Vector v;

        HalfFloatView(Float2Vector v) {
            super(v);
            this.v = v;
        }

        @Override
        public float getFloat(int i) {
            return v.getValueAsFloat(i);
        }
    }

    private static final class FloatView extends View implements FloatColumnVector {
        private final ArrowBuf data;

        FloatView(Float4Vector v) {
            super(v);
            this.data = v.getDataBuffer();
        }

        @Override
        public float getFloat(int i) {
            return data.getFloat((long) i << 2);
        }
    }

    private static final class DoubleView extends View implements DoubleColumnVector {
        private final ArrowBuf data;

        DoubleView(Float8Vector v) {
            super(v);
            this.data = v.getDataBuffer();
        }

        @Override
        public double getDouble(int i) {
            return data.getDouble((long) i << 3);
        }
    }

    /** utf8/binary (32-bit offsets) and large_utf8/large_binary (64-bit offsets). */
    private static final class VariableWidthView extends View implements BytesColumnVector {
        private final ArrowBuf offsets;
        private final ArrowBuf data;
        private final boolean largeOffsets;
        private byte[] heap;
        private long heapBase;

        VariableWidthView(FieldVector v, boolean largeOffsets) {
            super(v);
            this.offsets = v.getOffsetBuffer();
            this.data = v.getDataBuffer();
            this.largeOffsets = largeOffsets;
        }

        private long offset(int i) {
            return largeOffsets ? offsets.getLong((long) i << 3) : offsets.getInt((long) i << 2);
        }

        @Override
        public Bytes getBytes(int i) {
            if (heap == null) {
                copyToHeap();
            }
            long start = offset(i);
            return new Bytes(heap, (int) (start - heapBase), (int) (offset(i + 1) - start));
        }

        /** Copies the values of all rows in one go; Flink wraps slices of the copy. */
        private void copyToHeap() {
            int rows = vector.getValueCount();
            long first = rows == 0 ? 0 : offset(0);
            long end = rows == 0 ? 0 : offset(rows);
            if (end - first > Integer.MAX_VALUE - 8) {
                throw new IllegalStateException("Column '" + vector.getName() + "' holds " + (end - first)
                        + " bytes in one batch, more than a Java array can; lower 'scan.batch-size'");
            }
            heap = new byte[(int) (end - first)];
            data.getBytes(first, heap, 0, heap.length);
            heapBase = first;
        }
    }

    private static final class FixedWidthBinaryView extends View implements BytesColumnVector {
        private final ArrowBuf data;
        private final int width;
        private byte[] heap;

        FixedWidthBinaryView(FixedSizeBinaryVector v) {
            super(v);
            this.data = v.getDataBuffer();
            this.width = v.getByteWidth();
        }

        @Override
        public Bytes getBytes(int i) {
            if (heap == null) {
                heap = new byte[vector.getValueCount() * width];
                data.getBytes(0, heap, 0, heap.length);
            }
            return new Bytes(heap, i * width, width);
        }
    }

    private static final class DecimalView extends View implements DecimalColumnVector {
        private final ArrowBuf data;
        private final int width;
        private final int storedScale;

        DecimalView(BaseFixedWidthVector v) {
            super(v);
            this.data = v.getDataBuffer();
            this.width = v.getTypeWidth();
            this.storedScale = ((ArrowType.Decimal) v.getField().getType()).getScale();
        }

        @Override
        public DecimalData getDecimal(int i, int precision, int scale) {
            // The declared scale equals the stored one (checked when the table is opened).
            if (precision <= MAX_LONG_DIGITS && scale == storedScale) {
                // The value fits 64 bits; Arrow stores two's complement little endian, so the
                // low 8 bytes are the value itself.
                return DecimalData.fromUnscaledLong(data.getLong((long) i * width), precision, scale);
            }
            BigDecimal value = (BigDecimal) vector.getObject(i);
            return DecimalData.fromBigDecimal(value, precision, scale);
        }
    }

    /**
     * Arrow timestamps of any unit, with or without zone: both are counts since the epoch
     * (UTC for zoned ones, wall clock for the others), which is what Flink's TIMESTAMP and
     * TIMESTAMP_LTZ hold. Values are truncated to the precision asked for.
     */
    private static final class TimestampView extends View implements TimestampColumnVector {
        private final ArrowBuf data;
        private final TimeUnit unit;

        TimestampView(TimeStampVector v) {
            super(v);
            this.data = v.getDataBuffer();
            this.unit = ((ArrowType.Timestamp) v.getField().getType()).getUnit();
        }

        @Override
        public TimestampData getTimestamp(int i, int precision) {
            long raw = data.getLong((long) i << 3);
            long millis;
            int nanosOfMilli;
            switch (unit) {
                case SECOND -> {
                    millis = raw * 1000;
                    nanosOfMilli = 0;
                }
                case MILLISECOND -> {
                    millis = raw;
                    nanosOfMilli = 0;
                }
                case MICROSECOND -> {
                    millis = Math.floorDiv(raw, 1000L);
                    nanosOfMilli = (int) Math.floorMod(raw, 1000L) * 1000;
                }
                default -> {
                    millis = Math.floorDiv(raw, 1_000_000L);
                    nanosOfMilli = (int) Math.floorMod(raw, 1_000_000L);
                }
            }
            if (precision < 3) {
                millis -= Math.floorMod(millis, POWERS_OF_TEN[3 - precision]);
                nanosOfMilli = 0;
            } else if (precision < 9) {
                nanosOfMilli -= nanosOfMilli % (int) POWERS_OF_TEN[9 - precision];
            }
            return TimestampData.fromEpochMillis(millis, nanosOfMilli);
        }
    }

    /**
     * time32:s/ms and time64:us/ns as Flink's TIME: milliseconds of the day in an int. Finer units
     * are truncated (floor) to the millisecond, the finest a Flink TIME value holds.
     */
    private static final class TimeOfDayView extends View implements IntColumnVector {
        private final ArrowBuf data;
        private final boolean wide;
        private final int millisPerUnit;
        private final int unitsPerMilli;

        TimeOfDayView(BaseFixedWidthVector v, int bits, int millisPerUnit, int unitsPerMilli) {
            super(v);
            this.data = v.getDataBuffer();
            this.wide = bits == 64;
            this.millisPerUnit = millisPerUnit;
            this.unitsPerMilli = unitsPerMilli;
        }

        @Override
        public int getInt(int i) {
            if (wide) {
                return (int) Math.floorDiv(data.getLong((long) i << 3), unitsPerMilli);
            }
            return data.getInt((long) i << 2) * millisPerUnit;
        }
    }

    private static final class ListView extends View implements ArrayColumnVector {
        private final ArrowBuf offsets;
        private final ColumnVector elements;

        ListView(ListVector v, ColumnVector elements) {
            super(v);
            this.offsets = v.getOffsetBuffer();
            this.elements = elements;
        }

        @Override
        public ArrayData getArray(int i) {
            int start = offsets.getInt((long) i << 2);
            return new ColumnarArrayData(elements, start, offsets.getInt((long) (i + 1) << 2) - start);
        }
    }

    private static final class LargeListView extends View implements ArrayColumnVector {
        private final ArrowBuf offsets;
        private final ColumnVector elements;

        LargeListView(LargeListVector v, ColumnVector elements) {
            super(v);
            this.offsets = v.getOffsetBuffer();
            this.elements = elements;
        }

        @Override
        public ArrayData getArray(int i) {
            long start = offsets.getLong((long) i << 3);
            return new ColumnarArrayData(
                    elements, Math.toIntExact(start), Math.toIntExact(offsets.getLong((long) (i + 1) << 3) - start));
        }
    }

    private static final class FixedSizeListView extends View implements ArrayColumnVector {
        private final ColumnVector elements;
        private final int size;

        FixedSizeListView(FixedSizeListVector v, ColumnVector elements) {
            super(v);
            this.elements = elements;
            this.size = v.getListSize();
        }

        @Override
        public ArrayData getArray(int i) {
            return new ColumnarArrayData(elements, i * size, size);
        }
    }

    private static final class MapView extends View implements MapColumnVector {
        private final ArrowBuf offsets;
        private final ColumnVector keys;
        private final ColumnVector values;

        MapView(MapVector v) {
            super(v);
            this.offsets = v.getOffsetBuffer();
            StructVector entries = (StructVector) v.getDataVector();
            this.keys = of((FieldVector) entries.getChildByOrdinal(0));
            this.values = of((FieldVector) entries.getChildByOrdinal(1));
        }

        @Override
        public MapData getMap(int i) {
            int start = offsets.getInt((long) i << 2);
            return new ColumnarMapData(keys, values, start, offsets.getInt((long) (i + 1) << 2) - start);
        }
    }

    private static final class StructView extends View implements RowColumnVector {
        private final VectorizedColumnBatch children;

        StructView(StructVector v) {
            super(v);
            ColumnVector[] columns = new ColumnVector[v.size()];
            for (int c = 0; c < columns.length; c++) {
                columns[c] = of((FieldVector) v.getChildByOrdinal(c));
            }
            this.children = new VectorizedColumnBatch(columns);
            this.children.setNumRows(v.getValueCount());
        }

        @Override
        public ColumnarRowData getRow(int i) {
            return new ColumnarRowData(children, i);
        }
    }
}
