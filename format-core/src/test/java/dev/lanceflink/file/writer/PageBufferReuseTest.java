package dev.lanceflink.file.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.file.FileVersion;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.schema.LanceSchema;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LanceFileWriter#next} hands a finished file's page buffers to the next file: whatever the
 * previous file left in them (other values, nulls, list levels), the next file must be byte for
 * byte the file a fresh writer makes from the same rows.
 */
class PageBufferReuseTest {
    private final BufferAllocator allocator = new RootAllocator();

    @TempDir
    Path dir;

    @AfterEach
    void close() {
        allocator.close();
    }

    @Test
    void aFileWrittenWithReusedBuffersEqualsAFreshOne() throws Exception {
        Schema arrow = TypeCatalog.schema(true, true);
        // Many nulls and long values first, then none and short ones (stale level codes and bytes
        // in the reused buffers would show), then the reverse; small pages to cut several per file.
        FileWriterOptions miniBlock = FileWriterOptions.defaults().withTargetPageBytes(4096);
        // Values from 16 bytes are full-zip: long strings there, short ones mini-block.
        FileWriterOptions fullZip = miniBlock.withFullZipMinValueBytes(16);
        for (FileWriterOptions options : new FileWriterOptions[] {miniBlock, fullZip}) {
            assertReuseIsInvisible(arrow, options, new RandomBatches.Shape(2, 5, 60), new RandomBatches.Shape(0, 2, 5));
            assertReuseIsInvisible(arrow, options, new RandomBatches.Shape(0, 2, 5), new RandomBatches.Shape(3, 4, 40));
        }
    }

    private void assertReuseIsInvisible(
            Schema arrow, FileWriterOptions options, RandomBatches.Shape first, RandomBatches.Shape second)
            throws Exception {
        LanceSchema schema = LanceSchema.fromArrow(arrow, 0);
        LocalObjectStore store = new LocalObjectStore(dir);
        String name = Long.toString(System.nanoTime());
        try (VectorSchemaRoot a = RandomBatches.batch(arrow, allocator, 3000, 11, first);
                VectorSchemaRoot b = RandomBatches.batch(arrow, allocator, 2500, 12, second)) {
            LanceFileWriter previous = LanceFileWriter.create(
                    store, "data/" + name + "-a.lance", schema, FileVersion.V2_1, allocator, options);
            previous.write(a);
            previous.finish();
            try (LanceFileWriter reused = previous.next("data/" + name + "-b.lance")) {
                reused.write(b);
                reused.finish();
            }
            try (LanceFileWriter fresh = LanceFileWriter.create(
                    store, "data/" + name + "-c.lance", schema, FileVersion.V2_1, allocator, options)) {
                fresh.write(b);
                fresh.finish();
            }
        }
        byte[] reusedBytes = Files.readAllBytes(dir.resolve("data/" + name + "-b.lance"));
        byte[] freshBytes = Files.readAllBytes(dir.resolve("data/" + name + "-c.lance"));
        assertThat(reusedBytes).hasSizeGreaterThan(4096 * 4).isEqualTo(freshBytes);
    }

    @Test
    void onlyAFinishedWriterHandsItsBuffersOnAndOnlyOnce() throws Exception {
        Schema arrow = TypeCatalog.schema(true, false);
        LanceSchema schema = LanceSchema.fromArrow(arrow, 0);
        LocalObjectStore store = new LocalObjectStore(dir);
        try (VectorSchemaRoot rows = RandomBatches.batch(arrow, allocator, 10, 1, new RandomBatches.Shape(3, 2, 5));
                LanceFileWriter open = LanceFileWriter.create(
                        store, "data/open.lance", schema, FileVersion.V2_1, allocator, FileWriterOptions.defaults())) {
            open.write(rows);
            assertThatThrownBy(() -> open.next("data/x.lance"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("data/open.lance is still open");
            open.finish();
            open.next("data/next.lance").close();
            assertThatThrownBy(() -> open.next("data/y.lance"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("already went to another file");
        }
        assertThat(Files.exists(dir.resolve("data/x.lance"))).isFalse();
        assertThat(Files.exists(dir.resolve("data/next.lance"))).isFalse(); // closed unfinished: removed
        assertThat(List.of(Files.exists(dir.resolve("data/open.lance")))).containsExactly(true);
    }
}
