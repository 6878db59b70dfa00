package dev.lanceflink.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.table.BasePath;
import dev.lanceflink.table.CorruptTableException;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.DeletionFile;
import dev.lanceflink.table.DeletionFileType;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.IndexEntry;
import dev.lanceflink.table.OverlayCoverage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import lance.table.IndexMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.roaringbitmap.RoaringBitmap;

class TransactionCodecTest {

    @ParameterizedTest
    @ValueSource(strings = {"v20_default_table", "v21_ints", "v22_nested", "v21_options"})
    void decodesLanceWrittenTxnFilesAndReencodesIdentically(String fixture) throws Exception {
        Path dir = TxnFixtures.dataset(fixture).resolve("_transactions");
        Path file;
        try (Stream<Path> s = Files.list(dir)) {
            file = s.findFirst().orElseThrow();
        }
        byte[] bytes = Files.readAllBytes(file);
        Transaction t = TransactionCodec.decode(bytes, file.toString());
        assertThat(t.readVersion()).isZero();
        assertThat(file.getFileName().toString()).isEqualTo(t.fileName());
        assertThat(t.operation()).isInstanceOf(Operation.Overwrite.class);
        Operation.Overwrite o = (Operation.Overwrite) t.operation();
        assertThat(o.fragments()).hasSize(1);
        assertThat(o.schema().fields()).isNotEmpty();
        assertThat(TransactionCodec.encode(t)).isEqualTo(bytes);
    }

    static List<Operation> operations() {
        Fragment f = TxnFixtures.fragment("a", 10);
        Fragment del = f.withId(3).withDeletionFile(new DeletionFile(DeletionFileType.ARROW_ARRAY, 4, 99, 2));
        IndexEntry idx = new IndexEntry(IndexMetadata.newBuilder()
                .setName("i")
                .setUuid(lance.table.UUID.newBuilder().setUuid(com.google.protobuf.ByteString.copyFrom(new byte[16])))
                .addFields(0)
                .setDatasetVersion(3)
                .build());
        DataOverlayFile ov = new DataOverlayFile(
                new DataFile("o.lance", new int[] {1}, new int[] {0}, 2, 1, 7),
                OverlayCoverage.PerField.of(List.of(RoaringBitmap.bitmapOf(1, 2))),
                0);
        lance.table.Transaction.UpdateConfig uc = lance.table.Transaction.UpdateConfig.newBuilder()
                .setConfigUpdates(lance.table.Transaction.UpdateMap.newBuilder()
                        .addUpdateEntries(lance.table.Transaction.UpdateMapEntry.newBuilder()
                                .setKey("k")
                                .setValue("v")))
                .build();
        return List.of(
                new Operation.Append(List.of(f)),
                new Operation.Delete(List.of(del), List.of(5L, 6L), "id > 3"),
                new Operation.Overwrite(
                        List.of(f),
                        TxnFixtures.schema(),
                        Map.of("a", "b"),
                        List.of(new BasePath(1, "n", true, "s3://x"))),
                new Operation.CreateIndex(List.of(idx), List.of()),
                new Operation.Rewrite(List.of(new Operation.RewriteGroup(List.of(del), List.of(f)))),
                new Operation.Merge(List.of(del), TxnFixtures.schema()),
                new Operation.Project(TxnFixtures.schema()),
                new Operation.Restore(4),
                new Operation.ReserveFragments(3),
                new Operation.Update(
                        List.of(1L),
                        List.of(del),
                        List.of(f),
                        new int[] {1},
                        new int[] {0},
                        Operation.UpdateMode.REWRITE_COLUMNS,
                        false,
                        false,
                        new byte[0]),
                new Operation.UpdateConfig(Set.of("k"), Set.of(), false, uc.toByteArray()),
                new Operation.DataReplacement(List.of(new Operation.DataReplacementGroup(
                        3, new DataFile("r.lance", new int[] {1}, new int[] {0}, 2, 1, 5)))),
                new Operation.DataOverlay(List.of(new Operation.OverlayGroup(3, List.of(ov)))),
                new Operation.UpdateBases(List.of(new BasePath(2, null, false, "/p"))));
    }

    @ParameterizedTest
    @MethodSource("operations")
    void everyOperationRoundTrips(Operation op) throws Exception {
        Transaction t = new Transaction(
                7, "550e8400-e29b-41d4-a716-446655440000", "tag", Map.of("flink.checkpoint-id", "42"), op);
        byte[] bytes = TransactionCodec.encode(t);
        Transaction back = TransactionCodec.decode(bytes, "mem");
        assertThat(back.readVersion()).isEqualTo(7);
        assertThat(back.uuid()).isEqualTo(t.uuid());
        assertThat(back.tag()).isEqualTo("tag");
        assertThat(back.properties()).containsExactly(Map.entry("flink.checkpoint-id", "42"));
        assertThat(back.operation().getClass()).isEqualTo(op.getClass());
        assertThat(TransactionCodec.encode(back)).isEqualTo(bytes);
        if (!(op instanceof Operation.Rewrite) && !(op instanceof Operation.UpdateConfig)) {
            assertThat(back.operation()).isEqualTo(op);
        }
    }

    @Test
    void operationFieldNumbersMatchLance() {
        Transaction t = new Transaction(0, "u", "", Map.of(), new Operation.DataOverlay(List.of()));
        byte[] b = TransactionCodec.encode(t);
        // uuid (field 2) then data_overlay = 115, wire type 2 -> tag varint (115 << 3 | 2) = 922 = 0x9a 0x07
        assertThat(b).containsSequence((byte) 0x9a, (byte) 0x07);
        Transaction a = new Transaction(0, "u", "", Map.of(), new Operation.Append(List.of()));
        assertThat(TransactionCodec.encode(a)).containsSequence((byte) 0xa2, (byte) 0x06); // 100 << 3 | 2
    }

    @Test
    void missingOperationIsAClearError() {
        byte[] bytes = lance.table.Transaction.newBuilder()
                .setUuid("abc")
                .setReadVersion(3)
                .build()
                .toByteArray();
        assertThatThrownBy(() -> TransactionCodec.decode(bytes, "_transactions/3-abc.txn"))
                .isInstanceOf(CorruptTableException.class)
                .hasMessageContaining("transaction abc in _transactions/3-abc.txn has no operation");
        assertThatThrownBy(() -> TransactionCodec.decode(new byte[] {(byte) 0xff}, "x.txn"))
                .isInstanceOf(CorruptTableException.class)
                .hasMessageContaining("x.txn (1 bytes) is not a valid");
    }
}
