package dev.lanceflink.file.writer;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lanceflink.file.FileVersion;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import lance.encodings21.MiniBlockLayout;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Writes the data of a Lance 7.0.0 fixture column and compares the parts of the page that do not
 * depend on compression choices with what Lance wrote: layers, value count, chunk value counts
 * and the mini-block repetition index (rows ending per chunk, trailing levels).
 */
class LanceFixtureAgreementTest {
    private static final String NESTED = "/fixtures/lance-7.0.0/v21_nested";
    private final BufferAllocator allocator = new RootAllocator();

    @TempDir
    Path dir;

    @AfterEach
    void close() {
        allocator.close();
    }

    @Test
    void listOfNullableInt32MatchesLanceChunkingAndRepetitionIndex() throws Exception {
        JsonNode rows;
        try (InputStream in = LanceFixtureAgreementTest.class.getResourceAsStream(NESTED + ".expected.json")) {
            rows = new ObjectMapper().readTree(in).get("rows");
        }
        ListVector v = ListVector.empty("l", allocator);
        IntVector items = (IntVector) v.addOrGetVector(FieldType.nullable(new ArrowType.Int(32, true)))
                .getVector();
        v.allocateNew();
        int item = 0;
        for (int r = 0; r < rows.size(); r++) {
            JsonNode cell = rows.get(r).get("l");
            v.startNewValue(r);
            int len = cell.isNull() ? 0 : cell.size();
            for (int k = 0; k < len; k++) {
                if (cell.get(k).isNull()) {
                    items.setNull(item++);
                } else {
                    items.setSafe(item++, cell.get(k).asInt());
                }
            }
            v.endValue(r, len);
            if (cell.isNull()) {
                v.setNull(r);
            }
        }
        items.setValueCount(item);
        v.setValueCount(rows.size());
        VectorSchemaRoot root = VectorSchemaRoot.of(v);
        root.setRowCount(rows.size());
        WrittenFile mine;
        try (root) {
            mine = WriterTestSupport.write(
                            dir, allocator, FileVersion.V2_1, FileWriterOptions.defaults(), List.of(root))
                    .parse();
        }
        WrittenFile lance = new WrittenFile(Files.readAllBytes(fixtureDataFile()));

        MiniBlockLayout ours = mine.layout(0, 0).getMiniBlockLayout();
        MiniBlockLayout theirs = lance.layout(0, 0).getMiniBlockLayout();
        assertThat(ours.getLayersList()).isEqualTo(theirs.getLayersList());
        assertThat(ours.getNumItems()).isEqualTo(theirs.getNumItems());
        assertThat(ours.getRepetitionIndexDepth()).isEqualTo(theirs.getRepetitionIndexDepth());
        assertThat(mine.page(0, 0).getLength()).isEqualTo(lance.page(0, 0).getLength());
        assertThat(logCounts(mine.buffer(0, 0, 0))).isEqualTo(logCounts(lance.buffer(0, 0, 0)));
        // The repetition index is the last page buffer in both files.
        int oursLast = mine.page(0, 0).getBufferSizesCount() - 1;
        int theirsLast = lance.page(0, 0).getBufferSizesCount() - 1;
        assertThat(mine.buffer(0, 0, oursLast)).isEqualTo(lance.buffer(0, 0, theirsLast));
    }

    private static int[] logCounts(byte[] meta) {
        int[] out = new int[meta.length / 2];
        for (int i = 0; i < out.length; i++) {
            out[i] = meta[2 * i] & 0x0F;
        }
        return out;
    }

    private static Path fixtureDataFile() throws IOException {
        Path data;
        try {
            data = Path.of(LanceFixtureAgreementTest.class
                    .getResource(NESTED + ".lance/data")
                    .toURI());
        } catch (java.net.URISyntaxException e) {
            throw new IOException(e);
        }
        try (Stream<Path> s = Files.list(data)) {
            return s.filter(p -> p.toString().endsWith(".lance")).findFirst().orElseThrow();
        }
    }
}
