package dev.lanceflink.flink.source.reader;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.flink.source.LanceReadSpec;
import dev.lanceflink.flink.source.split.LanceSplit;
import dev.lanceflink.flink.testutil.SampleTable;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.table.BasePath;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.DeletionFile;
import dev.lanceflink.table.FeatureFlags;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.ManifestIO;
import dev.lanceflink.table.ManifestLocation;
import dev.lanceflink.table.VersionResolver;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LanceSplitReaderTest {
    @TempDir
    Path dir;

    /** Reads all records of the given splits, as "id@offset/rowaddr". */
    private List<String> readAll(LanceReadSpec spec, LanceSplit... splits) throws Exception {
        List<String> out = new ArrayList<>();
        try (LanceSplitReader reader = new LanceSplitReader(spec)) {
            reader.handleSplitsChanges(new SplitsAddition<>(List.of(splits)));
            int finished = 0;
            while (finished < splits.length) {
                RecordsWithSplitIds<LanceRecord> records = reader.fetch();
                finished += records.finishedSplits().size();
                while (records.nextSplit() != null) {
                    LanceRecord r;
                    while ((r = records.nextRecordFromSplit()) != null) {
                        out.add(r.row().getLong(0) + "@" + r.offset() + "/"
                                + r.row().getLong(1));
                    }
                }
                records.recycle();
            }
        }
        return out;
    }

    @Test
    void restoredSplitResumesAtItsOffsetAndKeepsTheLimit() throws Exception {
        String uri = dir.resolve("t.lance").toString();
        SampleTable.write(uri);
        LanceReadSpec spec = new LanceReadSpec(uri, Map.of(), List.of("id"), null, -1, true, 2);
        // Fragment 0 holds ids 0..2; fragment 1 ids 3..4 (row address 1<<32 | offset).
        assertThat(readAll(spec, LanceSplit.of(2, 0, 0, 3), LanceSplit.of(2, 1, 0, 2)))
                .containsExactly("0@0/0", "1@1/1", "2@2/2", "3@0/4294967296", "4@1/4294967297");
        assertThat(readAll(spec, new LanceSplit(2, 0, 0, 3, 1, 1))).containsExactly("1@1/1", "2@2/2");

        LanceReadSpec limited = new LanceReadSpec(uri, Map.of(), List.of("id"), "score >= 0.5", 2, true, 8);
        assertThat(readAll(limited, LanceSplit.of(2, 0, 0, 3))).containsExactly("1@1/1", "2@2/2");
        // One row already emitted before the restore: only one more may come.
        assertThat(readAll(limited, new LanceSplit(2, 0, 0, 3, 2, 1))).containsExactly("2@2/2");
    }

    @Test
    void overlaidValuesAreReadWhereTheRowsStay() throws Exception {
        String uri = dir.resolve("o.lance").toString();
        SampleTable.write(uri);
        Field nameField = new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null);
        try (Dataset d = Dataset.open(uri, Map.of());
                VarCharVector names = new VarCharVector(nameField, d.allocator())) {
            names.allocateNew();
            names.setSafe(0, "renamed".getBytes(StandardCharsets.UTF_8));
            names.setValueCount(1);
            try (VectorSchemaRoot values = new VectorSchemaRoot(List.of(names))) {
                values.setRowCount(1);
                // Row 1 of fragment 1 (id 4).
                d.update(new long[] {(1L << 32) | 1}, values).close();
            }
        }
        LanceReadSpec spec = new LanceReadSpec(uri, Map.of(), List.of("id", "name"), "name = 'renamed'", -1, true, 8);
        List<String> out = new ArrayList<>();
        try (LanceSplitReader reader = new LanceSplitReader(spec)) {
            reader.handleSplitsChanges(new SplitsAddition<>(List.of(LanceSplit.of(3, 1, 0, 2))));
            RecordsWithSplitIds<LanceRecord> records = reader.fetch();
            while (records.nextSplit() != null) {
                LanceRecord r;
                while ((r = records.nextRecordFromSplit()) != null) {
                    out.add(r.row().getLong(0) + ":" + r.row().getString(1) + "/"
                            + r.row().getLong(2));
                }
            }
            records.recycle();
        }
        assertThat(out).containsExactly("4:renamed/4294967297");
    }

    @Test
    void deletedRowsAreSkippedAtTheVersionThatDeletedThem() throws Exception {
        String uri = dir.resolve("d.lance").toString();
        SampleTable.write(uri);
        try (Dataset d = Dataset.open(uri, Map.of());
                Dataset after = d.delete("id = 1")) {
            assertThat(after.version()).isEqualTo(3);
        }
        LanceReadSpec spec = new LanceReadSpec(uri, Map.of(), List.of("id"), null, -1, true, 8);
        assertThat(readAll(spec, LanceSplit.of(3, 0, 0, 3))).containsExactly("0@0/0", "2@2/2");
        assertThat(readAll(spec, LanceSplit.of(2, 0, 0, 3))).containsExactly("0@0/0", "1@1/1", "2@2/2");
    }

    @Test
    void aShallowCloneIsReadFromTheFilesOfItsSource() throws Exception {
        String source = dir.resolve("src.lance").toString();
        SampleTable.write(source);
        try (Dataset d = Dataset.open(source, Map.of());
                Dataset after = d.delete("id = 1")) {
            assertThat(after.version()).isEqualTo(3);
        }
        // Version 3 of the source as pylance's shallow_clone lays it out: the manifest alone, every
        // file named through base path 0 (the source root).
        String clone = dir.resolve("clone.lance").toString();
        try (ObjectStore src = new LocalObjectStore(Path.of(source));
                ObjectStore dst = new LocalObjectStore(Path.of(clone))) {
            ManifestLocation loc = VersionResolver.latest(src);
            Manifest m = ManifestIO.read(src, loc);
            List<Fragment> fragments = new ArrayList<>();
            for (Fragment f : m.fragments()) {
                List<DataFile> files = new ArrayList<>();
                for (DataFile x : f.files()) {
                    files.add(new DataFile(
                            x.path(),
                            x.fields(),
                            x.columnIndices(),
                            x.fileMajorVersion(),
                            x.fileMinorVersion(),
                            x.fileSizeBytes(),
                            OptionalInt.of(0)));
                }
                DeletionFile del = f.deletionFile();
                fragments.add(f.withFiles(files)
                        .withDeletionFile(
                                del == null
                                        ? null
                                        : new DeletionFile(
                                                del.type(),
                                                del.readVersion(),
                                                del.id(),
                                                del.numDeletedRows(),
                                                OptionalInt.of(0))));
            }
            Manifest cloned = m.toBuilder()
                    .fragments(fragments)
                    .basePaths(List.of(new BasePath(0, null, true, source)))
                    .readerFeatureFlags(m.readerFeatureFlags() | FeatureFlags.BASE_PATHS)
                    .writerFeatureFlags(m.writerFeatureFlags() | FeatureFlags.BASE_PATHS)
                    .build();
            dst.putIfAbsent(loc.path(), ManifestIO.serialize(cloned));
        }
        LanceReadSpec spec = new LanceReadSpec(clone, Map.of(), List.of("id"), null, -1, true, 8);
        assertThat(readAll(spec, LanceSplit.of(3, 0, 0, 3), LanceSplit.of(3, 1, 0, 2)))
                .containsExactly("0@0/0", "2@2/2", "3@0/4294967296", "4@1/4294967297");
    }
}
