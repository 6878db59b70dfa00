package dev.lanceflink.file.writer;

import dev.lanceflink.file.FileVersion;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.schema.LanceSchema;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/** Writes test files into a temporary directory. */
final class WriterTestSupport {
    private WriterTestSupport() {}

    record Written(FileWriteSummary summary, byte[] bytes, LocalObjectStore store) {
        WrittenFile parse() throws Exception {
            return new WrittenFile(bytes);
        }
    }

    static Written write(
            Path dir,
            BufferAllocator allocator,
            FileVersion version,
            FileWriterOptions options,
            List<VectorSchemaRoot> batches)
            throws Exception {
        Schema arrow = batches.get(0).getSchema();
        LanceSchema schema = LanceSchema.fromArrow(arrow, 0);
        LocalObjectStore store = new LocalObjectStore(dir);
        FileWriteSummary summary;
        try (LanceFileWriter w = LanceFileWriter.create(store, "data/f.lance", schema, version, allocator, options)) {
            for (VectorSchemaRoot b : batches) {
                w.write(b);
            }
            summary = w.finish();
        }
        return new Written(summary, Files.readAllBytes(dir.resolve("data/f.lance")), store);
    }
}
