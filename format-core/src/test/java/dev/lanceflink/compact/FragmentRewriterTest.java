package dev.lanceflink.compact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.file.FileVersion;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.overlay.StagedWrite;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.read.Scanner;
import dev.lanceflink.rowid.RowIdSequenceCodec;
import dev.lanceflink.rowid.RowVersionSequenceCodec;
import dev.lanceflink.table.FeatureFlags;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.SequenceSource;
import dev.lanceflink.txn.CommitOptions;
import dev.lanceflink.txn.Operation;
import dev.lanceflink.txn.TableCommitter;
import dev.lanceflink.txn.Transaction;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FragmentRewriterTest {
    private static final Schema SCHEMA = new Schema(List.of(
            Field.notNullable("k", new ArrowType.Int(32, true)),
            Field.nullable("a", new ArrowType.Int(64, true)),
            Field.nullable("s", ArrowType.Utf8.INSTANCE)));

    @TempDir
    Path dir;

    private BufferAllocator allocator;
    private ObjectStore store;

    @BeforeEach
    void setUp() {
        allocator = new RootAllocator();
        store = new LocalObjectStore(dir);
    }

    @AfterEach
    void tearDown() throws Exception {
        store.close();
        allocator.close(); // fails the test on leaked Arrow buffers
    }

    @Test
    void outputSizesSpreadTheRowsLikeLance() {
        assertThat(FragmentRewriter.outputSizes(0, 10)).isEmpty();
        assertThat(FragmentRewriter.outputSizes(5, 10)).containsExactly(5);
        assertThat(FragmentRewriter.outputSizes(19, 10)).containsExactly(19); // no stranded tail of 9
        assertThat(FragmentRewriter.outputSizes(10, 3)).containsExactly(4, 3, 3);
        assertThat(FragmentRewriter.outputSizes(25, 10)).containsExactly(13, 12);
    }

    /**
     * Three fragments of 10 rows; overlays on fragments 0 and 1 (version 2), deletions in 1 and 2
     * (version 3), one of them on an overlaid row.
     */
    private Dataset tableWithOverlaysAndDeletions(boolean stableRowIds) throws Exception {
        Dataset ds = create(3, 10, stableRowIds);
        ds = update(ds, new long[] {2, 7, 1L << 32 | 4, 1L << 32 | 5}, 900);
        ds = ds.deleteRows(new long[] {1L << 32 | 5, 1L << 32 | 6, 2L << 32, 2L << 32 | 9});
        return ds;
    }

    @Test
    void rewriteKeepsEveryVisibleValueAndDropsOverlaysAndDeletions() throws Exception {
        try (Dataset ds = tableWithOverlaysAndDeletions(false)) {
            List<String> before = scan(ds);
            assertThat(before).hasSize(26).contains("2|902|u", "14|904|u").doesNotContain("15|905|u");
            StagedWrite staged = FragmentRewriter.rewrite(
                    store, ds.manifest(), List.of(0L, 1L, 2L), 100, allocator, FileWriterOptions.defaults());
            Operation.Rewrite op = (Operation.Rewrite) staged.operation();
            assertThat(op.groups()).singleElement().satisfies(g -> {
                assertThat(g.oldFragments()).isEqualTo(ds.manifest().fragments());
                assertThat(g.newFragments()).singleElement().satisfies(f -> {
                    assertThat(f.id()).isZero(); // assigned at commit
                    assertThat(f.physicalRows()).isEqualTo(26);
                    assertThat(f.deletionFile()).isNull();
                    assertThat(f.overlays()).isEmpty();
                    assertThat(f.rowIdMeta().isEmpty()).isTrue();
                    assertThat(f.files()).singleElement().satisfies(d -> {
                        assertThat(d.fileMajorVersion()).isEqualTo(2);
                        assertThat(d.fileMinorVersion()).isEqualTo(FileVersion.DEFAULT_FOR_NEW_TABLES.minor());
                        assertThat(d.fileSizeBytes()).isEqualTo(Files.size(dir.resolve(d.rootRelativePath())));
                    });
                });
            });
            Manifest m =
                    TableCommitter.commit(store, Transaction.of(ds.version(), op, Map.of()), CommitOptions.defaults());
            assertThat(m.fragments()).extracting(Fragment::id).containsExactly(3L);
            assertThat(m.readerFeatureFlags() & FeatureFlags.UNSTABLE_DATA_OVERLAY_FILES)
                    .isZero();
            try (Dataset after = ds.checkoutLatest()) {
                assertThat(scan(after)).isEqualTo(before);
            }
        }
    }

    @Test
    void rewriteSplitsIntoEvenFragmentsOfTheTargetSize() throws Exception {
        try (Dataset ds = tableWithOverlaysAndDeletions(false)) {
            List<String> before = scan(ds);
            StagedWrite staged = FragmentRewriter.rewrite(
                    store, ds.manifest(), List.of(0L, 1L, 2L), 8, allocator, FileWriterOptions.defaults());
            List<Fragment> fresh =
                    ((Operation.Rewrite) staged.operation()).groups().get(0).newFragments();
            assertThat(fresh).extracting(Fragment::physicalRows).containsExactly(9L, 9L, 8L);
            assertThat(staged.writtenPaths()).hasSize(3);
            TableCommitter.commit(
                    store, Transaction.of(ds.version(), staged.operation(), Map.of()), CommitOptions.defaults());
            try (Dataset after = ds.checkoutLatest()) {
                assertThat(after.fragments()).extracting(Fragment::id).containsExactly(3L, 4L, 5L);
                assertThat(scan(after)).isEqualTo(before); // table order kept: new ids follow the old order
            }
        }
    }

    @Test
    void stableRowIdsAndRowVersionsFollowTheSurvivingRows() throws Exception {
        try (Dataset ds = tableWithOverlaysAndDeletions(true)) {
            assertThat(ds.manifest().usesStableRowIds()).isTrue();
            StagedWrite staged = FragmentRewriter.rewrite(
                    store, ds.manifest(), List.of(1L, 2L), 8, allocator, FileWriterOptions.defaults());
            List<Fragment> fresh =
                    ((Operation.Rewrite) staged.operation()).groups().get(0).newFragments();
            assertThat(fresh).extracting(Fragment::physicalRows).containsExactly(8L, 8L);
            List<Long> ids = new ArrayList<>();
            List<Long> created = new ArrayList<>();
            List<Long> updated = new ArrayList<>();
            for (Fragment f : fresh) {
                for (long id : RowIdSequenceCodec.decode(inline(f.rowIdMeta().rowIds()), "test")) {
                    ids.add(id);
                }
                for (long v :
                        RowVersionSequenceCodec.decode(inline(f.rowIdMeta().createdAtVersions()), 8, "test")) {
                    created.add(v);
                }
                for (long v :
                        RowVersionSequenceCodec.decode(inline(f.rowIdMeta().lastUpdatedAtVersions()), 8, "test")) {
                    updated.add(v);
                }
            }
            // Fragment 1 held ids 10..19 (15 and 16 deleted), fragment 2 ids 20..29 (20 and 29 deleted).
            List<Long> expected =
                    new ArrayList<>(LongStream.rangeClosed(10, 19).boxed().toList());
            expected.removeAll(List.of(15L, 16L));
            LongStream.rangeClosed(21, 28).forEach(expected::add);
            assertThat(ids).isEqualTo(expected);
            assertThat(created).containsOnly(1L).hasSize(16);
            List<Long> expectedUpdated = new ArrayList<>(java.util.Collections.nCopies(16, 1L));
            expectedUpdated.set(4, 2L); // id 14 was overlaid at version 2
            assertThat(updated).isEqualTo(expectedUpdated);

            Manifest m = TableCommitter.commit(
                    store, Transaction.of(ds.version(), staged.operation(), Map.of()), CommitOptions.defaults());
            assertThat(m.nextRowId()).isEqualTo(ds.manifest().nextRowId()); // no new ids handed out
            assertThat(m.fragments()).extracting(Fragment::id).containsExactly(0L, 3L, 4L);
        }
    }

    @Test
    void chunksAndOutputFilesSplitAnywhereWithoutLosingOrDuplicatingRows() throws Exception {
        int rows = FragmentRewriter.CHUNK_ROWS + 1808; // two read steps per fragment
        Dataset ds = create(2, rows, false);
        long f1 = 1L << 32;
        // Overlays in both fragments' second step; 10 deletions in fragment 0, some around the step
        // boundary and one on an overlaid row.
        ds = update(ds, new long[] {8191, 8200, f1 | 8192, f1 | 9999}, 50_000);
        ds = ds.deleteRows(new long[] {100, 101, 102, 103, 8190, 8191, 8192, 8193, 8194, 8195});
        try (Dataset table = ds) {
            List<String> before = scan(table);
            assertThat(before).hasSize(2 * rows - 10).contains("8200|58200|u", "18192|58192|u");
            StagedWrite staged = FragmentRewriter.rewrite(
                    store, table.manifest(), List.of(0L, 1L), 7000, allocator, FileWriterOptions.defaults());
            // 19990 live rows: two files of 9995, so the first file ends 5 rows into fragment 1.
            List<Fragment> fresh =
                    ((Operation.Rewrite) staged.operation()).groups().get(0).newFragments();
            assertThat(fresh).extracting(Fragment::physicalRows).containsExactly(9995L, 9995L);
            TableCommitter.commit(
                    store, Transaction.of(table.version(), staged.operation(), Map.of()), CommitOptions.defaults());
            try (Dataset after = table.checkoutLatest()) {
                assertThat(scan(after)).isEqualTo(before);
            }
        }
    }

    @Test
    void unknownFragmentsAreRefusedWithTheVersion() throws Exception {
        try (Dataset ds = create(1, 4, false)) {
            assertThatThrownBy(() -> FragmentRewriter.rewrite(
                            store, ds.manifest(), List.of(0L, 7L), 10, allocator, FileWriterOptions.defaults()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("Version 1 of the table has no fragment 7 to rewrite; plan again on the latest"
                            + " version");
            assertThatThrownBy(() -> FragmentRewriter.rewrite(
                            store, ds.manifest(), List.of(0L, 0L), 10, allocator, FileWriterOptions.defaults()))
                    .hasMessage("Fragment 0 is named twice in one rewrite group [0, 0]");
        }
    }

    private static byte[] inline(SequenceSource s) {
        return ((SequenceSource.Inline) s).bytes();
    }

    /** {@code fragments} x {@code rows}: k = row number, a = 10k, s = "s<k>". */
    private Dataset create(int fragments, int rows, boolean stableRowIds) throws Exception {
        int n = fragments * rows;
        try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
            root.allocateNew();
            for (int k = 0; k < n; k++) {
                ((IntVector) root.getVector("k")).setSafe(k, k);
                ((BigIntVector) root.getVector("a")).setSafe(k, 10L * k);
                ((VarCharVector) root.getVector("s")).setSafe(k, ("s" + k).getBytes());
            }
            root.setRowCount(n);
            Dataset.write(
                    store,
                    allocator,
                    List.of(root),
                    SCHEMA,
                    WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(rows).withStableRowIds(stableRowIds));
        }
        return Dataset.open(store, allocator);
    }

    /** One UPDATE: a = value + (offset), s = "u" at the given addresses. */
    private static Dataset update(Dataset ds, long[] addresses, long value) throws Exception {
        BigIntVector a = new BigIntVector("a", ds.allocator());
        VarCharVector s = new VarCharVector("s", ds.allocator());
        a.allocateNew(addresses.length);
        s.allocateNew();
        for (int i = 0; i < addresses.length; i++) {
            a.set(i, value + (addresses[i] & 0xFFFFFFFFL));
            s.setSafe(i, "u".getBytes());
        }
        a.setValueCount(addresses.length);
        s.setValueCount(addresses.length);
        try (VectorSchemaRoot values = new VectorSchemaRoot(new ArrayList<>(List.of(a, s)))) {
            values.setRowCount(addresses.length);
            return ds.update(addresses, values);
        }
    }

    /** Every row as "k|a|s", sorted by k. */
    private static List<String> scan(Dataset ds) throws Exception {
        List<int[]> keys = new ArrayList<>();
        List<String> rows = new ArrayList<>();
        try (Scanner sc = ds.scan(ScanOptions.all())) {
            while (sc.hasNext()) {
                try (VectorSchemaRoot b = sc.next()) {
                    IntVector k = (IntVector) b.getVector("k");
                    BigIntVector a = (BigIntVector) b.getVector("a");
                    VarCharVector s = (VarCharVector) b.getVector("s");
                    for (int r = 0; r < b.getRowCount(); r++) {
                        keys.add(new int[] {k.get(r), rows.size()});
                        rows.add(k.get(r) + "|" + (a.isNull(r) ? "null" : a.get(r)) + "|"
                                + (s.isNull(r) ? "null" : new String(s.get(r))));
                    }
                }
            }
        }
        keys.sort((x, y) -> Integer.compare(x[0], y[0]));
        return keys.stream().map(x -> rows.get(x[1])).toList();
    }
}
