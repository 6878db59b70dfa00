package dev.lanceflink.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.file.FileVersion;
import dev.lanceflink.file.LanceFileReader;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.schema.LanceSchema;
import dev.lanceflink.table.Fragment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Flushing hands out the fragments written so far and keeps the writer going, as a streaming sink needs. */
class FragmentWriterTest {
    private static final Schema ARROW = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
    private static final LanceSchema SCHEMA = LanceSchema.fromArrow(ARROW, 0);

    private final BufferAllocator allocator = new RootAllocator();

    @TempDir
    Path dir;

    @AfterEach
    void close() {
        allocator.close();
    }

    @Test
    void flushReturnsEachCheckpointsFragmentsAndTheFilesReadBack() throws Exception {
        LocalObjectStore store = new LocalObjectStore(dir);
        List<Fragment> first;
        List<Fragment> second;
        List<Fragment> empty;
        try (FragmentWriter w =
                new FragmentWriter(store, SCHEMA, FileVersion.V2_1, 4, allocator, FileWriterOptions.defaults())) {
            write(w, 0, 6);
            first = w.flush();
            write(w, 6, 3);
            second = w.flush();
            empty = w.flush();
            assertThat(w.finish()).isEmpty();
            assertThat(w.finish()).isEmpty();
            assertThatThrownBy(() -> write(w, 9, 1))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("finished");
        }
        assertThat(first).extracting(Fragment::physicalRows).containsExactly(4L, 2L);
        assertThat(second).extracting(Fragment::physicalRows).containsExactly(3L);
        assertThat(empty).isEmpty();
        List<Long> ids = new ArrayList<>();
        for (Fragment f : Stream.concat(first.stream(), second.stream()).toList()) {
            String path = "data/" + f.files().get(0).path();
            try (LanceFileReader r = LanceFileReader.open(store, path, allocator)) {
                ids.addAll(readIds(r));
            }
        }
        assertThat(ids).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L);
    }

    @Test
    void closeDeletesOnlyTheFilesWrittenAfterTheLastFlush() throws Exception {
        LocalObjectStore store = new LocalObjectStore(dir);
        List<Fragment> flushed;
        try (FragmentWriter w =
                new FragmentWriter(store, SCHEMA, FileVersion.V2_1, 100, allocator, FileWriterOptions.defaults())) {
            write(w, 0, 5);
            flushed = w.flush();
            write(w, 5, 5);
            w.flush();
            write(w, 10, 5); // never flushed: a checkpoint that did not complete
            assertThat(w.writtenPaths()).hasSize(3);
        }
        try (Stream<Path> files = Files.list(dir.resolve("data"))) {
            assertThat(files.map(p -> p.getFileName().toString()).toList())
                    .hasSize(2)
                    .contains(flushed.get(0).files().get(0).path());
        }
    }

    private void write(FragmentWriter w, long from, int rows) throws Exception {
        try (VectorSchemaRoot root = VectorSchemaRoot.create(ARROW, allocator)) {
            root.allocateNew();
            BigIntVector id = (BigIntVector) root.getVector(0);
            VarCharVector name = (VarCharVector) root.getVector(1);
            for (int i = 0; i < rows; i++) {
                id.setSafe(i, from + i);
                if ((from + i) % 3 == 0) {
                    name.setNull(i);
                } else {
                    name.setSafe(i, ("n" + (from + i)).getBytes(java.nio.charset.StandardCharsets.UTF_8));
                }
            }
            root.setRowCount(rows);
            w.write(root);
        }
    }

    private List<Long> readIds(LanceFileReader r) throws Exception {
        List<Long> out = new ArrayList<>();
        try (BigIntVector id = (BigIntVector) r.readRange(0, 0, r.numRows())) {
            for (int i = 0; i < id.getValueCount(); i++) {
                out.add(id.get(i));
            }
        }
        return out;
    }
}
