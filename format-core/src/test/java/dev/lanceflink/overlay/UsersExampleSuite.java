package dev.lanceflink.overlay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.compact.OverlayCompactor;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.file.LanceFileReader;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.StoreBackedSuite;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.FeatureFlags;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.IndexEntry;
import dev.lanceflink.table.OverlayCoverage;
import dev.lanceflink.txn.CommitOptions;
import dev.lanceflink.txn.Operation;
import dev.lanceflink.txn.TableCommitter;
import dev.lanceflink.txn.Transaction;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import lance.table.IndexMetadata;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;

/**
 * The worked {@code users} example of overlays.md §10, step by step. Field ids are those a new
 * table gets (id 0, name 1, age 2, embedding 3; the spec text numbers from 1). The age index is
 * committed after the sparse overlay (with dataset_version 1, as if built from version 1 and
 * committed late), so the overlay versions 2 and 3 match the spec and the fold is version 5.
 *
 * <p>Runs locally as {@link UsersExampleTest} and on S3 as s3-store's {@code S3UsersExampleTest}.
 */
public abstract class UsersExampleSuite extends StoreBackedSuite {
    private static final HexFormat HEX = HexFormat.ofDelimiter(" ");
    private final BufferAllocator allocator = new RootAllocator();

    @AfterEach
    void closeAllocator() {
        allocator.close();
    }

    static Schema usersSchema() {
        Field item =
                new Field("item", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)), null);
        return new Schema(List.of(
                Field.notNullable("id", new ArrowType.Int(32, true)),
                Field.nullable("name", ArrowType.Utf8.INSTANCE),
                Field.nullable("age", new ArrowType.Int(32, true)),
                new Field("embedding", FieldType.nullable(new ArrowType.FixedSizeList(4)), List.of(item))));
    }

    private VectorSchemaRoot usersBatch() {
        VectorSchemaRoot root = VectorSchemaRoot.create(usersSchema(), allocator);
        root.allocateNew();
        String[] names = {"Alice", "Bob", "Carol", "Dave"};
        int[] ages = {30, 25, 40, 22};
        FixedSizeListVector emb = (FixedSizeListVector) root.getVector("embedding");
        Float4Vector items = (Float4Vector) emb.getDataVector();
        for (int i = 0; i < 4; i++) {
            ((IntVector) root.getVector("id")).setSafe(i, i + 1);
            ((VarCharVector) root.getVector("name")).setSafe(i, names[i].getBytes());
            ((IntVector) root.getVector("age")).setSafe(i, ages[i]);
            emb.setNotNull(i);
            for (int j = 0; j < 4; j++) {
                items.setSafe(i * 4 + j, i + j / 10f);
            }
        }
        items.setValueCount(16);
        root.setRowCount(4);
        return root;
    }

    private static byte[] bytes(String hex) {
        return HEX.parseHex(hex);
    }

    @Test
    void usersExampleFromTheSpec() throws Exception {
        ObjectStore store = newStore();
        try (VectorSchemaRoot batch = usersBatch()) {
            Dataset.write(
                    store,
                    allocator,
                    List.of(batch),
                    usersSchema(),
                    WriteParams.of(WriteMode.CREATE).withStableRowIds(true));
        }
        try (Dataset v1 = Dataset.open(store, allocator)) {
            assertThat(v1.version()).isEqualTo(1);
            assertThat(v1.manifest().readerFeatureFlags() & FeatureFlags.UNSTABLE_DATA_OVERLAY_FILES)
                    .isZero();

            // Step 1: UPDATE users SET age = age + 1 WHERE id IN (2, 4) -> one dense overlay, version 2.
            Dataset v2;
            try (VectorSchemaRoot ages =
                    VectorSchemaRoot.create(new Schema(List.of(usersSchema().findField("age"))), allocator)) {
                IntVector age = (IntVector) ages.getVector(0);
                age.allocateNew(2);
                age.set(0, 26);
                age.set(1, 23);
                ages.setRowCount(2);
                v2 = v1.update(new long[] {3, 1}, reorder(ages)); // any order: sorted by the update
            }
            assertThat(v2.version()).isEqualTo(2);
            Fragment f2 = v2.manifest().fragment(0).orElseThrow();
            assertThat(f2.overlays()).hasSize(1);
            DataOverlayFile o2 = f2.overlays().get(0);
            assertThat(o2.committedVersion()).isEqualTo(2);
            assertThat(o2.dataFile().fields()).containsExactly(2);
            assertThat(o2.dataFile().columnIndices()).containsExactly(0);
            assertThat(o2.coverage()).isInstanceOf(OverlayCoverage.Dense.class);
            assertThat(((OverlayCoverage.Dense) o2.coverage()).sharedOffsetBitmap())
                    .isEqualTo(bytes("3a 30 00 00 01 00 00 00 00 00 01 00 10 00 00 00 01 00 03 00"));
            assertThat(v2.manifest().readerFeatureFlags()).isEqualTo(64 | 2);
            assertThat(v2.manifest().writerFeatureFlags() & (64 | 2)).isEqualTo(64 | 2);
            try (LanceFileReader r = LanceFileReader.open(store, o2.dataFile().rootRelativePath(), allocator);
                    FieldVector v = r.readRange(2, 0, 2)) {
                assertThat(r.numRows(2)).isEqualTo(2);
                assertThat(List.of(v.getObject(0), v.getObject(1))).containsExactly(26, 23);
            }

            // Step 2: reads see the overlay.
            assertThat(OverlayTestSupport.column(v2, "age")).containsExactly(30, 26, 40, 23);
            assertThat(OverlayTestSupport.column(v2, "name")).containsExactly("Alice", "Bob", "Carol", "Dave");
            try (VectorSchemaRoot taken = v2.take(new long[] {3, 0, 1}, List.of("age", "id"))) {
                assertThat(List.of(
                                taken.getVector("age").getObject(0),
                                taken.getVector("age").getObject(1),
                                taken.getVector("age").getObject(2)))
                        .containsExactly(23, 30, 26);
            }
            assertThat(OverlayTestSupport.rows(v2.checkoutVersion(2), List.of("id", "age")))
                    .containsEntry(1L, List.of(2, 26));
            try (var s = v2.scan(dev.lanceflink.read.ScanOptions.all()
                    .withColumns(List.of("id"))
                    .withFilter("age = 26"))) {
                assertThat(s.hasNext()).isTrue();
                try (VectorSchemaRoot b = s.next()) {
                    assertThat(b.getRowCount()).isEqualTo(1);
                    assertThat(b.getVector("id").getObject(0)).isEqualTo(2);
                }
            }

            // Step 3: the age index (dataset_version 1) must exclude and re-check offsets {1, 3}.
            RoaringBitmap excluded = OverlayExclusions.excludedOffsets(f2, v2.schema(), new int[] {2}, 1);
            assertThat(excluded.toArray()).containsExactly(1, 3);
            assertThat(OverlayExclusions.excludedOffsets(f2, v2.schema(), new int[] {1}, 1)
                            .isEmpty())
                    .isTrue();
            assertThat(OverlayExclusions.excludedOffsets(f2, v2.schema(), new int[] {2}, 2)
                            .isEmpty())
                    .isTrue();

            // Step 4: MERGE updating name for Carol/Dave and embedding for Bob -> sparse overlay, version 3.
            DataOverlayFile sparse;
            String sparsePath;
            try (OverlayWriter w = OverlayWriter.create(store, v2.manifest(), 0, new int[] {3, 1}, allocator);
                    VarCharVector names = new VarCharVector("name", allocator);
                    FixedSizeListVector emb = (FixedSizeListVector)
                            usersSchema().findField("embedding").createVector(allocator)) {
                names.allocateNew();
                names.setSafe(0, "Caroline".getBytes());
                names.setSafe(1, "David".getBytes());
                names.setValueCount(2);
                emb.allocateNew();
                emb.setNotNull(0);
                Float4Vector items = (Float4Vector) emb.getDataVector();
                for (int j = 0; j < 4; j++) {
                    items.setSafe(j, 9 + j);
                }
                items.setValueCount(4);
                emb.setValueCount(1);
                w.writeField(1, new long[] {2, 3}, names);
                w.writeField(3, new long[] {1}, emb);
                sparse = w.finish().orElseThrow();
                sparsePath = w.writtenPath().orElseThrow();
            }
            assertThat(sparse.dataFile().fields()).containsExactly(1, 3);
            assertThat(sparse.dataFile().columnIndices()).containsExactly(0, 1);
            assertThat(sparse.coverage()).isInstanceOf(OverlayCoverage.PerField.class);
            List<byte[]> bms = ((OverlayCoverage.PerField) sparse.coverage()).offsetBitmaps();
            assertThat(bms.get(0)).isEqualTo(bytes("3a 30 00 00 01 00 00 00 00 00 01 00 10 00 00 00 02 00 03 00"));
            assertThat(bms.get(1)).isEqualTo(bytes("3a 30 00 00 01 00 00 00 00 00 00 00 10 00 00 00 01 00"));
            try (LanceFileReader r = LanceFileReader.open(store, sparsePath, allocator)) {
                assertThat(r.numRows(1)).isEqualTo(2);
                assertThat(r.numRows(3)).isEqualTo(1);
                assertThat(r.metadata().descriptor().getLength()).isEqualTo(2);
            }
            StagedWrite staged =
                    new StagedWrite(OverlayCommits.operation(Map.of(0L, List.of(sparse))), List.of(sparsePath));
            var m3 = OverlayCommits.commit(store, 2, staged, Map.of(), CommitOptions.defaults());
            assertThat(m3.version()).isEqualTo(3);
            try (Dataset v3 = Dataset.open(store, allocator)) {
                Fragment f3 = v3.manifest().fragment(0).orElseThrow();
                assertThat(f3.overlays())
                        .extracting(DataOverlayFile::committedVersion)
                        .containsExactly(2L, 3L);

                // Step 5: each field resolves independently, newest first.
                assertThat(OverlayTestSupport.column(v3, "name")).containsExactly("Alice", "Bob", "Caroline", "David");
                assertThat(OverlayTestSupport.column(v3, "age")).containsExactly(30, 26, 40, 23);
                List<Object> embeddings = OverlayTestSupport.column(v3, "embedding");
                assertThat(embeddings.get(1)).isEqualTo(List.of(9f, 10f, 11f, 12f));
                assertThat(embeddings.get(0)).isEqualTo(List.of(0f, 0.1f, 0.2f, 0.3f));
                assertThat(embeddings.get(2)).isEqualTo(List.of(2f, 2.1f, 2.2f, 2.3f));
                assertThat(OverlayExclusions.excludedOffsets(f3, v3.schema(), new int[] {2}, 1)
                                .toArray())
                        .containsExactly(1, 3);
                assertThat(OverlayExclusions.excludedOffsets(f3, v3.schema(), new int[] {1}, 1)
                                .toArray())
                        .containsExactly(2, 3);

                // The age index, built from version 1, committed now (version 4).
                Dataset v4 = commitAgeIndex(store, v3);
                IndexEntry index = v4.manifest().indices().get(0);
                assertThat(OverlayExclusions.excludedRows(v4.manifest(), index)).containsOnlyKeys(0L);
                assertThat(OverlayExclusions.excludedRows(v4.manifest(), index)
                                .get(0L)
                                .toArray())
                        .containsExactly(1, 3);

                // Step 6: fold -> new base file, old columns tombstoned, overlays gone, index loses fragment 0.
                StagedWrite fold = OverlayCompactor.fold(
                        store, v4.manifest(), 0, allocator, dev.lanceflink.file.writer.FileWriterOptions.defaults());
                var m5 = OverlayCompactor.commit(store, v4.manifest(), 0, fold, Map.of(), CommitOptions.defaults());
                assertThat(m5.version()).isEqualTo(5);
                try (Dataset v5 = Dataset.open(store, allocator)) {
                    Fragment f5 = v5.manifest().fragment(0).orElseThrow();
                    assertThat(f5.files()).hasSize(2);
                    assertThat(f5.files().get(0).fields())
                            .containsExactly(0, DataFile.TOMBSTONE, DataFile.TOMBSTONE, DataFile.TOMBSTONE);
                    assertThat(f5.files().get(1).fields()).containsExactly(1, 2, 3);
                    assertThat(f5.overlays()).isEmpty();
                    assertThat(v5.manifest().readerFeatureFlags() & 64).isZero();
                    assertThat(v5.manifest().writerFeatureFlags() & 64).isZero();
                    assertThat(v5.manifest().indices().get(0).coversFragment(0)).isFalse();
                    assertThat(OverlayTestSupport.column(v5, "name"))
                            .containsExactly("Alice", "Bob", "Caroline", "David");
                    assertThat(OverlayTestSupport.column(v5, "age")).containsExactly(30, 26, 40, 23);
                    assertThat(OverlayTestSupport.column(v5, "id")).containsExactly(1, 2, 3, 4);
                    assertThat(OverlayTestSupport.column(v5, "embedding").get(1))
                            .isEqualTo(List.of(9f, 10f, 11f, 12f));
                    assertThat(f5.rowIdMeta()).isEqualTo(f3.rowIdMeta());
                }
                v4.close();
            }
            v2.close();
        }
    }

    /** The rows in the order of addresses {3, 1}: Dave's value first. */
    private static VectorSchemaRoot reorder(VectorSchemaRoot ages) {
        IntVector age = (IntVector) ages.getVector(0);
        int a = age.get(0);
        age.set(0, age.get(1));
        age.set(1, a);
        return ages;
    }

    private Dataset commitAgeIndex(ObjectStore store, Dataset current) throws Exception {
        RoaringBitmap frags = RoaringBitmap.bitmapOf(0);
        ByteBuffer buf = ByteBuffer.allocate(frags.serializedSizeInBytes());
        frags.serialize(buf);
        IndexMetadata meta = IndexMetadata.newBuilder()
                .setUuid(lance.table.UUID.newBuilder().setUuid(com.google.protobuf.ByteString.copyFrom(new byte[16])))
                .addFields(2)
                .setName("age_idx")
                .setDatasetVersion(1)
                .setFragmentBitmap(com.google.protobuf.ByteString.copyFrom(buf.array()))
                .build();
        var m = TableCommitter.commit(
                store,
                Transaction.of(current.version(), new Operation.CreateIndex(List.of(new IndexEntry(meta)), List.of())),
                CommitOptions.defaults());
        assertThat(m.version()).isEqualTo(current.version() + 1);
        return Dataset.open(store, allocator);
    }
}
