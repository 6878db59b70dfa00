package dev.lanceflink.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.TimeStampMilliVector;
import org.apache.arrow.vector.TimeStampNanoVector;
import org.apache.arrow.vector.TimeStampSecVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ArrowJsonTest {
    private final BufferAllocator allocator = new RootAllocator();

    @AfterEach
    void close() {
        allocator.close();
    }

    /** Every cell of {@code v} rendered, as a JSON array text. */
    private static String cells(FieldVector v) throws Exception {
        StringWriter out = new StringWriter();
        try (JsonGenerator g = Json.FACTORY.createGenerator(out)) {
            g.writeStartArray();
            for (int i = 0; i < v.getValueCount(); i++) {
                ArrowJson.writeValue(g, v, i);
            }
            g.writeEndArray();
        }
        return out.toString();
    }

    @Test
    void booleansAndSignedIntegers() throws Exception {
        try (BitVector b = new BitVector("b", allocator);
                TinyIntVector i8 = new TinyIntVector("i8", allocator);
                SmallIntVector i16 = new SmallIntVector("i16", allocator);
                IntVector i32 = new IntVector("i32", allocator);
                BigIntVector i64 = new BigIntVector("i64", allocator)) {
            b.allocateNew(3);
            b.set(0, 1);
            b.set(1, 0);
            b.setNull(2);
            b.setValueCount(3);
            i8.allocateNew(2);
            i8.set(0, Byte.MIN_VALUE);
            i8.set(1, 127);
            i8.setValueCount(2);
            i16.allocateNew(1);
            i16.set(0, Short.MIN_VALUE);
            i16.setValueCount(1);
            i32.allocateNew(1);
            i32.set(0, Integer.MIN_VALUE);
            i32.setValueCount(1);
            i64.allocateNew(2);
            i64.set(0, Long.MIN_VALUE);
            i64.set(1, Long.MAX_VALUE);
            i64.setValueCount(2);
            assertThat(cells(b)).isEqualTo("[true,false,null]");
            assertThat(cells(i8)).isEqualTo("[-128,127]");
            assertThat(cells(i16)).isEqualTo("[-32768]");
            assertThat(cells(i32)).isEqualTo("[-2147483648]");
            assertThat(cells(i64)).isEqualTo("[-9223372036854775808,9223372036854775807]");
        }
    }

    @Test
    void unsignedIntegersPrintTheirUnsignedValue() throws Exception {
        try (UInt1Vector u8 = new UInt1Vector("u8", allocator);
                UInt4Vector u32 = new UInt4Vector("u32", allocator);
                UInt8Vector u64 = new UInt8Vector("u64", allocator)) {
            u8.allocateNew(1);
            u8.set(0, (byte) 0xFF);
            u8.setValueCount(1);
            u32.allocateNew(1);
            u32.set(0, 0xFFFF_FFFF);
            u32.setValueCount(1);
            u64.allocateNew(2);
            u64.set(0, -1L);
            u64.set(1, 42L);
            u64.setValueCount(2);
            assertThat(cells(u8)).isEqualTo("[255]");
            assertThat(cells(u32)).isEqualTo("[4294967295]");
            assertThat(cells(u64)).isEqualTo("[18446744073709551615,42]");
        }
    }

    @Test
    void floatsUseTheShortestPlainDecimalOfTheirWidth() throws Exception {
        try (Float4Vector f = new Float4Vector("f", allocator);
                Float8Vector d = new Float8Vector("d", allocator);
                Float2Vector h = new Float2Vector("h", allocator)) {
            float[] floats = {
                0.1f,
                1.0f,
                -0.0f,
                1e10f,
                Float.MIN_VALUE,
                Float.NaN,
                Float.POSITIVE_INFINITY,
                Float.NEGATIVE_INFINITY,
                3.4028235e38f,
                2.5e-5f
            };
            f.allocateNew(floats.length);
            for (int i = 0; i < floats.length; i++) {
                f.set(i, floats[i]);
            }
            f.setValueCount(floats.length);
            assertThat(cells(f))
                    .isEqualTo("[0.1,1.0,-0.0,10000000000.0,"
                            + "0.000000000000000000000000000000000000000000001,\"NaN\",\"Infinity\",\"-Infinity\","
                            + "340282350000000000000000000000000000000.0,0.000025]");
            d.allocateNew(4);
            d.set(0, 0.1);
            d.set(1, -7.5);
            d.set(2, 1e21);
            d.set(3, Double.NaN);
            d.setValueCount(4);
            assertThat(cells(d)).isEqualTo("[0.1,-7.5,1000000000000000000000.0,\"NaN\"]");
            h.allocateNew(3);
            h.set(0, (short) 0x3400); // 0.25
            h.set(1, (short) 0xC100); // -2.5
            h.setNull(2);
            h.setValueCount(3);
            assertThat(cells(h)).isEqualTo("[0.25,-2.5,null]");
        }
    }

    @Test
    void decimalsKeepExactlyTheirScale() throws Exception {
        try (DecimalVector d4 = new DecimalVector("d", allocator, 20, 4);
                DecimalVector d0 = new DecimalVector("d0", allocator, 10, 0)) {
            d4.allocateNew(4);
            d4.set(0, new BigDecimal("1.5000"));
            d4.set(1, new BigDecimal("-0.0001"));
            d4.set(2, new BigDecimal("0.0000"));
            d4.set(3, new BigDecimal("-9999999999999999.9999"));
            d4.setValueCount(4);
            d0.allocateNew(1);
            d0.set(0, new BigDecimal("15"));
            d0.setValueCount(1);
            assertThat(cells(d4)).isEqualTo("[1.5000,-0.0001,0.0000,-9999999999999999.9999]");
            assertThat(cells(d0)).isEqualTo("[15]");
        }
    }

    @Test
    void stringsAndBinariesAsTextAndLowercaseHex() throws Exception {
        try (VarCharVector s = new VarCharVector("s", allocator);
                LargeVarCharVector ls = new LargeVarCharVector("ls", allocator);
                VarBinaryVector b = new VarBinaryVector("b", allocator);
                FixedSizeBinaryVector fb = new FixedSizeBinaryVector("fb", allocator, 2)) {
            s.allocateNew();
            s.setSafe(0, "grüße 🚀".getBytes(StandardCharsets.UTF_8));
            s.setSafe(1, new byte[0]);
            s.setValueCount(2);
            ls.allocateNew();
            ls.setSafe(0, "\"q\"".getBytes(StandardCharsets.UTF_8));
            ls.setValueCount(1);
            b.allocateNew();
            b.setSafe(0, new byte[] {0x0A, (byte) 0xFF});
            b.setSafe(1, new byte[0]);
            b.setValueCount(2);
            fb.allocateNew(1);
            fb.set(0, new byte[] {(byte) 0xAB, 0x01});
            fb.setValueCount(1);
            assertThat(cells(s)).isEqualTo("[\"grüße 🚀\",\"\"]");
            assertThat(cells(ls)).isEqualTo("[\"\\\"q\\\"\"]");
            assertThat(cells(b)).isEqualTo("[\"0x0aff\",\"0x\"]");
            assertThat(cells(fb)).isEqualTo("[\"0xab01\"]");
        }
    }

    @Test
    void datesAndTimestampsWithExactlyTheUnitsDigits() throws Exception {
        try (DateDayVector day = new DateDayVector("day", allocator);
                TimeStampSecVector s = new TimeStampSecVector("s", allocator);
                TimeStampMilliVector ms = new TimeStampMilliVector("ms", allocator);
                TimeStampMicroVector us = new TimeStampMicroVector("us", allocator);
                TimeStampNanoVector ns = new TimeStampNanoVector("ns", allocator);
                TimeStampMicroTZVector tz = new TimeStampMicroTZVector("tz", allocator, "Europe/Berlin")) {
            day.allocateNew(2);
            day.set(0, 0);
            day.set(1, -20000);
            day.setValueCount(2);
            s.allocateNew(1);
            s.set(0, 1_600_000_001L);
            s.setValueCount(1);
            ms.allocateNew(1);
            ms.set(0, 1_600_000_001_000L);
            ms.setValueCount(1);
            us.allocateNew(2);
            us.set(0, 1_600_000_001_000_003L);
            us.set(1, -1L);
            us.setValueCount(2);
            ns.allocateNew(1);
            ns.set(0, 1_600_000_001_000_000_007L);
            ns.setValueCount(1);
            tz.allocateNew(1);
            tz.set(0, 1_600_000_001_000_003L);
            tz.setValueCount(1);
            assertThat(cells(day)).isEqualTo("[\"1970-01-01\",\"1915-03-31\"]");
            assertThat(cells(s)).isEqualTo("[\"2020-09-13T12:26:41\"]");
            assertThat(cells(ms)).isEqualTo("[\"2020-09-13T12:26:41.000\"]");
            assertThat(cells(us)).isEqualTo("[\"2020-09-13T12:26:41.000003\",\"1969-12-31T23:59:59.999999\"]");
            assertThat(cells(ns)).isEqualTo("[\"2020-09-13T12:26:41.000000007\"]");
            assertThat(cells(tz)).isEqualTo("[\"2020-09-13T12:26:41.000003Z\"]");
        }
    }

    @Test
    void listsFixedSizeListsAndStructsNest() throws Exception {
        try (ListVector list = ListVector.empty("l", allocator);
                LargeListVector large = LargeListVector.empty("ll", allocator);
                FixedSizeListVector fsl = FixedSizeListVector.empty("f", 2, allocator);
                StructVector struct = StructVector.empty("s", allocator)) {
            list.addOrGetVector(FieldType.nullable(new ArrowType.Int(32, true)));
            list.allocateNew();
            IntVector items = (IntVector) list.getDataVector();
            items.setSafe(0, 1);
            items.setNull(1);
            items.setSafe(2, 3);
            list.startNewValue(0);
            list.endValue(0, 2);
            list.startNewValue(1);
            list.endValue(1, 0);
            list.setNull(2);
            list.startNewValue(3);
            list.endValue(3, 1);
            list.setValueCount(4);
            assertThat(cells(list)).isEqualTo("[[1,null],[],null,[3]]");

            large.addOrGetVector(FieldType.nullable(new ArrowType.Bool()));
            large.allocateNew();
            BitVector bits = (BitVector) large.getDataVector();
            bits.setSafe(0, 1);
            large.startNewValue(0);
            large.endValue(0, 1);
            large.setValueCount(1);
            assertThat(cells(large)).isEqualTo("[[true]]");

            fsl.addOrGetVector(FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)));
            fsl.allocateNew();
            Float4Vector floats = (Float4Vector) fsl.getDataVector();
            floats.setSafe(0, 0.5f);
            floats.setNull(1);
            fsl.setNotNull(0);
            fsl.setNull(1);
            fsl.setValueCount(2);
            assertThat(cells(fsl)).isEqualTo("[[0.5,null],null]");

            IntVector a = struct.addOrGet("a", FieldType.nullable(new ArrowType.Int(32, true)), IntVector.class);
            VarCharVector b = struct.addOrGet("b", FieldType.nullable(new ArrowType.Utf8()), VarCharVector.class);
            struct.allocateNew();
            a.set(0, 7);
            b.setNull(0);
            struct.setIndexDefined(0);
            struct.setNull(1);
            a.setValueCount(2);
            b.setValueCount(2);
            struct.setValueCount(2);
            assertThat(cells(struct)).isEqualTo("[{\"a\":7,\"b\":null},null]");
        }
    }

    @Test
    void typeNamesFollowTheDumpGrammar() {
        Field i32NotNull = new Field("item", FieldType.notNullable(new ArrowType.Int(32, true)), null);
        Field utf8 = new Field("b", FieldType.nullable(new ArrowType.Utf8()), null);
        Field a = new Field("a", FieldType.notNullable(new ArrowType.Int(32, true)), null);
        Field f16 =
                new Field("item", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.HALF)), null);
        assertThat(ArrowJson.typeName(field(new ArrowType.FixedSizeBinary(16)))).isEqualTo("fixed_size_binary[16]");
        assertThat(ArrowJson.typeName(field(new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC"))))
                .isEqualTo("timestamp[us, tz=UTC]");
        assertThat(ArrowJson.typeName(field(new ArrowType.Timestamp(TimeUnit.NANOSECOND, null))))
                .isEqualTo("timestamp[ns]");
        assertThat(ArrowJson.typeName(field(new ArrowType.Decimal(20, 4, 128)))).isEqualTo("decimal128(20, 4)");
        assertThat(ArrowJson.typeName(field(new ArrowType.Int(64, false)))).isEqualTo("uint64");
        assertThat(ArrowJson.typeName(field(new ArrowType.LargeUtf8()))).isEqualTo("large_utf8");
        assertThat(ArrowJson.typeName(new Field("l", FieldType.nullable(new ArrowType.List()), List.of(i32NotNull))))
                .isEqualTo("list<int32 not null>");
        assertThat(ArrowJson.typeName(new Field("f", FieldType.nullable(new ArrowType.FixedSizeList(4)), List.of(f16))))
                .isEqualTo("fixed_size_list<float16, 4>");
        assertThat(ArrowJson.typeName(new Field("s", FieldType.nullable(new ArrowType.Struct()), List.of(a, utf8))))
                .isEqualTo("struct<a: int32 not null, b: utf8>");
    }

    private static Field field(ArrowType type) {
        return new Field("x", FieldType.nullable(type), null);
    }
}
