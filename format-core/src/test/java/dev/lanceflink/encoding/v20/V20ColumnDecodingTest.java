package dev.lanceflink.encoding.v20;

import static dev.lanceflink.encoding.v20.SyntheticFile.allNull;
import static dev.lanceflink.encoding.v20.SyntheticFile.binary;
import static dev.lanceflink.encoding.v20.SyntheticFile.binaryBuffers;
import static dev.lanceflink.encoding.v20.SyntheticFile.bits;
import static dev.lanceflink.encoding.v20.SyntheticFile.column;
import static dev.lanceflink.encoding.v20.SyntheticFile.dictionary;
import static dev.lanceflink.encoding.v20.SyntheticFile.flat;
import static dev.lanceflink.encoding.v20.SyntheticFile.floats;
import static dev.lanceflink.encoding.v20.SyntheticFile.fsl;
import static dev.lanceflink.encoding.v20.SyntheticFile.ints;
import static dev.lanceflink.encoding.v20.SyntheticFile.list;
import static dev.lanceflink.encoding.v20.SyntheticFile.longs;
import static dev.lanceflink.encoding.v20.SyntheticFile.noNull;
import static dev.lanceflink.encoding.v20.SyntheticFile.someNull;
import static dev.lanceflink.encoding.v20.SyntheticFile.struct;
import static dev.lanceflink.encoding.v20.SyntheticFile.validity;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.lanceflink.encoding.compression.FsstSymbolTable;
import dev.lanceflink.encoding.compression.GeneralCompression;
import dev.lanceflink.io.RangeReader;
import dev.lanceflink.schema.LanceField;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import lance.encodings.ArrayEncoding;
import lance.encodings.Compression;
import lance.encodings.Fsst;
import lance.encodings.PackedStruct;
import lance.file.v2.ColumnMetadata;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.util.Text;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Multi-page 2.0 columns built byte by byte (file-format.md §7.2): page boundaries that are not
 * byte-aligned, nulls in every form, lists whose offsets and items are paged differently, and
 * encodings the fixtures do not contain (constant, compressed flat, FSST, multi-page packed
 * structs). Every range and take is checked against the plain expected values.
 */
class V20ColumnDecodingTest {
    private BufferAllocator allocator;

    @BeforeEach
    void setUp() {
        allocator = new RootAllocator();
    }

    @AfterEach
    void tearDown() {
        allocator.close();
    }

    private static LanceField field(String name, String type) {
        return LanceField.builder(name, type).id(0).build();
    }

    /** Checks every sub-range [a, b) and a few takes against {@code expected}. */
    private void checkAllRanges(LanceField f, List<ColumnMetadata> cols, RangeReader data, Object... expected)
            throws IOException {
        int n = expected.length;
        for (int a = 0; a <= n; a++) {
            for (int b = a; b <= n; b++) {
                try (FieldVector v = V20FieldReader.readRange(f, cols, data, a, b, allocator)) {
                    assertThat(v.getValueCount()).isEqualTo(b - a);
                    for (int i = 0; i < b - a; i++) {
                        assertThat(normalize(v.getObject(i)))
                                .as("range %d..%d row %d", a, b, a + i)
                                .isEqualTo(expected[a + i]);
                    }
                }
            }
        }
        List<long[]> takes = List.of(
                new long[] {0, n - 1},
                new long[] {1, 1, 2, Math.max(2, n - 1)},
                java.util.stream.LongStream.range(0, n).filter(i -> i % 3 != 1).toArray());
        for (long[] rows : takes) {
            try (FieldVector v = V20FieldReader.take(f, cols, data, rows, allocator)) {
                assertThat(v.getValueCount()).isEqualTo(rows.length);
                for (int i = 0; i < rows.length; i++) {
                    assertThat(normalize(v.getObject(i)))
                            .as("take row %d", rows[i])
                            .isEqualTo(expected[(int) rows[i]]);
                }
            }
        }
    }

    private static Object normalize(Object o) {
        if (o instanceof Text t) {
            return t.toString();
        }
        if (o instanceof byte[] b) {
            return new String(b, StandardCharsets.UTF_8);
        }
        if (o instanceof List<?> l) {
            List<Object> out = new ArrayList<>();
            for (Object x : l) {
                out.add(normalize(x));
            }
            return out;
        }
        if (o instanceof Map<?, ?> m) {
            Map<Object, Object> out = new LinkedHashMap<>();
            m.forEach((k, v) -> out.put(k, normalize(v)));
            return out;
        }
        return o;
    }

    @Test
    void int32AcrossNoSomeAndAllNullPages() throws IOException {
        SyntheticFile file = new SyntheticFile();
        Integer[] p1 = {null, 7, null, 9, 10, 11, null};
        int[] p1raw = {0, 7, 0, 9, 10, 11, 0};
        ColumnMetadata col = column(
                file.page(5, noNull(flat(32, 0)), ints(1, 2, 3, 4, 5)),
                file.page(7, someNull(flat(1, 0), flat(32, 1)), validity((Object[]) p1), ints(p1raw)),
                file.page(4, allNull()),
                file.page(3, flat(32, 0), ints(-1, Integer.MIN_VALUE, Integer.MAX_VALUE)));
        Object[] expected = {
            1,
            2,
            3,
            4,
            5,
            null,
            7,
            null,
            9,
            10,
            11,
            null,
            null,
            null,
            null,
            null,
            -1,
            Integer.MIN_VALUE,
            Integer.MAX_VALUE
        };
        checkAllRanges(field("i", "int32"), List.of(col), file.reader(), expected);
    }

    @Test
    void boolPagesWithUnalignedBoundaries() throws IOException {
        SyntheticFile file = new SyntheticFile();
        boolean[] v0 = {true, false, true, true, false, false, true, true, true, false, true};
        Boolean[] v1 = {null, true, false, null, true};
        ColumnMetadata col = column(
                file.page(11, noNull(flat(1, 0)), bits(v0)),
                file.page(
                        5,
                        someNull(flat(1, 0), flat(1, 1)),
                        validity((Object[]) v1),
                        bits(false, true, false, true, true)),
                file.page(
                        3,
                        ArrayEncoding.newBuilder()
                                .setConstant(lance.encodings.Constant.newBuilder()
                                        .setValue(ByteString.copyFrom(new byte[] {1})))
                                .build()));
        List<Object> expected = new ArrayList<>();
        for (boolean b : v0) {
            expected.add(b);
        }
        expected.addAll(Arrays.asList(v1));
        expected.addAll(List.of(true, true, true));
        checkAllRanges(field("b", "bool"), List.of(col), file.reader(), expected.toArray());
    }

    @Test
    void utf8AcrossBinaryDictionaryAndNullablePages() throws IOException {
        SyntheticFile file = new SyntheticFile();
        String[] p0 = {null, "foo", "foo", null, null, null};
        long[] adj0 = new long[1];
        byte[][] b0 = binaryBuffers(p0, adj0);
        // Dictionary page: items apple, banana; indices 1-based, 0 = null.
        String[] items = {"apple", "banana"};
        long[] adjItems = new long[1];
        byte[][] bi = binaryBuffers(items, adjItems);
        String[] p2 = {"x", "", "yz"};
        long[] adj2 = new long[1];
        byte[][] b2 = binaryBuffers(p2, adj2);
        ColumnMetadata col = column(
                file.page(6, binary(0, 1, adj0[0]), b0[0], b0[1]),
                file.page(5, dictionary(2, adjItems[0]), new byte[] {2, 0, 1, 1, 2}, bi[0], bi[1]),
                file.page(3, someNull(flat(1, 0), binary(1, 2, adj2[0])), bits(true, true, false), b2[0], b2[1]),
                file.page(2, allNull()));
        // The worked example of file-format.md §7.2: indices [7, 3, 6, 13, 13, 13], adjustment 7.
        assertThat(adj0[0]).isEqualTo(7);
        assertThat(b0[0]).isEqualTo(longs(7, 3, 6, 13, 13, 13));
        Object[] expected = {
            null, "foo", "foo", null, null, null, "banana", null, "apple", "apple", "banana", "x", "", null, null, null
        };
        checkAllRanges(field("s", "string"), List.of(col), file.reader(), expected);
        checkAllRanges(field("s", "large_string"), List.of(col), file.reader(), expected);
        checkAllRanges(field("s", "binary"), List.of(col), file.reader(), expected);
    }

    @Test
    void listWithOffsetsAndItemsPagedDifferently() throws IOException {
        SyntheticFile file = new SyntheticFile();
        // Lists: [1,2], null, [], [3]  | page 2: [4,5,6], null, [7]
        // Page 1 holds 3 items; adjustment = 4. Stored ends: 2, 2+4, 2, 3.
        // Page 2 holds 4 items; adjustment = 5. Stored ends: 3, 3+5, 4.
        ColumnMetadata offsets =
                column(file.page(4, list(4, 3), longs(2, 6, 2, 3)), file.page(3, list(5, 4), longs(3, 8, 4)));
        // Items 1..7 in pages of 2, 4, 1 (with a null item 5).
        ColumnMetadata items = column(
                file.page(2, noNull(flat(32, 0)), ints(1, 2)),
                file.page(4, someNull(flat(1, 0), flat(32, 1)), bits(true, true, false, true), ints(3, 4, 0, 6)),
                file.page(1, noNull(flat(32, 0)), ints(7)));
        LanceField f = LanceField.builder("l", "list")
                .id(0)
                .addChild(LanceField.builder("item", "int32"))
                .build();
        Object[] expected = {List.of(1, 2), null, List.of(), List.of(3), Arrays.asList(4, null, 6), null, List.of(7)};
        checkAllRanges(f, List.of(offsets, items), file.reader(), expected);
        assertThat(V20FieldReader.columnCount(f)).isEqualTo(2);
        LanceField large = LanceField.builder("l", "large_list")
                .id(0)
                .addChild(LanceField.builder("item", "int32"))
                .build();
        checkAllRanges(large, List.of(offsets, items), file.reader(), expected);
    }

    @Test
    void listOfStructAndListOfListAcrossPages() throws IOException {
        SyntheticFile file = new SyntheticFile();
        // list<struct{a: int32, s: string}>: lists [s0, s1], null | [s2], [] ; items paged 1 + 2.
        ColumnMetadata offsets =
                column(file.page(2, list(3, 2), longs(2, 2 + 3)), file.page(2, list(2, 1), longs(1, 1)));
        ColumnMetadata header = column(file.page(3, struct()));
        ColumnMetadata a = column(
                file.page(1, noNull(flat(32, 0)), ints(10)),
                file.page(2, someNull(flat(1, 0), flat(32, 1)), bits(false, true), ints(0, 12)));
        String[] strs = {"x", "yy", null};
        long[] adj = new long[1];
        byte[][] sb = binaryBuffers(strs, adj);
        ColumnMetadata st = column(file.page(3, binary(0, 1, adj[0]), sb[0], sb[1]));
        LanceField f = LanceField.builder("ls", "list.struct")
                .id(0)
                .addChild(LanceField.builder("item", "struct")
                        .addChild(LanceField.builder("a", "int32"))
                        .addChild(LanceField.builder("s", "string")))
                .build();
        assertThat(V20FieldReader.columnCount(f)).isEqualTo(4);
        Map<Object, Object> s0 = new LinkedHashMap<>(Map.of("a", 10, "s", "x"));
        Map<Object, Object> s1 = new LinkedHashMap<>(Map.of("s", "yy"));
        Map<Object, Object> s2 = new LinkedHashMap<>(Map.of("a", 12));
        checkAllRanges(
                f, List.of(offsets, header, a, st), file.reader(), List.of(s0, s1), null, List.of(s2), List.of());

        // list<list<int64>>: [[1], [2, 3]], [[]], null, [[4], null] with the inner lists on 2 pages.
        SyntheticFile f2 = new SyntheticFile();
        ColumnMetadata outer = column(f2.page(2, list(4, 3), longs(2, 3)), f2.page(2, list(3, 2), longs(0 + 3, 2)));
        // Inner lists: [1], [2,3], [] | [4], null ; page 1: 3 lists / 3 items, page 2: 2 lists / 1 item.
        ColumnMetadata inner = column(f2.page(3, list(4, 3), longs(1, 3, 3)), f2.page(2, list(2, 1), longs(1, 1 + 2)));
        ColumnMetadata values = column(f2.page(4, noNull(flat(64, 0)), longs(1, 2, 3, 4)));
        LanceField ll = LanceField.builder("ll", "list")
                .id(0)
                .addChild(LanceField.builder("item", "list").addChild(LanceField.builder("item", "int64")))
                .build();
        assertThat(V20FieldReader.columnCount(ll)).isEqualTo(3);
        checkAllRanges(
                ll,
                List.of(outer, inner, values),
                f2.reader(),
                List.of(List.of(1L), List.of(2L, 3L)),
                List.of(List.of()),
                null,
                Arrays.asList(List.of(4L), null));
    }

    @Test
    void structHeaderWithChildrenOfDifferentPaging() throws IOException {
        SyntheticFile file = new SyntheticFile();
        ColumnMetadata header = column(file.page(5, struct()));
        ColumnMetadata a = column(
                file.page(2, noNull(flat(32, 0)), ints(10, 11)),
                file.page(3, someNull(flat(1, 0), flat(32, 1)), bits(false, true, true), ints(0, 13, 14)));
        String[] names = {"a", null, "ccc", "dd", ""};
        long[] adj = new long[1];
        byte[][] nb = binaryBuffers(names, adj);
        ColumnMetadata b = column(file.page(5, binary(0, 1, adj[0]), nb[0], nb[1]));
        LanceField f = LanceField.builder("st", "struct")
                .id(0)
                .addChild(LanceField.builder("x", "int32"))
                .addChild(LanceField.builder("y", "string"))
                .build();
        Object[] expected = new Object[5];
        Object[] xs = {10, 11, null, 13, 14};
        for (int i = 0; i < 5; i++) {
            Map<Object, Object> m = new LinkedHashMap<>();
            if (xs[i] != null) {
                m.put("x", xs[i]);
            }
            if (names[i] != null) {
                m.put("y", names[i]);
            }
            expected[i] = m;
        }
        checkAllRanges(f, List.of(header, a, b), file.reader(), expected);
        assertThat(V20FieldReader.columnCount(f)).isEqualTo(3);
        LanceField required = f.toBuilder().nullable(false).build();
        checkAllRanges(required, List.of(header, a, b), file.reader(), expected);
    }

    @Test
    void fixedSizeListWithListAndItemValidityAcrossPages() throws IOException {
        SyntheticFile file = new SyntheticFile();
        ColumnMetadata col = column(
                file.page(
                        3,
                        someNull(flat(1, 0), fsl(2, someNull(flat(1, 1), flat(32, 2)))),
                        bits(true, false, true),
                        bits(true, false, true, true, true, true),
                        floats(1f, 0f, 0f, 0f, 5f, 6f)),
                file.page(2, noNull(fsl(2, noNull(flat(32, 0)))), floats(7f, 8f, 9f, 10f)));
        Object[] expected = {Arrays.asList(1f, null), null, List.of(5f, 6f), List.of(7f, 8f), List.of(9f, 10f)};
        checkAllRanges(field("v", "fixed_size_list:float:2"), List.of(col), file.reader(), expected);
    }

    @Test
    void packedStructAcrossPages() throws IOException {
        SyntheticFile file = new SyntheticFile();
        ArrayEncoding packed = ArrayEncoding.newBuilder()
                .setPackedStruct(PackedStruct.newBuilder()
                        .addInner(noNull(flat(64, 0)))
                        .addInner(noNull(flat(32, 0)))
                        .setBuffer(lance.encodings.Buffer.newBuilder().setBufferIndex(0)))
                .build();
        byte[] rows0 = concat(longs(100), ints(1), longs(200), ints(2));
        byte[] rows1 = concat(longs(-300), ints(-3));
        ColumnMetadata col = column(file.page(2, packed, rows0), file.page(1, packed, rows1));
        LanceField f = LanceField.builder("p", "struct")
                .id(0)
                .putMetadata("packed", "true")
                .addChild(LanceField.builder("x", "int64"))
                .addChild(LanceField.builder("y", "int32"))
                .build();
        assertThat(V20FieldReader.columnCount(f)).isEqualTo(1);
        Object[] expected = {Map.of("x", 100L, "y", 1), Map.of("x", 200L, "y", 2), Map.of("x", -300L, "y", -3)};
        checkAllRanges(f, List.of(col), file.reader(), expected);
    }

    @Test
    void zstdCompressedFlatAndFsstStrings() throws IOException {
        SyntheticFile file = new SyntheticFile();
        byte[] raw = ints(5, 6, 7, 8);
        byte[] zstd = GeneralCompression.compress(GeneralCompression.Scheme.ZSTD, raw, 0, raw.length);
        ArrayEncoding compressed = ArrayEncoding.newBuilder()
                .setFlat(lance.encodings.Flat.newBuilder()
                        .setBitsPerValue(32)
                        .setBuffer(lance.encodings.Buffer.newBuilder().setBufferIndex(0))
                        .setCompression(Compression.newBuilder().setScheme("zstd")))
                .build();
        ColumnMetadata ints = column(file.page(4, noNull(compressed), zstd));
        checkAllRanges(field("i", "int32"), List.of(ints), file.reader(), 5, 6, 7, 8);

        // FSST: a trained table (enough text to make FSST compress), inner binary over the codes.
        StringBuilder sb = new StringBuilder();
        List<String> strings = new ArrayList<>();
        for (int i = 0; i < 900; i++) {
            String s = "row " + i + ": the quick lance jumps over the columnar table";
            strings.add(i % 7 == 3 ? null : s);
            sb.append(s);
        }
        byte[] all = sb.toString().getBytes(StandardCharsets.UTF_8);
        long[] offs = new long[901];
        int pos = 0;
        for (int i = 0; i < 900; i++) {
            offs[i] = pos;
            pos += ("row " + i + ": the quick lance jumps over the columnar table").length();
        }
        offs[900] = pos;
        FsstSymbolTable table = FsstSymbolTable.train(all, offs, 900);
        assertThat(table.isCompressed()).isTrue();
        java.io.ByteArrayOutputStream codes = new java.io.ByteArrayOutputStream();
        long[] ends = new long[900];
        byte[] tmp = new byte[FsstSymbolTable.maxCompressedLength(200)];
        long end = 0;
        for (int i = 0; i < 900; i++) {
            if (strings.get(i) != null) {
                byte[] s = strings.get(i).getBytes(StandardCharsets.UTF_8);
                int n = table.compress(s, 0, s.length, tmp, 0);
                codes.write(tmp, 0, n);
                end += n;
            }
            ends[i] = end;
        }
        long adj = end + 1;
        for (int i = 0; i < 900; i++) {
            if (strings.get(i) == null) {
                ends[i] += adj;
            }
        }
        ArrayEncoding fsst = ArrayEncoding.newBuilder()
                .setFsst(Fsst.newBuilder()
                        .setBinary(binary(0, 1, adj))
                        .setSymbolTable(ByteString.copyFrom(table.serialize())))
                .build();
        SyntheticFile file2 = new SyntheticFile();
        ColumnMetadata col = column(file2.page(900, fsst, longs(ends), codes.toByteArray()));
        RangeReader data = file2.reader();
        try (FieldVector v = V20FieldReader.readRange(field("s", "string"), List.of(col), data, 0, 900, allocator)) {
            for (int i = 0; i < 900; i++) {
                assertThat(normalize(v.getObject(i))).as("row %d", i).isEqualTo(strings.get(i));
            }
        }
        try (FieldVector v =
                V20FieldReader.take(field("s", "string"), List.of(col), data, new long[] {3, 4, 899}, allocator)) {
            assertThat(normalize(v.getObject(0))).isNull();
            assertThat(normalize(v.getObject(1))).isEqualTo(strings.get(4));
            assertThat(normalize(v.getObject(2))).isEqualTo(strings.get(899));
        }
    }

    @Test
    void readsOnlyTheBytesARangeNeeds() throws IOException {
        SyntheticFile file = new SyntheticFile();
        int[] values = new int[1000];
        Arrays.setAll(values, i -> i * 3);
        String[] strings = new String[1000];
        Arrays.setAll(strings, i -> "s" + i);
        long[] adj = new long[1];
        byte[][] sb = binaryBuffers(strings, adj);
        ColumnMetadata ints = column(file.page(1000, noNull(flat(32, 0)), ints(values)));
        ColumnMetadata strs = column(file.page(1000, binary(0, 1, adj[0]), sb[0], sb[1]));
        RangeReader data = file.reader();
        try (FieldVector v = V20FieldReader.readRange(field("i", "int32"), List.of(ints), data, 500, 502, allocator)) {
            assertThat(v.getObject(0)).isEqualTo(1500);
            assertThat(v.getObject(1)).isEqualTo(1503);
        }
        assertThat(file.bytesRead()).isEqualTo(8);
        file.reads.clear();
        try (FieldVector v = V20FieldReader.readRange(field("s", "string"), List.of(strs), data, 500, 502, allocator)) {
            assertThat(normalize(v.getObject(0))).isEqualTo("s500");
            assertThat(normalize(v.getObject(1))).isEqualTo("s501");
        }
        // Three u64 offsets (the one before the range too) and the 8 value bytes.
        assertThat(file.bytesRead()).isEqualTo(3 * 8 + 8);
    }

    @Test
    void errorsNameTheFieldColumnAndPage() throws IOException {
        SyntheticFile file = new SyntheticFile();
        ColumnMetadata col =
                column(file.page(2, noNull(flat(32, 0)), ints(1, 2)), file.page(2, noNull(flat(64, 0)), longs(3, 4)));
        RangeReader data = file.reader();
        LanceField f = field("i", "int32");
        assertThatThrownBy(() -> V20FieldReader.readRange(f, List.of(col), data, 0, 4, allocator))
                .isInstanceOf(V20DecodeException.class)
                .hasMessageContaining("field 'i' (id 0), column 1 of 1, page 1")
                .hasMessageContaining("64 bits per value")
                .hasMessageContaining("stores 32");
        assertThatThrownBy(() -> V20FieldReader.readRange(f, List.of(col), data, 1, 5, allocator))
                .isInstanceOf(V20DecodeException.class)
                .hasMessageContaining("requested rows [1, 5) but the column has 4 rows");
        assertThatThrownBy(() -> V20FieldReader.readRange(f, List.of(col, col), data, 0, 1, allocator))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("spans 1 columns in a 2.0 file, but 2 column metadata entries were given");
        assertThatThrownBy(() -> V20FieldReader.take(f, List.of(col), data, new long[] {2, 1}, allocator))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sorted ascending");
        LanceField blob = LanceField.builder("b", "large_binary")
                .id(3)
                .putMetadata("lance-encoding:blob", "true")
                .build();
        assertThatThrownBy(() -> V20FieldReader.readRange(blob, List.of(col), data, 0, 1, allocator))
                .isInstanceOf(V20DecodeException.class)
                .hasMessageContaining("field 'b' (id 3) is or contains a blob field");
        ColumnMetadata utf8Header = column(file.page(4, struct()));
        assertThatThrownBy(() ->
                        V20FieldReader.readRange(field("s", "string"), List.of(utf8Header), data, 0, 1, allocator))
                .isInstanceOf(V20DecodeException.class)
                .hasMessageContaining("the 2.0 encoding 'struct' is not supported for a utf8/binary field");
        ColumnMetadata truncated = column(file.page(4, noNull(flat(32, 0)), ints(1, 2)));
        assertThatThrownBy(() -> V20FieldReader.readRange(f, List.of(truncated), file.reader(), 0, 4, allocator))
                .isInstanceOf(V20DecodeException.class)
                .hasMessageContaining("values needs bytes [0, 16) of page buffer 0, which has only 8 bytes");
    }

    private static byte[] concat(byte[]... parts) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}
