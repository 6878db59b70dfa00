package dev.lanceflink.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.io.ObjectInfo;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.StoreBackedSuite;
import dev.lanceflink.io.TestLocation;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.read.Scanner;
import dev.lanceflink.table.BasePath;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.FeatureFlags;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.ManifestIO;
import dev.lanceflink.table.ManifestNamingScheme;
import dev.lanceflink.txn.Operation;
import dev.lanceflink.txn.Transaction;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Tables whose files live under base paths ({@code base_id}), as a shallow clone made by
 * pylance 14 is ({@link ShallowClones}): reads find the source's data and deletion files, writes
 * keep them and put new files under the clone's own root, and a base that cannot be opened is
 * named in the error. Runs locally as {@link ShallowCloneTest} and on S3 as s3-store's
 * {@code S3ShallowCloneTest} (where the base must be reached with the clone's credentials).
 */
public abstract class ShallowCloneSuite extends StoreBackedSuite {
    private static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(32, true)), null),
            new Field("name", FieldType.nullable(new ArrowType.Utf8()), null)));

    private BufferAllocator allocator;
    private TestLocation source;
    private TestLocation clone;

    @BeforeEach
    void setUp() {
        allocator = new RootAllocator();
    }

    @AfterEach
    void tearDown() {
        allocator.close();
    }

    private VectorSchemaRoot batch(int from, int to) {
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
        IntVector id = (IntVector) root.getVector("id");
        VarCharVector name = (VarCharVector) root.getVector("name");
        for (int i = from; i < to; i++) {
            id.setSafe(i - from, i);
            name.setSafe(i - from, ("n" + i).getBytes(StandardCharsets.UTF_8));
        }
        root.setRowCount(to - from);
        return root;
    }

    /**
     * The source of every test, as in the pylance snippet: ids 0..9 (fragment 0), append 10..14
     * (fragment 1), delete id 3 (a deletion file of fragment 0); then a shallow clone of version 3.
     */
    private Manifest sourceAndClone() throws IOException {
        source = newLocation("src");
        clone = newLocation("clone");
        try (VectorSchemaRoot first = batch(0, 10);
                VectorSchemaRoot more = batch(10, 15);
                Dataset v1 = Dataset.write(
                        source.uri(),
                        source.storageOptions(),
                        List.of(first),
                        SCHEMA,
                        WriteParams.of(WriteMode.CREATE));
                Dataset v2 = v1.append(List.of(more), WriteParams.of(WriteMode.APPEND));
                Dataset v3 = v2.delete("id = 3")) {
            assertThat(v3.version()).isEqualTo(3);
        }
        return ShallowClones.clone(openStore(source), source.uri(), 3, openStore(clone));
    }

    private static List<Integer> ids(Dataset ds) throws IOException {
        List<Integer> out = new ArrayList<>();
        try (Scanner s = ds.scan(ScanOptions.all().withColumns(List.of("id")))) {
            while (s.hasNext()) {
                try (VectorSchemaRoot b = s.next()) {
                    IntVector id = (IntVector) b.getVector("id");
                    for (int r = 0; r < b.getRowCount(); r++) {
                        out.add(id.get(r));
                    }
                }
            }
        }
        return out;
    }

    private static List<Integer> range(int from, int to, int... without) {
        List<Integer> out = new ArrayList<>();
        for (int i = from; i < to; i++) {
            final int v = i;
            if (java.util.Arrays.stream(without).noneMatch(w -> w == v)) {
                out.add(i);
            }
        }
        return out;
    }

    private Set<String> files(TestLocation location) throws IOException {
        ObjectStore store = openStore(location);
        Set<String> out = new TreeSet<>();
        for (Iterator<ObjectInfo> it = store.listRecursive(""); it.hasNext(); ) {
            out.add(it.next().path());
        }
        return out;
    }

    @Test
    void aShallowCloneReadsTheSourcesDataAndDeletionFiles() throws Exception {
        Manifest cloned = sourceAndClone();
        assertThat(cloned.fragments().get(0).deletionFile().baseId()).hasValue(0);

        try (Dataset ds = Dataset.open(clone.uri(), clone.storageOptions())) {
            assertThat(ds.version()).isEqualTo(3);
            assertThat(ds.manifest().basePaths()).containsExactly(new BasePath(0, null, true, source.uri()));
            assertThat(ids(ds)).isEqualTo(range(0, 15, 3));
            try (VectorSchemaRoot r = ds.take(new long[] {(1L << 32) | 2, 4}, List.of("name"))) {
                assertThat(r.getVector("name").getObject(0).toString()).isEqualTo("n12");
                assertThat(r.getVector("name").getObject(1).toString()).isEqualTo("n4");
            }
            assertThatThrownBy(() -> ds.take(new long[] {3}, List.of("id"))).hasMessageContaining("deleted row");
        }
    }

    @Test
    void writesKeepTheSourceFilesAndPutNewFilesUnderTheClonesRoot() throws Exception {
        sourceAndClone();
        Set<String> sourceFiles = files(source);

        try (Dataset v3 = Dataset.open(clone.uri(), clone.storageOptions());
                Dataset v4 = v3.delete("id = 5 OR id = 12"); // both fragments; fragment 0 merges the source's deletions
                VectorSchemaRoot more = batch(100, 102);
                Dataset v5 = v4.append(List.of(more), WriteParams.of(WriteMode.APPEND));
                VectorSchemaRoot names = VectorSchemaRoot.create(
                        new Schema(List.of(SCHEMA.getFields().get(1))), allocator)) {
            VarCharVector name = (VarCharVector) names.getVector(0);
            name.setSafe(0, "renamed".getBytes(StandardCharsets.UTF_8));
            names.setRowCount(1);
            try (Dataset v6 = v5.update(new long[] {7}, names)) { // an overlay on fragment 0
                assertThat(ids(v6)).isEqualTo(List.of(0, 1, 2, 4, 6, 7, 8, 9, 10, 11, 13, 14, 100, 101));
                try (VectorSchemaRoot r = v6.take(new long[] {7}, List.of("name"))) {
                    assertThat(r.getVector("name").getObject(0).toString()).isEqualTo("renamed");
                }
                Manifest m = v6.manifest();
                assertThat(m.basePaths()).containsExactly(new BasePath(0, null, true, source.uri()));
                assertThat(m.readerFeatureFlags() & FeatureFlags.BASE_PATHS).isNotZero();
                Fragment f0 = m.fragment(0).orElseThrow();
                Fragment f1 = m.fragment(1).orElseThrow();
                Fragment added = m.fragment(2).orElseThrow();
                assertThat(f0.files()).extracting(DataFile::baseId).containsOnly(OptionalInt.of(0));
                assertThat(f1.files()).extracting(DataFile::baseId).containsOnly(OptionalInt.of(0));
                assertThat(f0.deletionFile().baseId())
                        .as("the merged deletion file is the clone's")
                        .isEmpty();
                assertThat(f1.deletionFile().baseId()).isEmpty();
                assertThat(f0.overlays())
                        .singleElement()
                        .satisfies(o -> assertThat(o.dataFile().baseId()).isEmpty());
                assertThat(added.files()).extracting(DataFile::baseId).containsOnly(OptionalInt.empty());
                // The delete's transaction keeps the source files' base ids too (Lance reads it to rebase).
                Transaction delete = v4.transaction().orElseThrow();
                assertThat(((Operation.Delete) delete.operation()).updatedFragments())
                        .flatExtracting(Fragment::files)
                        .extracting(DataFile::baseId)
                        .containsOnly(OptionalInt.of(0));
            }
            // A manifest written by this library parses back with its base paths.
            Manifest back = ManifestIO.parse(ManifestIO.serialize(v5.manifest()), "memory");
            assertThat(back.basePaths()).isEqualTo(v5.manifest().basePaths());
            assertThat(back.fragments()).isEqualTo(v5.manifest().fragments());
        }
        assertThat(files(source)).as("nothing written into the source").isEqualTo(sourceFiles);
        try (Dataset reopened = Dataset.open(clone.uri(), clone.storageOptions())) {
            assertThat(ids(reopened)).hasSize(14);
        }
    }

    @Test
    void concurrentDeletesRebaseOnTheSourcesDeletionFile() throws Exception {
        sourceAndClone();
        try (Dataset v3 = Dataset.open(clone.uri(), clone.storageOptions());
                Dataset v4 = v3.delete("id = 1");
                Dataset v5 = v3.delete("id = 2")) { // computed against version 3: rebased onto version 4
            assertThat(v5.version()).isEqualTo(5);
            assertThat(ids(v5)).isEqualTo(range(0, 15, 1, 2, 3));
        }
    }

    @Test
    void aBasePathThatCannotBeOpenedIsNamedWithTheFile() throws Exception {
        Manifest cloned = sourceAndClone();
        ObjectStore store = openStore(clone);
        Manifest unreachable = cloned.toBuilder()
                .version(4)
                .basePaths(List.of(new BasePath(0, "v3", true, "gs://nowhere/src.lance")))
                .build();
        store.putIfAbsent(ManifestNamingScheme.V2.path(4), ManifestIO.serialize(unreachable));

        try (Dataset ds = Dataset.open(clone.uri(), clone.storageOptions())) {
            assertThat(ds.version()).isEqualTo(4);
            assertThat(ds.countRows()).as("metadata needs no base").isEqualTo(14);
            assertThatThrownBy(() -> ids(ds))
                    .hasMessageContaining("Cannot read the deletion file 0-2-")
                    .hasMessageContaining("of fragment 0 of table " + clone.uri())
                    .hasMessageContaining("base path id 0 ('gs://nowhere/src.lance')")
                    .hasMessageContaining("scheme 'gs'");
            assertThatThrownBy(() -> ds.take(new long[] {(1L << 32) | 1}, List.of("id")))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("data file "
                            + cloned.fragment(1).orElseThrow().files().get(0).path() + " of fragment 1")
                    .hasMessageContaining("gs://nowhere/src.lance");
        }
    }
}
