package dev.lanceflink.flink.sink.upsert;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.flink.sink.writer.RowDataToArrow;
import dev.lanceflink.flink.types.LanceTypeMapping;
import dev.lanceflink.flink.types.VectorDimensions;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.read.Scanner;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.RowKind;

/**
 * A feature-table-like test table of {@value #COLUMNS} columns — {@code id BIGINT NOT NULL}, then
 * {@code c1} to {@code c299} cycling through INT, BIGINT, DOUBLE, STRING, BOOLEAN, FLOAT, DATE,
 * TIMESTAMP(6) and float lists (every other one a fixed-size vector of {@value #DIMENSION}) — its
 * rows as plain Java values per generation, and a cell-by-cell comparison of the table with them.
 */
final class WideTable {
    static final int COLUMNS = 300;
    static final int DIMENSION = 4;
    /** The declared columns; the table reads back as {@link #rowType()}. */
    static final RowType DECLARED;

    static final Map<String, Integer> VECTORS = new LinkedHashMap<>();
    static final Schema SCHEMA;

    static {
        List<RowType.RowField> fields = new ArrayList<>();
        fields.add(new RowType.RowField("id", new BigIntType(false)));
        for (int c = 1; c < COLUMNS; c++) {
            fields.add(new RowType.RowField(name(c), type(c)));
            if (c % 18 == 0) {
                VECTORS.put(name(c), DIMENSION);
            }
        }
        DECLARED = new RowType(fields);
        SCHEMA = LanceTypeMapping.toArrowSchema(DECLARED, VectorDimensions.of(VECTORS));
    }

    private WideTable() {}

    static String name(int column) {
        return column == 0 ? "id" : "c" + column;
    }

    private static LogicalType type(int c) {
        return switch (c % 9) {
            case 1 -> new IntType();
            case 2 -> new BigIntType();
            case 3 -> new DoubleType();
            case 4 -> new VarCharType(VarCharType.MAX_LENGTH);
            case 5 -> new BooleanType();
            case 6 -> new FloatType();
            case 7 -> new DateType();
            case 8 -> new TimestampType(6);
            default -> new ArrayType(new FloatType());
        };
    }

    /** The table's row type as Flink reads it (and as the sink's records are laid out). */
    static RowType rowType() {
        return LanceTypeMapping.toRowType(SCHEMA);
    }

    /**
     * Column {@code c}'s value in row {@code id} of generation {@code gen}, as a plain Java value
     * (Integer, Long, Double, String, Boolean, Float, LocalDate, LocalDateTime, List of Float), or
     * null now and then.
     */
    static Object value(int c, long id, int gen) {
        if (c == 0) {
            return id;
        }
        long h = id * 31 + c * 7L + gen * 1_000_003L;
        if (Math.floorMod(h, 13) == 0) {
            return null;
        }
        return switch (c % 9) {
            case 1 -> (int) (h % 100_000);
            case 2 -> h * 1_000_000_007L;
            case 3 -> h / 8.0;
            case 4 -> "g" + gen + "-r" + id + "-c" + c;
            case 5 -> (h & 1) == 0;
            case 6 -> (float) (h % 1_000) / 4f;
            case 7 -> LocalDate.of(2020, 1, 1).plusDays(h % 2_000);
            case 8 -> LocalDateTime.of(2024, 3, 1, 0, 0).plusSeconds(h % 86_400).plusNanos((h % 999_999) * 1_000);
            default -> {
                int n = c % 18 == 0 ? DIMENSION : (int) (h % 5);
                List<Float> list = new ArrayList<>();
                for (int k = 0; k < n; k++) {
                    list.add((float) (h % 97) + k / 2f);
                }
                yield list;
            }
        };
    }

    /** Row {@code id} of generation {@code gen}, plain values. */
    static Object[] plainRow(long id, int gen) {
        Object[] row = new Object[COLUMNS];
        for (int c = 0; c < COLUMNS; c++) {
            row[c] = value(c, id, gen);
        }
        return row;
    }

    /** {@code plain} as Flink's internal row of {@link #rowType()}. */
    static RowData toRowData(RowKind kind, Object[] plain) {
        GenericRowData row = new GenericRowData(kind, COLUMNS);
        for (int c = 0; c < COLUMNS; c++) {
            row.setField(c, internal(plain[c]));
        }
        return row;
    }

    private static Object internal(Object v) {
        if (v instanceof String s) {
            return StringData.fromString(s);
        }
        if (v instanceof LocalDate d) {
            return (int) d.toEpochDay();
        }
        if (v instanceof LocalDateTime t) {
            return TimestampData.fromLocalDateTime(t);
        }
        if (v instanceof List<?> l) {
            return new GenericArrayData(l.toArray());
        }
        return v;
    }

    /** Creates the table at {@code uri} holding {@code rows}, {@code rowsPerFile} rows per fragment. */
    static void create(String uri, Map<Long, Object[]> rows, long rowsPerFile) throws Exception {
        try (BufferAllocator a = new RootAllocator();
                RowDataToArrow batch = new RowDataToArrow(SCHEMA, a, uri)) {
            for (Object[] row : rows.values()) {
                batch.append(toRowData(RowKind.INSERT, row));
            }
            VectorSchemaRoot root = batch.batch();
            WriteParams p = WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(rowsPerFile);
            Dataset.write(uri, Map.of(), List.of(root), SCHEMA, p).close();
        }
    }

    /** Every row of the latest version equals the model's, cell by cell; no key twice, none missing. */
    static void assertTableEquals(String uri, TreeMap<Long, Object[]> expected) throws Exception {
        TreeMap<Long, String[]> actual = new TreeMap<>();
        try (Dataset ds = Dataset.open(uri, Map.of());
                Scanner s = ds.scan(ScanOptions.all())) {
            while (s.hasNext()) {
                try (VectorSchemaRoot b = s.next()) {
                    assertThat(b.getFieldVectors()).hasSize(COLUMNS);
                    BigIntVector id = (BigIntVector) b.getVector(0);
                    for (int i = 0; i < b.getRowCount(); i++) {
                        String[] row = new String[COLUMNS];
                        for (int c = 0; c < COLUMNS; c++) {
                            row[c] = cell(b.getVector(c), i);
                        }
                        assertThat(actual.put(id.get(i), row))
                                .as("duplicate key %s", id.get(i))
                                .isNull();
                    }
                }
            }
        }
        List<String> diffs = new ArrayList<>();
        for (Map.Entry<Long, Object[]> e : expected.entrySet()) {
            String[] got = actual.get(e.getKey());
            if (got == null) {
                diffs.add("id " + e.getKey() + ": missing");
                continue;
            }
            for (int c = 0; c < COLUMNS && diffs.size() < 30; c++) {
                String want = text(e.getValue()[c]);
                if (!want.equals(got[c])) {
                    diffs.add("id " + e.getKey() + " " + name(c) + ": expected " + want + " got " + got[c]);
                }
            }
        }
        for (Long id : actual.keySet()) {
            if (!expected.containsKey(id)) {
                diffs.add("id " + id + ": expected no row");
            }
        }
        assertThat(diffs).as("cells differing from the model").isEmpty();
        assertThat(actual).hasSameSizeAs(expected);
    }

    /** A plain value as text: lists element by element, everything else by toString. */
    private static String text(Object v) {
        if (v instanceof List<?> l) {
            return l.stream().map(WideTable::text).collect(Collectors.joining(", ", "[", "]"));
        }
        return String.valueOf(v);
    }

    /** Cell {@code i} of {@code v} as {@link #text} prints the plain value it should hold. */
    private static String cell(FieldVector v, int i) {
        if (v.isNull(i)) {
            return "null";
        }
        if (v instanceof VarCharVector s) {
            return new String(s.get(i), StandardCharsets.UTF_8);
        }
        if (v instanceof DateDayVector d) {
            return LocalDate.ofEpochDay(d.get(i)).toString();
        }
        return text(v.getObject(i)); // LocalDateTime for timestamps, lists of Float
    }
}
