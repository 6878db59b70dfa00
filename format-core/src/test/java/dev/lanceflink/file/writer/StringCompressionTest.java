package dev.lanceflink.file.writer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.file.FileVersion;
import dev.lanceflink.file.LanceFileReader;
import dev.lanceflink.schema.LanceSchema;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.IntFunction;
import lance.encodings21.CompressiveEncoding;
import lance.encodings21.PageLayout;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Dictionary and FSST string pages (2.1 and 2.2): the writer picks them under Lance's rules,
 * and our reader gives back every cell (scan and take), nulls and lists included. Below the
 * thresholds, or with string compression off, pages stay plain {@code variable}.
 */
class StringCompressionTest {
    private static final String[] FRUITS = {"apple", "banana", "cherry", "durian", "elderberry", "fig", "grape"};
    private static final String[] WORDS = {
        "the", "stream", "table", "lance", "flink", "overlay", "column", "vector", "quick", "brown", "fox", "jumps",
        "over", "lazy", "dog", "data", "file", "format", "page", "chunk"
    };
    private final BufferAllocator allocator = new RootAllocator();

    @TempDir
    Path dir;

    enum Version {
        V2_1(FileVersion.V2_1),
        V2_2(FileVersion.V2_2);

        final FileVersion v;

        Version(FileVersion v) {
            this.v = v;
        }
    }

    @AfterEach
    void close() {
        allocator.close();
    }

    private static String sentence(int i, int words) {
        StringBuilder sb = new StringBuilder();
        long s = i * 0x9E3779B97F4A7C15L + 1;
        for (int w = 0; w < words; w++) {
            s ^= s << 13;
            s ^= s >>> 7;
            s ^= s << 17;
            sb.append(w == 0 ? "" : " ").append(WORDS[(int) Long.remainderUnsigned(s, WORDS.length)]);
        }
        return sb.append(" #").append(i).toString();
    }

    private <V extends FieldVector> V strings(V v, int n, IntFunction<String> value) {
        v.allocateNew();
        for (int i = 0; i < n; i++) {
            String s = value.apply(i);
            byte[] b = s == null ? null : s.getBytes(StandardCharsets.UTF_8);
            if (v instanceof BaseVariableWidthVector small) {
                if (b == null) {
                    small.setNull(i);
                } else {
                    small.setSafe(i, b);
                }
            } else {
                BaseLargeVariableWidthVector large = (BaseLargeVariableWidthVector) v;
                if (b == null) {
                    large.setNull(i);
                } else {
                    large.setSafe(i, b);
                }
            }
        }
        v.setValueCount(n);
        return v;
    }

    private VarCharVector utf8(String name, int n, IntFunction<String> value) {
        return strings(new VarCharVector(name, FieldType.nullable(new ArrowType.Utf8()), allocator), n, value);
    }

    /** list<utf8>: row i holds i % 4 items (row 5 mod 9 is null), item j of row i = value(i * 4 + j). */
    private ListVector listOfUtf8(String name, int n, IntFunction<String> value) {
        ListVector lv = ListVector.empty(name, allocator);
        lv.addOrGetVector(FieldType.nullable(new ArrowType.Utf8()));
        lv.allocateNew();
        VarCharVector items = (VarCharVector) lv.getDataVector();
        int item = 0;
        for (int i = 0; i < n; i++) {
            if (i % 9 == 5) {
                lv.setNull(i);
                continue;
            }
            lv.startNewValue(i);
            for (int j = 0; j < i % 4; j++) {
                String s = value.apply(i * 4 + j);
                if (s == null) {
                    items.setNull(item);
                } else {
                    items.setSafe(item, s.getBytes(StandardCharsets.UTF_8));
                }
                item++;
            }
            lv.endValue(i, i % 4);
        }
        items.setValueCount(item);
        lv.setValueCount(n);
        return lv;
    }

    @ParameterizedTest
    @EnumSource(Version.class)
    void compressedStringPagesRoundTrip(Version version) throws Exception {
        int n = 6000;
        List<FieldVector> vectors = List.of(
                utf8("fruit", n, i -> i % 3 == 1 ? null : FRUITS[i % FRUITS.length]),
                strings(
                        new LargeVarCharVector("large_fruit", FieldType.nullable(new ArrowType.LargeUtf8()), allocator),
                        n,
                        i -> FRUITS[(i / 7) % FRUITS.length] + "-" + (i % 50)),
                strings(
                        new VarBinaryVector("bin", FieldType.nullable(new ArrowType.Binary()), allocator),
                        n,
                        i -> FRUITS[(i * 5) % FRUITS.length]),
                utf8("sentence", n, i -> i % 10 == 3 ? null : sentence(i, 6 + i % 9)),
                utf8("long_text", n, i -> i % 7 == 2 ? null : sentence(i, 60 + i % 30)),
                strings(
                        new VarBinaryVector("bin_text", FieldType.nullable(new ArrowType.Binary()), allocator),
                        n,
                        i -> sentence(i, 8)),
                listOfUtf8("tags", n, i -> i % 11 == 4 ? null : FRUITS[i % FRUITS.length]),
                listOfUtf8("notes", n, i -> sentence(i, 5 + i % 7)),
                utf8("few", 99, i -> FRUITS[i % 2]));
        // One file per column so that the short column gets its own file.
        String[] expected = {
            "mb inline_bitpacking dict variable",
            "mb inline_bitpacking dict variable",
            "mb inline_bitpacking dict variable",
            "mb fsst",
            "fz fsst",
            "mb variable",
            "mb inline_bitpacking dict variable",
            "mb fsst",
            "mb variable"
        };
        for (int c = 0; c < vectors.size(); c++) {
            FieldVector v = vectors.get(c);
            checkColumn(version.v, v, FileWriterOptions.defaults(), expected[c]);
            checkColumn(
                    version.v,
                    v,
                    FileWriterOptions.defaults().withStringCompression(false),
                    v.getField().getName().equals("long_text") ? "fz variable" : "mb variable");
            // Small pages: many dictionaries / symbol tables per column, pages cut inside batches.
            checkColumn(
                    version.v,
                    v,
                    FileWriterOptions.defaults().withTargetPageBytes(16 * 1024).withRowsPerSlice(700),
                    null);
            v.close();
        }
    }

    private void checkColumn(FileVersion version, FieldVector v, FileWriterOptions options, String firstPage)
            throws Exception {
        VectorSchemaRoot root = new VectorSchemaRoot(List.of(v.getField()), List.of(v), v.getValueCount());
        Path into = Files.createTempDirectory(dir, "s");
        WriterTestSupport.Written w = WriterTestSupport.write(into, allocator, version, options, List.of(root));
        String name = v.getField().getName();
        if (firstPage != null) {
            assertThat(describe(w.parse().layout(0, 0), version))
                    .as("%s %s first page", version, name)
                    .isEqualTo(firstPage);
        }
        LanceSchema schema = LanceSchema.fromArrow(root.getSchema(), 0);
        int id = schema.fields().get(0).id();
        int n = v.getValueCount();
        List<Object> expected = RandomBatches.cells(v);
        try (LanceFileReader reader = LanceFileReader.open(w.store(), "data/f.lance", allocator);
                FieldVector read = reader.readRange(id, 0, n);
                FieldVector taken = reader.take(id, new long[] {0, n / 3, n - 1})) {
            assertThat(RandomBatches.cells(read))
                    .as("%s %s %s", version, name, options)
                    .isEqualTo(expected);
            assertThat(RandomBatches.cells(taken))
                    .as("%s %s take", version, name)
                    .containsExactly(expected.get(0), expected.get(n / 3), expected.get(n - 1));
        }
    }

    /** Layout and encodings of a page, with 2.2's LZ4-framed dictionaries checked and named like 2.1's. */
    private static String describe(PageLayout layout, FileVersion version) {
        if (layout.hasMiniBlockLayout()) {
            var mb = layout.getMiniBlockLayout();
            String values = name(mb.getValueCompression());
            if (!mb.hasDictionary()) {
                return "mb " + values;
            }
            CompressiveEncoding dict = mb.getDictionary();
            if (version == FileVersion.V2_1) {
                assertThat(dict.hasGeneral())
                        .as("2.1 dictionaries are never general-compressed")
                        .isFalse();
            }
            if (dict.hasGeneral()) {
                dict = dict.getGeneral().getValues();
            }
            assertThat(mb.getNumDictionaryItems()).isPositive();
            return "mb " + values + " dict " + name(dict);
        }
        if (layout.hasFullZipLayout()) {
            return "fz " + name(layout.getFullZipLayout().getValueCompression());
        }
        return layout.getLayoutCase().name();
    }

    private static String name(CompressiveEncoding e) {
        return switch (e.getCompressionCase()) {
            case INLINE_BITPACKING -> "inline_bitpacking";
            case VARIABLE -> "variable";
            case FSST -> "fsst";
            case FLAT -> "flat";
            default -> e.getCompressionCase().name();
        };
    }
}
