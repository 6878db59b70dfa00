package dev.lanceflink.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.io.LocalObjectStore;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Corrupted copies of a real 2.1 file must fail with messages naming the file, the offset and the problem. */
class LanceFileReaderErrorsTest {
    @TempDir
    Path dir;

    private BufferAllocator allocator;
    private byte[] original;

    @BeforeEach
    void setUp() throws Exception {
        allocator = new RootAllocator();
        Path data = LanceFileReaderFixtureTest.fixtures()
                .resolve("v21_default_table.lance")
                .resolve("data");
        try (Stream<Path> files = Files.list(data)) {
            original = Files.readAllBytes(files.findFirst().orElseThrow());
        }
    }

    @AfterEach
    void tearDown() {
        allocator.close();
    }

    private Exception openCorrupt(byte[] bytes) throws Exception {
        Files.write(dir.resolve("bad.lance"), bytes);
        try (LanceFileReader r = LanceFileReader.open(new LocalObjectStore(dir), "bad.lance", allocator)) {
            return null;
        } catch (LanceFileFormatException e) {
            assertThat(e.getMessage()).contains("bad.lance");
            return e;
        }
    }

    private ByteBuffer footer(byte[] b) {
        return ByteBuffer.wrap(b, b.length - 40, 40).slice().order(ByteOrder.LITTLE_ENDIAN);
    }

    @Test
    void intactCopyOpens() throws Exception {
        assertThat(openCorrupt(original.clone())).isNull();
    }

    @Test
    void badMagic() throws Exception {
        byte[] b = original.clone();
        b[b.length - 1] = 'X';
        assertThat(openCorrupt(b))
                .hasMessageContaining("bad magic 4c 41 4e 58")
                .hasMessageContaining("offset " + (b.length - 4));
    }

    @Test
    void shorterThanFooter() throws Exception {
        assertThat(openCorrupt(Arrays.copyOf(original, 20))).hasMessageContaining("fewer than the 40-byte footer");
    }

    @Test
    void truncatedAtTheFront() throws Exception {
        byte[] b = Arrays.copyOfRange(original, 4096, original.length);
        assertThat(openCorrupt(b)).hasMessageContaining("does not fit before the footer");
    }

    @Test
    void columnMetadataOffsetOutsideItsSection() throws Exception {
        byte[] b = original.clone();
        long cmo = footer(b).getLong(8);
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putLong((int) cmo, 3);
        assertThat(openCorrupt(b))
                .hasMessageContaining("column 0 metadata [3, +")
                .hasMessageContaining("outside the column metadata section")
                .hasMessageContaining("offset " + cmo);
    }

    @Test
    void unparsableColumnMetadata() throws Exception {
        byte[] b = original.clone();
        long start = footer(b).getLong(0);
        Arrays.fill(b, (int) start, (int) start + 8, (byte) 0xFF);
        assertThat(openCorrupt(b))
                .hasMessageContaining("column 0 metadata is not a valid lance.file.v2.ColumnMetadata")
                .hasMessageContaining("offset " + start);
    }

    @Test
    void legacyVersionIsRefused() throws Exception {
        byte[] b = original.clone();
        ByteBuffer f = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        f.putShort(b.length - 8, (short) 0).putShort(b.length - 6, (short) 2);
        assertThat(openCorrupt(b)).hasMessageContaining("legacy (v1) Lance file format");
    }

    @Test
    void unknownFieldIdAndRowsOutOfRange() throws Exception {
        Files.write(dir.resolve("ok.lance"), original);
        try (LanceFileReader r = LanceFileReader.open(new LocalObjectStore(dir), "ok.lance", allocator)) {
            assertThatThrownBy(() -> r.readRange(99, 0, 1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("no top-level field with id 99");
            assertThatThrownBy(() -> r.readRange(0, 0, 1001))
                    .isInstanceOf(IndexOutOfBoundsException.class)
                    .hasMessageContaining("outside its 1000 rows");
        }
    }

    @Test
    void corruptPageDataNamesFileColumnAndPage() throws Exception {
        byte[] b = original.clone();
        Files.write(dir.resolve("ok.lance"), b);
        long offset;
        try (LanceFileReader r = LanceFileReader.open(new LocalObjectStore(dir), "ok.lance", allocator)) {
            offset = r.metadata().pages(0)[0].bufferOffsets()[0];
        }
        // Chunk metadata words claiming far more bytes than the data buffer holds.
        Arrays.fill(b, (int) offset, (int) offset + 4, (byte) 0xF0);
        Files.write(dir.resolve("ok.lance"), b);
        try (LanceFileReader r = LanceFileReader.open(new LocalObjectStore(dir), "ok.lance", allocator)) {
            assertThatThrownBy(() -> r.readRange(0, 0, 10))
                    .isInstanceOf(LanceFileFormatException.class)
                    .hasMessageContaining("ok.lance")
                    .hasMessageContaining("field 'id'")
                    .hasMessageContaining("column 0")
                    .hasMessageContaining("page 0");
        }
    }
}
