package dev.lanceflink.flink.types;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeMilliVector;
import org.apache.arrow.vector.TimeNanoVector;
import org.apache.arrow.vector.TimeSecVector;
import org.apache.arrow.vector.TimeStampNanoTZVector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.complex.impl.UnionListWriter;
import org.apache.arrow.vector.complex.impl.UnionMapWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.columnar.ColumnarRowData;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ArrowColumnVectorsTest {
    private final BufferAllocator alloc = new RootAllocator();

    @AfterEach
    void close() {
        alloc.close();
    }

    private static ColumnarRowData row(List<FieldVector> vectors, int rows) {
        return new ColumnarRowData(ArrowColumnVectors.batch(vectors, rows));
    }

    @Test
    void scalarsReadInPlaceWithNulls() {
        try (VarCharVector s = new VarCharVector("s", alloc);
                LargeVarCharVector ls = new LargeVarCharVector("ls", alloc);
                UInt4Vector u = new UInt4Vector("u", alloc);
                DecimalVector small = new DecimalVector("d", alloc, 10, 2);
                DecimalVector big = new DecimalVector("b", alloc, 38, 4)) {
            s.allocateNew();
            ls.allocateNew();
            u.allocateNew();
            small.allocateNew();
            big.allocateNew();
            s.setSafe(0, "héllo".getBytes(StandardCharsets.UTF_8));
            s.setNull(1);
            ls.setSafe(0, "x".getBytes(StandardCharsets.UTF_8));
            ls.setSafe(1, "".getBytes(StandardCharsets.UTF_8));
            u.setSafe(0, 0xFFFF_FFFF);
            u.setNull(1);
            small.setSafe(0, new BigDecimal("-12.34"));
            small.setNull(1);
            big.setSafe(0, new BigDecimal("1234567890123456789012345678901234.5678"));
            big.setNull(1);
            for (FieldVector v : List.<FieldVector>of(s, ls, u, small, big)) {
                v.setValueCount(2);
            }
            ColumnarRowData r = row(List.of(s, ls, u, small, big), 2);
            r.setRowId(0);
            assertThat(r.getString(0).toString()).isEqualTo("héllo");
            assertThat(r.getString(1).toString()).isEqualTo("x");
            assertThat(r.getLong(2)).isEqualTo(4_294_967_295L);
            assertThat(r.getDecimal(3, 10, 2).toBigDecimal()).isEqualTo(new BigDecimal("-12.34"));
            assertThat(r.getDecimal(4, 38, 4).toBigDecimal())
                    .isEqualTo(new BigDecimal("1234567890123456789012345678901234.5678"));
            r.setRowId(1);
            assertThat(r.isNullAt(0)).isTrue();
            assertThat(r.getString(1).toString()).isEmpty();
            assertThat(r.isNullAt(2)).isTrue();
            assertThat(r.isNullAt(3)).isTrue();
        }
    }

    @Test
    void timesOfEveryUnitReadAsMillisecondsOfTheDayTruncated() {
        try (TimeSecVector s = new TimeSecVector("s", alloc);
                TimeMilliVector ms = new TimeMilliVector("ms", alloc);
                TimeMicroVector us = new TimeMicroVector("us", alloc);
                TimeNanoVector ns = new TimeNanoVector("ns", alloc)) {
            s.allocateNew();
            ms.allocateNew();
            us.allocateNew();
            ns.allocateNew();
            s.setSafe(0, 86_399);
            ms.setSafe(0, 47_655_678);
            us.setSafe(0, 47_655_678_999L);
            ns.setSafe(0, 86_399_999_999_999L);
            for (FieldVector v : List.<FieldVector>of(s, ms, us, ns)) {
                v.setNull(1);
                v.setValueCount(2);
            }
            ColumnarRowData r = row(List.of(s, ms, us, ns), 2);
            r.setRowId(0);
            assertThat(r.getInt(0)).isEqualTo(86_399_000);
            assertThat(r.getInt(1)).isEqualTo(47_655_678);
            assertThat(r.getInt(2)).isEqualTo(47_655_678);
            assertThat(r.getInt(3)).isEqualTo(86_399_999);
            r.setRowId(1);
            for (int c = 0; c < 4; c++) {
                assertThat(r.isNullAt(c)).isTrue();
            }
        }
    }

    @Test
    void timestampsAreTruncatedToTheAskedPrecision() {
        try (TimeStampNanoTZVector ts = new TimeStampNanoTZVector("ts", alloc, "UTC")) {
            ts.allocateNew();
            ts.setSafe(0, 1_767_225_600_123_456_789L);
            ts.setSafe(1, -1L); // one nanosecond before the epoch
            ts.setValueCount(2);
            ColumnarRowData r = row(List.of(ts), 2);
            r.setRowId(0);
            assertThat(r.getTimestamp(0, 9).toInstant().toString()).isEqualTo("2026-01-01T00:00:00.123456789Z");
            assertThat(r.getTimestamp(0, 6).toInstant().toString()).isEqualTo("2026-01-01T00:00:00.123456Z");
            assertThat(r.getTimestamp(0, 3).toInstant().toString()).isEqualTo("2026-01-01T00:00:00.123Z");
            assertThat(r.getTimestamp(0, 1).toInstant().toString()).isEqualTo("2026-01-01T00:00:00.100Z");
            r.setRowId(1);
            assertThat(r.getTimestamp(0, 9).toInstant().toString()).isEqualTo("1969-12-31T23:59:59.999999999Z");
            assertThat(r.getTimestamp(0, 0).toInstant().toString()).isEqualTo("1969-12-31T23:59:59Z");
        }
    }

    @Test
    void nestedListsStructsAndMaps() {
        try (ListVector list = ListVector.empty("l", alloc);
                StructVector st = StructVector.empty("st", alloc);
                MapVector map = MapVector.empty("m", alloc, false)) {
            UnionListWriter lw = list.getWriter();
            lw.setPosition(0);
            lw.startList();
            lw.integer().writeInt(1);
            lw.integer().writeInt(2);
            lw.endList();
            lw.setPosition(1);
            lw.startList();
            lw.endList();
            list.setValueCount(2);

            IntVector x = st.addOrGet("x", FieldType.nullable(new ArrowType.Int(32, true)), IntVector.class);
            VarCharVector y = st.addOrGet("y", FieldType.nullable(ArrowType.Utf8.INSTANCE), VarCharVector.class);
            x.setSafe(0, 7);
            y.setSafe(0, "seven".getBytes(StandardCharsets.UTF_8));
            st.setIndexDefined(0);
            st.setNull(1);
            x.setValueCount(2);
            y.setValueCount(2);
            st.setValueCount(2);

            UnionMapWriter mw = map.getWriter();
            mw.setPosition(0);
            mw.startMap();
            mw.startEntry();
            mw.key().integer().writeInt(10);
            mw.value().integer().writeInt(100);
            mw.endEntry();
            mw.endMap();
            mw.setPosition(1);
            mw.startMap();
            mw.endMap();
            map.setValueCount(2);

            ColumnarRowData r = row(List.of(list, st, map), 2);
            r.setRowId(0);
            ArrayData a = r.getArray(0);
            assertThat(a.size()).isEqualTo(2);
            assertThat(a.getInt(0)).isEqualTo(1);
            assertThat(a.getInt(1)).isEqualTo(2);
            RowData inner = r.getRow(1, 2);
            assertThat(inner.getInt(0)).isEqualTo(7);
            assertThat(inner.getString(1).toString()).isEqualTo("seven");
            MapData m = r.getMap(2);
            assertThat(m.size()).isEqualTo(1);
            assertThat(m.keyArray().getInt(0)).isEqualTo(10);
            assertThat(m.valueArray().getInt(0)).isEqualTo(100);
            r.setRowId(1);
            assertThat(r.getArray(0).size()).isZero();
            assertThat(r.isNullAt(1)).isTrue();
            assertThat(r.getMap(2).size()).isZero();
        }
    }
}
