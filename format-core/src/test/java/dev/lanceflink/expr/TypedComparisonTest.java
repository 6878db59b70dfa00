package dev.lanceflink.expr;

import static dev.lanceflink.expr.Expr.CompareOp.EQ;
import static dev.lanceflink.expr.Expr.CompareOp.GE;
import static dev.lanceflink.expr.Expr.CompareOp.GT;
import static dev.lanceflink.expr.Expr.CompareOp.LE;
import static dev.lanceflink.expr.Expr.CompareOp.LT;
import static dev.lanceflink.expr.Expr.CompareOp.NE;
import static dev.lanceflink.expr.Expr.Domain.DOUBLE;
import static dev.lanceflink.expr.Expr.Domain.DOUBLE_TOTAL;
import static dev.lanceflink.expr.Expr.Domain.EXACT;
import static dev.lanceflink.expr.Expr.Domain.FLOAT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeSecVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.TimeStampNanoVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The typed comparison domains, one type per test, each over a batch with NULLs and the type's
 * awkward values (NaN, -0.0, extremes, pre-1970 instants, digits beyond a column's unit).
 */
class TypedComparisonTest {
    private final BufferAllocator allocator = new RootAllocator();
    private final List<VectorSchemaRoot> batches = new ArrayList<>();

    @AfterEach
    void tearDown() {
        batches.forEach(VectorSchemaRoot::close);
        allocator.close();
    }

    private VectorSchemaRoot batch(FieldVector... vectors) {
        VectorSchemaRoot b = VectorSchemaRoot.of(vectors);
        b.setRowCount(vectors[0].getValueCount());
        batches.add(b);
        return b;
    }

    private static int[] rows(VectorSchemaRoot batch, Expr filter) {
        return PredicateEvaluator.selectedRows(filter, batch);
    }

    private static Expr col(String name) {
        return Expr.Column.of(name);
    }

    private static Expr lit(Object v) {
        return new Expr.Literal(v);
    }

    private static Expr cmp(Expr.CompareOp op, String column, Object literal, Expr.Domain domain) {
        return new Expr.Compare(op, col(column), lit(literal), domain);
    }

    @Test
    void booleans() {
        BitVector b = new BitVector("b", allocator);
        Boolean[] values = {true, false, null, true};
        for (int i = 0; i < values.length; i++) {
            if (values[i] == null) {
                b.setNull(i);
            } else {
                b.setSafe(i, values[i] ? 1 : 0);
            }
        }
        b.setValueCount(values.length);
        VectorSchemaRoot batch = batch(b);
        assertThat(rows(batch, cmp(EQ, "b", true, EXACT))).containsExactly(0, 3);
        assertThat(rows(batch, cmp(NE, "b", true, EXACT))).containsExactly(1);
        assertThat(rows(batch, cmp(LT, "b", true, EXACT))).containsExactly(1); // FALSE before TRUE
        assertThat(rows(batch, new Expr.Not(cmp(EQ, "b", true, EXACT)))).containsExactly(1);
        assertThat(rows(batch, new Expr.IsNull(col("b"), false))).containsExactly(2);
    }

    @Test
    void integersOfEveryWidthCompareExactlyWithIntegersAndDecimals() {
        TinyIntVector i8 = new TinyIntVector("i8", allocator);
        SmallIntVector i16 = new SmallIntVector("i16", allocator);
        IntVector i32 = new IntVector("i32", allocator);
        BigIntVector i64 = new BigIntVector("i64", allocator);
        UInt4Vector u32 = new UInt4Vector("u32", allocator);
        long[] values = {-128, 1, 2, 127};
        long[] longs = {Long.MIN_VALUE, 1, 2, Long.MAX_VALUE};
        for (int i = 0; i < 4; i++) {
            i8.setSafe(i, (int) values[i]);
            i16.setSafe(i, (int) values[i] * 100);
            i32.setSafe(i, (int) values[i]);
            i64.setSafe(i, longs[i]);
            u32.setSafe(i, (int) (i == 3 ? 0xFFFFFFFFL : i));
        }
        i32.setNull(1);
        for (FieldVector v : List.of(i8, i16, i32, i64, u32)) {
            v.setValueCount(4);
        }
        VectorSchemaRoot batch = batch(i8, i16, i32, i64, u32);
        assertThat(rows(batch, cmp(GT, "i8", 1L, EXACT))).containsExactly(2, 3);
        assertThat(rows(batch, cmp(LE, "i16", 100, EXACT))).containsExactly(0, 1);
        assertThat(rows(batch, cmp(NE, "i32", 2L, EXACT))).containsExactly(0, 3); // row 1 is NULL
        assertThat(rows(batch, cmp(EQ, "i64", Long.MAX_VALUE, EXACT))).containsExactly(3);
        assertThat(rows(batch, cmp(LT, "i64", Long.MIN_VALUE + 1, EXACT))).containsExactly(0);
        assertThat(rows(batch, cmp(GT, "u32", 2L, EXACT))).containsExactly(3); // unsigned: 4294967295
        // Decimal literals against integers: exact, a fraction included.
        assertThat(rows(batch, cmp(GT, "i8", new BigDecimal("1.5"), EXACT))).containsExactly(2, 3);
        assertThat(rows(batch, cmp(EQ, "i8", new BigDecimal("2.000"), EXACT))).containsExactly(2);
        assertThat(rows(batch, cmp(LE, "i8", new BigDecimal("-128.5"), EXACT))).isEmpty();
        assertThat(rows(batch, cmp(LT, "i64", new BigDecimal("9223372036854775808"), EXACT)))
                .containsExactly(0, 1, 2, 3);
        assertThat(rows(batch, cmp(GT, "i64", new BigDecimal("-99999999999999999999999"), EXACT)))
                .containsExactly(0, 1, 2, 3);
        // Column against column, either side the literal.
        assertThat(rows(batch, new Expr.Compare(EQ, col("i8"), col("i32"), EXACT)))
                .containsExactly(0, 2, 3);
        assertThat(rows(batch, new Expr.Compare(LT, lit(1L), col("i8"), EXACT))).containsExactly(2, 3);
    }

    private Float4Vector floats() {
        Float4Vector f = new Float4Vector("f32", allocator);
        Float[] values = {1.5f, Float.NaN, -0.0f, null, 0.1f, 16_777_216f};
        for (int i = 0; i < values.length; i++) {
            if (values[i] == null) {
                f.setNull(i);
            } else {
                f.setSafe(i, values[i]);
            }
        }
        f.setValueCount(values.length);
        return f;
    }

    @Test
    void floatsCompareAsIeeeFloats() {
        VectorSchemaRoot batch = batch(floats());
        assertThat(rows(batch, cmp(GT, "f32", 1L, FLOAT))).containsExactly(0, 5); // NaN is unordered
        assertThat(rows(batch, cmp(EQ, "f32", 0L, FLOAT))).containsExactly(2); // -0.0 = 0
        assertThat(rows(batch, cmp(NE, "f32", 1.5f, FLOAT))).containsExactly(1, 2, 4, 5); // NaN <> x
        assertThat(rows(batch, cmp(EQ, "f32", 0.1f, FLOAT))).containsExactly(4);
        // The integer converts to float as Java converts it: 16777217 rounds to 16777216.
        assertThat(rows(batch, cmp(EQ, "f32", 16_777_217L, FLOAT))).containsExactly(5);
        // As doubles, 0.1f is not 0.1.
        assertThat(rows(batch, cmp(EQ, "f32", 0.1, DOUBLE))).isEmpty();
        assertThat(rows(batch, cmp(EQ, "f32", (double) 0.1f, DOUBLE))).containsExactly(4);
        assertThatThrownBy(() -> rows(batch, cmp(EQ, "f32", 0.1, FLOAT)))
                .isInstanceOf(FilterException.class)
                .hasMessageContaining("column 'f32'")
                .hasMessageContaining("FLOAT takes float and integer literals");
    }

    @Test
    void doublesCompareAsIeeeOrInTotalOrder() {
        Float8Vector f = new Float8Vector("f64", allocator);
        Double[] values = {1.5, Double.NaN, -0.0, null, 0.1, Double.NEGATIVE_INFINITY};
        for (int i = 0; i < values.length; i++) {
            if (values[i] == null) {
                f.setNull(i);
            } else {
                f.setSafe(i, values[i]);
            }
        }
        f.setValueCount(values.length);
        VectorSchemaRoot batch = batch(f);
        // IEEE: NaN matches only <>, -0.0 equals 0.0.
        assertThat(rows(batch, cmp(GT, "f64", 1L, DOUBLE))).containsExactly(0);
        assertThat(rows(batch, cmp(NE, "f64", 1.5, DOUBLE))).containsExactly(1, 2, 4, 5);
        assertThat(rows(batch, cmp(EQ, "f64", 0.0, DOUBLE))).containsExactly(2);
        assertThat(rows(batch, cmp(LT, "f64", 0.0, DOUBLE))).containsExactly(5);
        // Total order: NaN above everything and equal to itself, -0.0 below 0.0.
        assertThat(rows(batch, cmp(GT, "f64", 1.0, DOUBLE_TOTAL))).containsExactly(0, 1);
        assertThat(rows(batch, cmp(EQ, "f64", Double.NaN, DOUBLE_TOTAL))).containsExactly(1);
        assertThat(rows(batch, cmp(LT, "f64", 0.0, DOUBLE_TOTAL))).containsExactly(2, 5);
        assertThat(rows(batch, cmp(EQ, "f64", new BigDecimal("0.1"), DOUBLE_TOTAL)))
                .containsExactly(4);
        assertThat(rows(batch, cmp(GE, "f64", new BigDecimal("1.50"), DOUBLE_TOTAL)))
                .containsExactly(0, 1);
        assertThatThrownBy(() -> rows(batch, cmp(EQ, "f64", 1.0, EXACT)))
                .isInstanceOf(FilterException.class)
                .hasMessageContaining("FLOAT, DOUBLE or DOUBLE_TOTAL");
    }

    private DecimalVector shortDecimals() {
        DecimalVector d = new DecimalVector("dec", allocator, 10, 2);
        String[] values = {"1.25", "-0.01", null, "12345678.91", "0.00"};
        for (int i = 0; i < values.length; i++) {
            if (values[i] == null) {
                d.setNull(i);
            } else {
                d.setSafe(i, new BigDecimal(values[i]));
            }
        }
        d.setValueCount(values.length);
        return d;
    }

    @Test
    void shortDecimalsCompareExactlyOnTheirUnscaledLongs() {
        VectorSchemaRoot batch = batch(shortDecimals());
        assertThat(rows(batch, cmp(GT, "dec", new BigDecimal("1.2"), EXACT))).containsExactly(0, 3);
        assertThat(rows(batch, cmp(EQ, "dec", new BigDecimal("1.250"), EXACT))).containsExactly(0);
        // More fractional digits than the column's scale: no rounding of the literal.
        assertThat(rows(batch, cmp(GT, "dec", new BigDecimal("1.251"), EXACT))).containsExactly(3);
        assertThat(rows(batch, cmp(GE, "dec", new BigDecimal("1.249"), EXACT))).containsExactly(0, 3);
        assertThat(rows(batch, cmp(EQ, "dec", new BigDecimal("1.249"), EXACT))).isEmpty();
        assertThat(rows(batch, cmp(LT, "dec", new BigDecimal("-0.005"), EXACT))).containsExactly(1);
        assertThat(rows(batch, cmp(LE, "dec", 0L, EXACT))).containsExactly(1, 4);
        assertThat(rows(batch, cmp(LT, "dec", new BigDecimal("1E+30"), EXACT))).containsExactly(0, 1, 3, 4);
        assertThat(rows(batch, cmp(GT, "dec", new BigDecimal("-1E+30"), EXACT))).containsExactly(0, 1, 3, 4);
        // Against doubles: the decimal converts to a double.
        assertThat(rows(batch, cmp(EQ, "dec", 1.25, DOUBLE_TOTAL))).containsExactly(0);
        assertThat(rows(batch, cmp(GT, "dec", 0.0, DOUBLE_TOTAL))).containsExactly(0, 3);
    }

    @Test
    void longDecimalsCompareExactly() {
        DecimalVector d = new DecimalVector("dec", allocator, 38, 6);
        Decimal256Vector w = new Decimal256Vector("wide", allocator, 40, 6);
        String[] values = {
            "12345678901234567890123456789012.123456", "-99999999999999999999999999999999.999999", null, "0.000001"
        };
        for (int i = 0; i < values.length; i++) {
            if (values[i] == null) {
                d.setNull(i);
                w.setNull(i);
            } else {
                d.setSafe(i, new BigDecimal(values[i]));
                w.setSafe(i, new BigDecimal(values[i]));
            }
        }
        d.setValueCount(values.length);
        w.setValueCount(values.length);
        VectorSchemaRoot batch = batch(d, w);
        BigDecimal justAbove = new BigDecimal("12345678901234567890123456789012.1234561");
        for (String c : List.of("dec", "wide")) {
            assertThat(rows(batch, cmp(LT, c, justAbove, EXACT))).containsExactly(0, 1, 3);
            assertThat(rows(batch, cmp(EQ, c, new BigDecimal("12345678901234567890123456789012.123456000"), EXACT)))
                    .containsExactly(0);
            assertThat(rows(batch, cmp(GT, c, 0L, EXACT))).containsExactly(0, 3);
            // Nearest doubles are equal here although the decimals differ.
            assertThat(rows(batch, cmp(EQ, c, justAbove.doubleValue(), DOUBLE_TOTAL)))
                    .containsExactly(0);
        }
    }

    @Test
    void stringsCompareByUtf8BytesAndBinaryUnsigned() {
        VarCharVector s = new VarCharVector("s", allocator);
        VarBinaryVector b = new VarBinaryVector("bin", allocator);
        FixedSizeBinaryVector f = new FixedSizeBinaryVector("fixed", allocator, 2);
        String[] strings = {"alice", "é", null, "zz", ""};
        byte[][] bytes = {{0}, {(byte) 0xFF}, null, {0, 1}, {}};
        byte[][] fixed = {{0, 0}, {(byte) 0xFF, 0}, null, {0, 1}, {1, 1}};
        for (int i = 0; i < strings.length; i++) {
            if (strings[i] == null) {
                s.setNull(i);
                b.setNull(i);
                f.setNull(i);
            } else {
                s.setSafe(i, strings[i].getBytes(StandardCharsets.UTF_8));
                b.setSafe(i, bytes[i]);
                f.setSafe(i, fixed[i]);
            }
        }
        s.setValueCount(5);
        b.setValueCount(5);
        f.setValueCount(5);
        VectorSchemaRoot batch = batch(s, b, f);
        assertThat(rows(batch, cmp(EQ, "s", "é", EXACT))).containsExactly(1);
        assertThat(rows(batch, cmp(GT, "s", "z", EXACT))).containsExactly(1, 3); // 0xC3 > 'z'
        assertThat(rows(batch, cmp(LT, "s", "b", EXACT))).containsExactly(0, 4);
        assertThat(rows(batch, cmp(GT, "bin", new byte[] {0}, EXACT))).containsExactly(1, 3); // a prefix first
        assertThat(rows(batch, cmp(LE, "fixed", new byte[] {0, 1}, EXACT))).containsExactly(0, 3);
        assertThat(rows(batch, new Expr.Compare(EQ, col("bin"), col("bin"), EXACT)))
                .containsExactly(0, 1, 3, 4);
        assertThatThrownBy(() -> rows(batch, cmp(EQ, "s", new byte[] {0}, EXACT)))
                .isInstanceOf(FilterException.class)
                .hasMessageContaining("column 's'")
                .hasMessageContaining("one is a string, the other binary");
    }

    @Test
    void datesOfDaysAndMilliseconds() {
        DateDayVector d = new DateDayVector("d", allocator);
        DateMilliVector m = new DateMilliVector("dm", allocator);
        LocalDate[] values = {LocalDate.of(1969, 12, 31), LocalDate.of(2024, 1, 1), null, LocalDate.of(9999, 12, 31)};
        for (int i = 0; i < values.length; i++) {
            if (values[i] == null) {
                d.setNull(i);
                m.setNull(i);
            } else {
                d.setSafe(i, (int) values[i].toEpochDay());
                // A millisecond value inside the day still is that day.
                m.setSafe(i, values[i].toEpochDay() * 86_400_000L + 3_600_000L);
            }
        }
        d.setValueCount(4);
        m.setValueCount(4);
        VectorSchemaRoot batch = batch(d, m);
        for (String c : List.of("d", "dm")) {
            assertThat(rows(batch, cmp(GE, c, LocalDate.of(2024, 1, 1), EXACT))).containsExactly(1, 3);
            assertThat(rows(batch, cmp(EQ, c, LocalDate.of(1969, 12, 31), EXACT)))
                    .containsExactly(0);
        }
        assertThatThrownBy(() -> rows(batch, cmp(EQ, "d", "2024-01-01", EXACT)))
                .isInstanceOf(FilterException.class)
                .hasMessageContaining("one is a date, the other a string");
    }

    @Test
    void timesOfDayExactlyOrRoundedDown() {
        TimeMicroVector t = new TimeMicroVector("t", allocator);
        TimeSecVector s = new TimeSecVector("ts0", allocator);
        LocalTime[] values = {
            LocalTime.parse("10:00:00.123456"),
            LocalTime.parse("10:00:00.123"),
            null,
            LocalTime.parse("23:59:59.999999")
        };
        for (int i = 0; i < values.length; i++) {
            if (values[i] == null) {
                t.setNull(i);
                s.setNull(i);
            } else {
                t.setSafe(i, values[i].toNanoOfDay() / 1000);
                s.setSafe(i, values[i].toSecondOfDay());
            }
        }
        t.setValueCount(4);
        s.setValueCount(4);
        VectorSchemaRoot batch = batch(t, s);
        LocalTime millis = LocalTime.parse("10:00:00.123");
        assertThat(rows(batch, cmp(EQ, "t", millis, EXACT))).containsExactly(1);
        assertThat(rows(batch, cmp(GT, "t", millis, EXACT))).containsExactly(0, 3);
        Expr floored = new Expr.Compare(EQ, new Expr.Floor(col("t"), 3), lit(millis), EXACT);
        assertThat(rows(batch, floored)).containsExactly(0, 1);
        assertThat(rows(batch, cmp(EQ, "ts0", LocalTime.parse("10:00"), EXACT))).containsExactly(0, 1);
        assertThat(rows(batch, cmp(LT, "ts0", LocalTime.parse("10:00:00.5"), EXACT)))
                .containsExactly(0, 1);
    }

    @Test
    void timestampsCompareExactlyAcrossUnitsAndRoundDownTowardThePast() {
        TimeStampMicroVector us = new TimeStampMicroVector("ts", allocator);
        TimeStampNanoVector ns = new TimeStampNanoVector("tsn", allocator);
        LocalDateTime[] values = {
            LocalDateTime.parse("2024-01-01T00:00:00.000001"),
            LocalDateTime.parse("1969-12-31T23:59:59.999999"),
            null,
            LocalDateTime.parse("2000-01-01T00:00")
        };
        for (int i = 0; i < values.length; i++) {
            if (values[i] == null) {
                us.setNull(i);
                ns.setNull(i);
            } else {
                long seconds = values[i].toEpochSecond(ZoneOffset.UTC);
                us.setSafe(i, seconds * 1_000_000 + values[i].getNano() / 1000);
                ns.setSafe(i, seconds * 1_000_000_000 + values[i].getNano() + (i == 3 ? 1 : 0));
            }
        }
        us.setValueCount(4);
        ns.setValueCount(4);
        VectorSchemaRoot batch = batch(us, ns);
        LocalDateTime between = LocalDateTime.parse("2024-01-01T00:00:00.0000015");
        assertThat(rows(batch, cmp(LT, "ts", between, EXACT))).containsExactly(0, 1, 3); // not truncated
        assertThat(rows(batch, cmp(EQ, "ts", LocalDateTime.parse("2024-01-01T00:00:00.000001"), EXACT)))
                .containsExactly(0);
        Expr floorToMillis = new Expr.Floor(col("ts"), 3);
        assertThat(rows(
                        batch,
                        new Expr.Compare(EQ, floorToMillis, lit(LocalDateTime.parse("2024-01-01T00:00")), EXACT)))
                .containsExactly(0);
        // Before 1970 rounding down goes toward the past, not toward the epoch.
        assertThat(rows(
                        batch,
                        new Expr.Compare(
                                EQ, floorToMillis, lit(LocalDateTime.parse("1969-12-31T23:59:59.999")), EXACT)))
                .containsExactly(1);
        // Beyond what nanoseconds since 1970 can hold.
        assertThat(rows(batch, cmp(LT, "tsn", LocalDateTime.parse("3000-01-01T00:00"), EXACT)))
                .containsExactly(0, 1, 3);
        assertThat(rows(batch, cmp(GT, "tsn", LocalDateTime.parse("0001-01-01T00:00"), EXACT)))
                .containsExactly(0, 1, 3);
        // Microseconds against nanoseconds: the nanosecond column is 1 ns later at row 3.
        assertThat(rows(batch, new Expr.Compare(EQ, col("ts"), col("tsn"), EXACT)))
                .containsExactly(0, 1);
        assertThat(rows(batch, new Expr.Compare(LT, col("ts"), col("tsn"), EXACT)))
                .containsExactly(3);
    }

    @Test
    void timestampsWithLocalTimeZoneCompareAsInstants() {
        TimeStampMicroTZVector ltz = new TimeStampMicroTZVector("ltz", allocator, "UTC");
        Instant[] values = {Instant.parse("2026-11-29T21:00:00.000001Z"), Instant.parse("1900-01-01T00:00:00Z"), null};
        for (int i = 0; i < values.length; i++) {
            if (values[i] == null) {
                ltz.setNull(i);
            } else {
                ltz.setSafe(i, values[i].getEpochSecond() * 1_000_000 + values[i].getNano() / 1000);
            }
        }
        ltz.setValueCount(3);
        VectorSchemaRoot batch = batch(ltz);
        assertThat(rows(batch, cmp(GT, "ltz", Instant.parse("2026-11-29T21:00:00Z"), EXACT)))
                .containsExactly(0);
        assertThat(rows(batch, cmp(EQ, "ltz", Instant.parse("1900-01-01T00:00:00Z"), EXACT)))
                .containsExactly(1);
        assertThatThrownBy(() -> rows(batch, cmp(EQ, "ltz", LocalDateTime.parse("1900-01-01T00:00"), EXACT)))
                .isInstanceOf(FilterException.class)
                .hasMessageContaining("an instant");
    }

    @Test
    void inListsAndLogicFollowSqlNullRules() {
        IntVector id = new IntVector("id", allocator);
        Float8Vector f = new Float8Vector("f", allocator);
        Integer[] ids = {1, 2, null, 4};
        double[] fs = {-0.0, Double.NaN, 1, 2};
        for (int i = 0; i < ids.length; i++) {
            if (ids[i] == null) {
                id.setNull(i);
            } else {
                id.setSafe(i, ids[i]);
            }
            f.setSafe(i, fs[i]);
        }
        id.setValueCount(4);
        f.setValueCount(4);
        VectorSchemaRoot batch = batch(id, f);
        List<Expr.Literal> oneFour = List.of(new Expr.Literal(1L), new Expr.Literal(4L));
        List<Expr.Literal> oneNull = List.of(new Expr.Literal(1L), new Expr.Literal(null));
        assertThat(rows(batch, new Expr.In(col("id"), oneFour, false, EXACT))).containsExactly(0, 3);
        assertThat(rows(batch, new Expr.In(col("id"), oneFour, true, EXACT))).containsExactly(1);
        assertThat(rows(batch, new Expr.In(col("id"), oneNull, false, EXACT))).containsExactly(0);
        assertThat(rows(batch, new Expr.In(col("id"), oneNull, true, EXACT))).isEmpty();
        assertThat(rows(batch, new Expr.In(col("f"), List.of(new Expr.Literal(0.0)), false, DOUBLE)))
                .containsExactly(0);
        assertThat(rows(batch, new Expr.In(col("f"), List.of(new Expr.Literal(0.0)), true, DOUBLE)))
                .containsExactly(1, 2, 3);
        // UNKNOWN OR TRUE is TRUE; UNKNOWN AND FALSE is FALSE, so NOT of it is TRUE.
        Expr idIsTwo = cmp(EQ, "id", 2L, EXACT);
        Expr fAboveOne = cmp(GT, "f", 1L, DOUBLE);
        assertThat(rows(batch, new Expr.Or(idIsTwo, fAboveOne))).containsExactly(1, 3);
        assertThat(rows(batch, new Expr.Not(new Expr.And(idIsTwo, fAboveOne)))).containsExactly(0, 1, 2, 3);
        assertThat(rows(batch, new Expr.Not(idIsTwo))).containsExactly(0, 3);
    }

    @Test
    void isNullWorksOnColumnsOfEveryType() {
        ListVector list = ListVector.empty("tags", allocator);
        list.allocateNew();
        list.startNewValue(0);
        list.endValue(0, 0);
        list.setNull(1);
        list.setValueCount(2);
        VectorSchemaRoot batch = batch(list);
        assertThat(rows(batch, new Expr.IsNull(col("tags"), false))).containsExactly(1);
        assertThat(rows(batch, new Expr.IsNull(col("tags"), true))).containsExactly(0);
    }

    @Test
    void typedTreesSurviveJavaSerialization() throws Exception {
        Expr tree = Expr.and(List.of(
                cmp(GT, "f", 1.5, DOUBLE),
                cmp(EQ, "r", 2.5f, FLOAT),
                cmp(LT, "d", new BigDecimal("1E+40"), EXACT),
                cmp(EQ, "s", "x", EXACT),
                cmp(EQ, "b", new byte[] {1, 2}, EXACT),
                cmp(EQ, "day", LocalDate.of(2024, 1, 1), EXACT),
                cmp(EQ, "t", LocalTime.NOON, EXACT),
                new Expr.Compare(GE, new Expr.Floor(col("ts"), 3), lit(LocalDateTime.parse("2024-01-01T00:00")), EXACT),
                cmp(LE, "ltz", Instant.EPOCH, EXACT),
                new Expr.IsNull(col("x"), true),
                new Expr.In(col("i"), List.of(new Expr.Literal(1), new Expr.Literal(null)), true, EXACT),
                new Expr.Or(new Expr.Not(cmp(EQ, "flag", true, EXACT)), cmp(EQ, "flag", false, EXACT))));
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
            out.writeObject(tree);
        }
        Object back;
        try (java.io.ObjectInputStream in =
                new java.io.ObjectInputStream(new java.io.ByteArrayInputStream(bytes.toByteArray()))) {
            back = in.readObject();
        }
        // Records compare byte[] literals by identity, so compare what they print.
        assertThat(ExprPrinter.sql((Expr) back)).isEqualTo(ExprPrinter.sql(tree));
        assertThat(((Expr.And) back).right()).isEqualTo(((Expr.And) tree).right());
        assertThat(ExprPrinter.sql(tree))
                .contains("(`i` NOT IN (1, NULL))")
                .contains("(`b` = X'0102')")
                .contains("(`t` = TIME '12:00')")
                .contains("(`ltz` <= TIMESTAMP_LTZ '1970-01-01 00:00Z')");
    }

    @Test
    void parsedFiltersPrintAsTextThatParsesBackToTheSameTree() {
        for (String text : List.of(
                "id > 2",
                "NOT (id > 2) OR name IS NULL",
                "id BETWEEN 2 AND 3",
                "id NOT IN (1, NULL, -4)",
                "name LIKE 'o''neil%'",
                "a.b = 1.5E10",
                "x * 2 + 1 > 6 - 1",
                "day >= DATE '2024-01-03'",
                "ts < TIMESTAMP '2024-01-01 10:00:00.5'",
                "bin = X'00ff'",
                "big = 123456789012345678901234567890",
                "flag AND TRUE")) {
            Expr parsed = ExprParser.parse(text);
            String printed = ExprPrinter.sql(parsed);
            assertThat(printSafe(ExprParser.parse(printed)))
                    .as(text + " printed as " + printed)
                    .isEqualTo(printSafe(parsed));
        }
    }

    /** A tree's printed form with byte[] literals spelled out (records compare arrays by identity). */
    private static String printSafe(Expr e) {
        return ExprPrinter.sql(e) + " " + e.toString().replaceAll("\\[B@[0-9a-f]+", "bytes");
    }

    @Test
    void textFiltersKeepTheirLenientMeaning() {
        Float8Vector f = new Float8Vector("f", allocator);
        f.setSafe(0, Double.NaN);
        f.setSafe(1, -0.0);
        f.setValueCount(2);
        VectorSchemaRoot batch = batch(f);
        assertThat(rows(batch, ExprParser.parse("f > 1"))).containsExactly(0);
        assertThat(rows(batch, ExprParser.parse("f < 0"))).containsExactly(1);
        assertThat(ExprParser.parse("f > 1")).isEqualTo(new Expr.Compare(GT, col("f"), lit(1L), Expr.Domain.LENIENT));
    }
}
