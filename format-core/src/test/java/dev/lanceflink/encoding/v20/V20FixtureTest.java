package dev.lanceflink.encoding.v20;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lanceflink.file.LanceFileMetadata;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.RangeReader;
import dev.lanceflink.schema.LanceField;
import dev.lanceflink.schema.LanceSchema;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import lance.file.v2.ColumnMetadata;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Reads every column of the 2.0 fixtures written by the Lance 7.0.0 SDK and compares every cell
 * with the SDK's own read-back ({@code <name>.expected.json}).
 */
class V20FixtureTest {
    private BufferAllocator allocator;

    @BeforeEach
    void setUp() {
        allocator = new RootAllocator();
    }

    @AfterEach
    void tearDown() {
        // Fails the test when a decoder leaked Arrow memory.
        allocator.close();
    }

    /** One opened fixture data file: schema, columns per top-level field, expected rows. */
    record Fixture(
            String name,
            LocalObjectStore store,
            String dataPath,
            LanceSchema schema,
            Map<LanceField, List<ColumnMetadata>> columns,
            JsonNode expected)
            implements AutoCloseable {
        RangeReader open() throws IOException {
            return store.openReader(dataPath);
        }

        JsonNode rows() {
            return expected.get("rows");
        }

        @Override
        public void close() throws Exception {
            store.close();
        }
    }

    static Fixture open(String name) throws IOException {
        Path root;
        try {
            root = Path.of(
                    V20FixtureTest.class.getResource("/fixtures/lance-7.0.0").toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        String dataPath;
        try (Stream<Path> files = Files.list(root.resolve(name + ".lance").resolve("data"))) {
            Path data = files.filter(p -> p.toString().endsWith(".lance"))
                    .findFirst()
                    .orElseThrow();
            dataPath = name + ".lance/data/" + data.getFileName();
        }
        LocalObjectStore store = new LocalObjectStore(root);
        LanceFileMetadata meta;
        try (RangeReader r = store.openReader(dataPath)) {
            meta = LanceFileMetadata.read(r, dataPath);
        }
        LanceSchema schema = LanceSchema.fromProto(meta.descriptor().getSchema());
        Map<LanceField, List<ColumnMetadata>> columns = new LinkedHashMap<>();
        int c = 0;
        for (LanceField f : schema.fields()) {
            int n = V20FieldReader.columnCount(f);
            columns.put(f, meta.columns().subList(c, c + n));
            c += n;
        }
        assertThat(c).as("columns of " + name).isEqualTo(meta.numColumns());
        return new Fixture(
                name, store, dataPath, schema, columns, ExpectedCells.load(root.resolve(name + ".expected.json")));
    }

    @ParameterizedTest
    @ValueSource(strings = {"v20_default_table", "v20_all"})
    void readsEveryCellOfEveryColumn(String name) throws Exception {
        try (Fixture fx = open(name);
                RangeReader data = fx.open()) {
            int numRows = fx.expected().get("num_rows").asInt();
            assertThat(fx.schema().fields()).hasSize(fx.expected().get("schema").size());
            for (var e : fx.columns().entrySet()) {
                LanceField f = e.getKey();
                try (FieldVector v = V20FieldReader.readRange(f, e.getValue(), data, 0, numRows, allocator)) {
                    assertThat(v.getValueCount()).isEqualTo(numRows);
                    for (int i = 0; i < numRows; i++) {
                        ExpectedCells.assertCell(
                                v, i, fx.rows().get(i).get(f.name()), name + " " + f.name() + " row " + i);
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"v20_default_table", "v20_all"})
    void readsSubRanges(String name) throws Exception {
        try (Fixture fx = open(name);
                RangeReader data = fx.open()) {
            int numRows = fx.expected().get("num_rows").asInt();
            long[][] ranges = {
                {0, 1},
                {1, 2},
                {3, 11},
                {7, 9},
                {13, 14},
                {137, 903},
                {numRows - 1, numRows},
                {numRows - 9, numRows},
                {500, 500}
            };
            for (var e : fx.columns().entrySet()) {
                LanceField f = e.getKey();
                for (long[] r : ranges) {
                    try (FieldVector v = V20FieldReader.readRange(f, e.getValue(), data, r[0], r[1], allocator)) {
                        assertThat(v.getValueCount()).isEqualTo((int) (r[1] - r[0]));
                        for (int i = 0; i < v.getValueCount(); i++) {
                            long row = r[0] + i;
                            ExpectedCells.assertCell(
                                    v,
                                    i,
                                    fx.rows().get((int) row).get(f.name()),
                                    name + " " + f.name() + " range " + r[0] + ".." + r[1] + " row " + row);
                        }
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"v20_default_table", "v20_all"})
    void takesScatteredRows(String name) throws Exception {
        try (Fixture fx = open(name);
                RangeReader data = fx.open()) {
            int numRows = fx.expected().get("num_rows").asInt();
            SplittableRandom rnd = new SplittableRandom(42);
            List<long[]> selections = new ArrayList<>();
            selections.add(new long[] {0});
            selections.add(new long[] {numRows - 1});
            selections.add(new long[] {2, 3, 3, 13, 600, 601, numRows - 1});
            selections.add(rnd.longs(200, 0, numRows).sorted().toArray());
            selections.add(new long[0]);
            for (var e : fx.columns().entrySet()) {
                LanceField f = e.getKey();
                for (long[] rows : selections) {
                    try (FieldVector v = V20FieldReader.take(f, e.getValue(), data, rows, allocator)) {
                        assertThat(v.getValueCount()).isEqualTo(rows.length);
                        for (int i = 0; i < rows.length; i++) {
                            ExpectedCells.assertCell(
                                    v,
                                    i,
                                    fx.rows().get((int) rows[i]).get(f.name()),
                                    name + " " + f.name() + " take row " + rows[i]);
                        }
                    }
                }
            }
        }
    }
}
