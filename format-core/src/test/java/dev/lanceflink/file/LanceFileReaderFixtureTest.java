package dev.lanceflink.file;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.schema.LanceField;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Reads every column of the Lance 7.0.0 fixtures (written by the official SDK) and compares each
 * cell with the SDK's own read-back, then checks random access (sub-ranges crossing chunk and
 * page boundaries, and takes) against the same expectations.
 */
class LanceFileReaderFixtureTest {
    private BufferAllocator allocator;

    @BeforeEach
    void setUp() {
        allocator = new RootAllocator();
    }

    @AfterEach
    void tearDown() {
        allocator.close();
    }

    static Path fixtures() throws URISyntaxException {
        return Path.of(LanceFileReaderFixtureTest.class
                        .getResource("/fixtures/lance-7.0.0/README.md")
                        .toURI())
                .getParent();
    }

    static Stream<String> allFixtures() {
        return Stream.of(
                "v20_default_table",
                "v20_all",
                "v21_default_table",
                "v21_ints",
                "v21_strings",
                "v21_fullzip",
                "v21_huge",
                "v21_nested",
                "v21_const",
                "v21_options",
                "v22_default_table",
                "v22_ints",
                "v22_strings",
                "v22_fullzip",
                "v22_huge",
                "v22_nested",
                "v22_const",
                "v22_options");
    }

    static LanceFileReader open(String fixture, BufferAllocator allocator) throws Exception {
        Path data = fixtures().resolve(fixture + ".lance").resolve("data");
        String file;
        try (Stream<Path> files = Files.list(data)) {
            file = files.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".lance"))
                    .findFirst()
                    .orElseThrow();
        }
        return LanceFileReader.open(new LocalObjectStore(data), file, allocator);
    }

    @ParameterizedTest
    @MethodSource("allFixtures")
    void readsEveryCellOfEveryColumn(String fixture) throws Exception {
        JsonNode expected = ExpectedCells.load(fixtures().resolve(fixture + ".expected.json"));
        JsonNode rows = expected.get("rows");
        try (LanceFileReader reader = open(fixture, allocator)) {
            assertThat(reader.version().label()).isEqualTo("2." + fixture.charAt(2));
            assertThat(reader.numRows()).isEqualTo(expected.get("num_rows").asLong());
            List<String> failures = new ArrayList<>();
            for (JsonNode col : expected.get("schema")) {
                String name = col.get("name").asText();
                LanceField f = reader.schema().fieldByName(name).orElseThrow();
                assertThat(f.id()).isEqualTo(col.get("field_id").asInt());
                try (FieldVector v = reader.readRange(f.id(), 0, reader.numRows(f.id()))) {
                    assertThat(v.getValueCount()).isEqualTo(rows.size());
                    for (int i = 0; i < rows.size(); i++) {
                        ExpectedCells.assertCell(
                                fixture + " row " + i + " " + name, rows.get(i).get(name), v, i);
                    }
                } catch (AssertionError | IOException | RuntimeException e) {
                    failures.add(name + ": " + e.getMessage());
                }
            }
            assertThat(failures).as(fixture).isEmpty();
        }
    }

    @ParameterizedTest
    @MethodSource("allFixtures")
    void randomAccessMatchesFullScan(String fixture) throws Exception {
        JsonNode rows = ExpectedCells.load(fixtures().resolve(fixture + ".expected.json"))
                .get("rows");
        Random random = new Random(fixture.hashCode());
        try (LanceFileReader reader = open(fixture, allocator)) {
            List<String> failures = new ArrayList<>();
            for (LanceField f : reader.schema().fields()) {
                long n = reader.numRows(f.id());
                try {
                    // Ranges around chunk sizes Lance uses (256/512/1024/4096 values) and random ones.
                    long[][] ranges = {
                        {0, Math.min(n, 1)},
                        {Math.min(n, 1000), Math.min(n, 1100)},
                        {Math.min(n, 511), Math.min(n, 1537)},
                        {Math.max(0, n - 3), n},
                        {n / 3, n / 2}
                    };
                    for (long[] r : ranges) {
                        checkRange(reader, f, rows, r[0], r[1]);
                    }
                    for (int k = 0; k < 5; k++) {
                        long a = (long) (random.nextDouble() * n);
                        long b = Math.min(n, a + 1 + random.nextInt(700));
                        checkRange(reader, f, rows, a, b);
                    }
                    long[] take = random.longs(Math.min(n, 40), 0, n)
                            .sorted()
                            .distinct()
                            .toArray();
                    try (FieldVector v = reader.take(f.id(), take)) {
                        assertThat(v.getValueCount()).isEqualTo(take.length);
                        for (int i = 0; i < take.length; i++) {
                            ExpectedCells.assertCell(
                                    fixture + " take row " + take[i] + " " + f.name(),
                                    rows.get((int) take[i]).get(f.name()),
                                    v,
                                    i);
                        }
                    }
                } catch (AssertionError | IOException | RuntimeException e) {
                    failures.add(f.name() + ": " + e.getMessage());
                }
            }
            assertThat(failures).as(fixture).isEmpty();
        }
    }

    @org.junit.jupiter.api.Test
    void readsSeveralFieldsIntoOneRootAndEmptyRanges() throws Exception {
        JsonNode rows = ExpectedCells.load(fixtures().resolve("v21_nested.expected.json"))
                .get("rows");
        try (LanceFileReader reader = open("v21_nested", allocator)) {
            int l = reader.schema().fieldByName("l").orElseThrow().id();
            int sl = reader.schema().fieldByName("sl").orElseThrow().id();
            try (org.apache.arrow.vector.VectorSchemaRoot root = reader.readRange(new int[] {sl, l}, 700, 705)) {
                assertThat(root.getRowCount()).isEqualTo(5);
                assertThat(root.getSchema().getFields())
                        .extracting(org.apache.arrow.vector.types.pojo.Field::getName)
                        .containsExactly("sl", "l");
                for (int i = 0; i < 5; i++) {
                    ExpectedCells.assertCell(
                            "sl " + (700 + i), rows.get(700 + i).get("sl"), root.getVector("sl"), i);
                    ExpectedCells.assertCell("l " + (700 + i), rows.get(700 + i).get("l"), root.getVector("l"), i);
                }
            }
            try (FieldVector v = reader.readRange(l, 1500, 1500);
                    FieldVector t = reader.take(l, new long[0])) {
                assertThat(v.getValueCount()).isZero();
                assertThat(t.getValueCount()).isZero();
            }
        }
    }

    private static void checkRange(LanceFileReader reader, LanceField f, JsonNode rows, long a, long b)
            throws IOException {
        try (FieldVector v = reader.readRange(f.id(), a, b)) {
            assertThat(v.getValueCount()).isEqualTo((int) (b - a));
            for (int i = 0; i < b - a; i++) {
                ExpectedCells.assertCell(
                        "rows [" + a + "," + b + ") row " + (a + i) + " " + f.name(),
                        rows.get((int) (a + i)).get(f.name()),
                        v,
                        i);
            }
        }
    }
}
