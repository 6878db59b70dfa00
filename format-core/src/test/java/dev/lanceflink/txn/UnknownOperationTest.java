package dev.lanceflink.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.VersionInfo;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.read.Scanner;
import dev.lanceflink.table.CorruptTableException;
import dev.lanceflink.table.FeatureFlags;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.ManifestIO;
import dev.lanceflink.table.ManifestNamingScheme;
import dev.lanceflink.table.VersionResolver;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A version written by a newer Lance whose operation this reader does not know (oneof field 116
 * of {@code Transaction}): the table reads, and whatever must interpret that operation refuses
 * with a message naming the version, never an NPE and never "compatible".
 */
class UnknownOperationTest {
    private static final int FUTURE_OPERATION = 116;
    private static final String FUTURE_UUID = "00000000-0000-4000-8000-000000000116";

    @TempDir
    Path dir;

    private RootAllocator allocator;
    private ObjectStore store;

    @BeforeEach
    void createTableAndAFutureVersion() throws IOException {
        allocator = new RootAllocator();
        store = new LocalObjectStore(dir);
        Schema schema = new Schema(List.of(new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null)));
        try (VectorSchemaRoot batch = VectorSchemaRoot.create(schema, allocator)) {
            BigIntVector id = (BigIntVector) batch.getVector("id");
            for (int i = 0; i < 3; i++) {
                id.setSafe(i, i);
            }
            batch.setRowCount(3);
            Dataset.write(store, allocator, List.of(batch), schema, WriteParams.of(WriteMode.CREATE));
        }
        // Version 2, as a newer Lance would commit it: same content, an operation only it knows,
        // recorded inline only.
        Manifest v1 = ManifestIO.read(store, VersionResolver.latest(store));
        Manifest v2 = v1.toBuilder()
                .version(2)
                .transactionFile("")
                .writerFeatureFlags(v1.writerFeatureFlags() | FeatureFlags.DISABLE_TRANSACTION_FILE)
                .inlineTransaction(futureTransaction(1))
                .build();
        assertThat(store.putIfAbsent(ManifestNamingScheme.V2.path(2), ManifestIO.serialize(v2)))
                .isTrue();
    }

    @AfterEach
    void close() {
        allocator.close();
    }

    /** Transaction bytes of a newer Lance: known header fields, and an operation in field 116. */
    static byte[] futureTransaction(long readVersion) {
        UnknownFieldSet operation = UnknownFieldSet.newBuilder()
                .addField(
                        FUTURE_OPERATION,
                        UnknownFieldSet.Field.newBuilder()
                                .addLengthDelimited(ByteString.copyFrom(new byte[] {0x08, 0x01}))
                                .build())
                .build();
        return lance.table.Transaction.newBuilder()
                .setReadVersion(readVersion)
                .setUuid(FUTURE_UUID)
                .putTransactionProperties("writer", "lance-99")
                .setUnknownFields(operation)
                .build()
                .toByteArray();
    }

    @Test
    void decodingKeepsTheHeaderAndNamesTheUnknownField() throws Exception {
        Transaction t = TransactionCodec.decode(futureTransaction(4), "test bytes");
        assertThat(t.operation()).isEqualTo(new Operation.Unknown(FUTURE_OPERATION));
        assertThat(t.operation().name()).contains("116");
        assertThat(t.uuid()).isEqualTo(FUTURE_UUID);
        assertThat(t.readVersion()).isEqualTo(4);
        assertThat(t.properties()).containsEntry("writer", "lance-99");
        assertThatThrownBy(() -> TransactionCodec.encode(t))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("116");
    }

    @Test
    void aTransactionWithoutAnyOperationIsStillCorrupt() {
        byte[] none = lance.table.Transaction.newBuilder()
                .setReadVersion(1)
                .setUuid(FUTURE_UUID)
                .build()
                .toByteArray();
        assertThatThrownBy(() -> TransactionCodec.decode(none, "test bytes"))
                .isInstanceOf(CorruptTableException.class)
                .hasMessageContaining("no operation");
    }

    @Test
    void theTableReadsAndListsItsVersionsWithoutInterpretingTheOperation() throws Exception {
        try (Dataset ds = Dataset.open(store, allocator)) {
            assertThat(ds.version()).isEqualTo(2);
            long rows = 0;
            try (Scanner s = ds.scan(ScanOptions.all())) {
                while (s.hasNext()) {
                    try (VectorSchemaRoot b = s.next()) {
                        rows += b.getRowCount();
                    }
                }
            }
            assertThat(rows).isEqualTo(3);
            assertThat(ds.versions())
                    .extracting(VersionInfo::operation)
                    .containsExactly("Overwrite", new Operation.Unknown(FUTURE_OPERATION).name());
            assertThat(ds.findCommittedVersion("uuid", FUTURE_UUID, 0)).contains(2L);
        }
    }

    @Test
    void aCommitRacingTheUnknownOperationIsRefusedNamingTheVersion() throws Exception {
        Transaction append = Transaction.of(1, new Operation.Append(List.of(TxnFixtures.fragment("late", 1))));

        assertThatThrownBy(() -> TableCommitter.commit(store, append, CommitOptions.defaults()))
                .isInstanceOfSatisfying(CommitConflictException.class, e -> {
                    assertThat(e.isRetryable()).isFalse();
                    assertThat(e.conflictingVersion()).isEqualTo(2);
                })
                .hasMessageContaining("version 2 of " + store.rootUri() + " was written by a newer Lance")
                .hasMessageContaining("operation field 116")
                .hasMessageContaining("unknown to this reader")
                .hasMessageContaining("upgrade");
        assertThat(VersionResolver.latest(store).version()).isEqualTo(2);
        try (Stream<Path> txns = Files.list(dir.resolve(Transaction.TRANSACTIONS_DIR))) {
            assertThat(txns)
                    .as("only version 1's transaction file; the refused commit's is removed")
                    .hasSize(1);
        }
    }

    @Test
    void theConflictMatrixNeverCallsAnUnknownOperationCompatible() throws Exception {
        Operation unknown = new Operation.Unknown(FUTURE_OPERATION);
        for (Operation mine : List.of(
                new Operation.Append(List.of()),
                new Operation.ReserveFragments(1),
                new Operation.UpdateBases(List.of()),
                new Operation.Overwrite(List.of(), TxnFixtures.schema()))) {
            assertThat(ConflictResolver.check(mine, unknown))
                    .as(mine.name())
                    .isInstanceOf(ConflictOutcome.Incompatible.class);
        }
    }
}
