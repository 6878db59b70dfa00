package dev.lanceflink.txn;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.io.ForwardingObjectStore;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.RangeReader;
import dev.lanceflink.table.ManifestNamingScheme;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TableHistoryTest {
    @TempDir
    Path dir;

    @Test
    void readsEachVersionOnceKeepsTheNewestAndDoesNotRememberMissingOnes() throws Exception {
        LocalObjectStore store = new LocalObjectStore(dir);
        Transaction create =
                Transaction.of(0, new Operation.Overwrite(List.of(TxnFixtures.fragment("a", 3)), TxnFixtures.schema()));
        TableCommitter.commit(store, create, CommitOptions.defaults());
        TableHistory history = new TableHistory(store, 2);

        assertThat(history.transaction(1).map(Transaction::uuid)).contains(create.uuid());
        assertThat(history.version(2)).isEmpty();
        Transaction append =
                Transaction.of(1, new Operation.Append(List.of(TxnFixtures.fragment("b", 2))), Map.of("k", "v"));
        TableCommitter.commit(store, append, CommitOptions.defaults());
        assertThat(history.transaction(2).map(Transaction::uuid))
                .as("a missing version is read again")
                .contains(append.uuid());
        assertThat(history.latestVersion()).isEqualTo(2);

        // Cached: the committed version is answered without its manifest.
        store.delete(ManifestNamingScheme.V2.path(1));
        assertThat(history.transaction(1).map(Transaction::uuid)).contains(create.uuid());
        // Bounded: with room for two, version 1 is dropped once two others were read after it.
        TableCommitter.commit(
                store,
                Transaction.of(2, new Operation.Append(List.of(TxnFixtures.fragment("c", 1)))),
                CommitOptions.defaults());
        history.version(2);
        history.version(3);
        assertThat(history.version(1)).isEmpty();
    }

    @Test
    void theCacheDropsTheLeastRecentlyUsedTransactionsPastItsByteBudgetButKeepsTheNewest() throws Exception {
        LocalObjectStore store = new LocalObjectStore(dir);
        TableCommitter.commit(
                store,
                Transaction.of(0, new Operation.Overwrite(List.of(TxnFixtures.fragment("a", 3)), TxnFixtures.schema())),
                CommitOptions.defaults());
        // Transactions that weigh about 20 KB each (a long property, as a big fragment list would).
        String big = "x".repeat(20_000);
        for (long v = 1; v <= 5; v++) {
            TableCommitter.commit(
                    store,
                    Transaction.of(
                            v, new Operation.Append(List.of(TxnFixtures.fragment("f" + v, 1))), Map.of("k", big)),
                    CommitOptions.defaults());
        }
        TableHistory history = new TableHistory(store, 1000, 50_000);
        for (long v = 1; v <= 6; v++) {
            assertThat(history.version(v)).isPresent();
        }
        assertThat(history.cachedVersions())
                .as("two 20 KB transactions fit in 50 KB, not three")
                .isEqualTo(2);

        TableHistory tiny = new TableHistory(store, 1000, 1);
        assertThat(tiny.version(6)).isPresent();
        assertThat(tiny.cachedVersions())
                .as("the newest stays whatever it weighs")
                .isEqualTo(1);
        assertThat(tiny.version(5)).isPresent();
        assertThat(tiny.cachedVersions()).isEqualTo(1);
        // Evicted, so answered from the store again: gone from the store means gone.
        store.delete(ManifestNamingScheme.V2.path(6));
        assertThat(tiny.version(6)).isEmpty();
    }

    @Test
    void presentAsksTheStoreEachTimeButReadsEachVersionOnce() throws Exception {
        LocalObjectStore files = new LocalObjectStore(dir);
        int[] manifestReads = {0};
        ObjectStore store = new ForwardingObjectStore(files) {
            @Override
            public RangeReader openReader(String path) throws IOException {
                count(path);
                return super.openReader(path);
            }

            @Override
            public RangeReader openReader(String path, long knownSize) throws IOException {
                count(path);
                return super.openReader(path, knownSize);
            }

            @Override
            public byte[] readAll(String path) throws IOException {
                count(path);
                return super.readAll(path);
            }

            private void count(String path) {
                if (path.endsWith(".manifest")) {
                    manifestReads[0]++;
                }
            }
        };
        Transaction create =
                Transaction.of(0, new Operation.Overwrite(List.of(TxnFixtures.fragment("a", 3)), TxnFixtures.schema()));
        TableCommitter.commit(store, create, CommitOptions.defaults());
        Transaction append = Transaction.of(1, new Operation.Append(List.of(TxnFixtures.fragment("b", 2))));
        TableCommitter.commit(store, append, CommitOptions.defaults());
        TableHistory history = new TableHistory(store);

        manifestReads[0] = 0;
        assertThat(history.present(1)
                        .flatMap(TableHistory.Committed::transaction)
                        .map(Transaction::uuid))
                .contains(create.uuid());
        assertThat(history.present(1)).isPresent();
        assertThat(history.version(1)).isPresent();
        assertThat(manifestReads[0]).as("version 1's manifest read once").isEqualTo(1);
        assertThat(history.present(3)).isEmpty();

        // The manifest of a known version is read at its location; presentManifest reads it anew.
        TableHistory.Committed second = history.version(2).orElseThrow();
        assertThat(history.manifest(second).fragments()).hasSize(2);
        assertThat(history.presentManifest(2).orElseThrow().version()).isEqualTo(2);
        assertThat(history.presentManifest(3)).isEmpty();

        // Removed by cleanup: version() still answers from the cache; present() asks and forgets it.
        files.delete(ManifestNamingScheme.V2.path(1));
        assertThat(history.version(1)).isPresent();
        assertThat(history.present(1)).isEmpty();
        assertThat(history.version(1)).as("forgotten once found removed").isEmpty();
        assertThat(history.presentManifest(1)).isEmpty();
    }

    @Test
    void listReadsEachVersionOnceAndLoadReadsTheManifestWithTheKnownTransaction() throws Exception {
        LocalObjectStore files = new LocalObjectStore(dir);
        int[] manifestReads = {0};
        int[] txnReads = {0};
        ObjectStore store = new ForwardingObjectStore(files) {
            @Override
            public RangeReader openReader(String path) throws IOException {
                count(path);
                return super.openReader(path);
            }

            @Override
            public RangeReader openReader(String path, long knownSize) throws IOException {
                count(path);
                return super.openReader(path, knownSize);
            }

            @Override
            public byte[] readAll(String path) throws IOException {
                count(path);
                return super.readAll(path);
            }

            private void count(String path) {
                if (path.endsWith(".manifest")) {
                    manifestReads[0]++;
                } else if (path.endsWith(".txn")) {
                    txnReads[0]++;
                }
            }
        };
        CommitOptions fileOnly = CommitOptions.defaults().withTransactionStorage(true, false);
        TableCommitter.commit(
                store,
                Transaction.of(0, new Operation.Overwrite(List.of(TxnFixtures.fragment("a", 3)), TxnFixtures.schema())),
                fileOnly);
        Transaction append =
                Transaction.of(1, new Operation.Append(List.of(TxnFixtures.fragment("b", 2))), Map.of("k", "v"));
        TableCommitter.commit(store, append, fileOnly);
        TableHistory history = new TableHistory(store);

        manifestReads[0] = 0;
        txnReads[0] = 0;
        List<TableHistory.Committed> listed = history.list();
        assertThat(listed).extracting(TableHistory.Committed::version).containsExactly(1L, 2L);
        assertThat(listed).extracting(TableHistory.Committed::liveRows).containsExactly(3L, 5L);
        assertThat(listed.get(1).transaction().orElseThrow().properties()).containsEntry("k", "v");
        assertThat(listed.get(1).timestamp()).isNotNull();
        assertThat(manifestReads[0]).isEqualTo(2);
        assertThat(txnReads[0]).isEqualTo(2);

        TableCommitter.commit(
                store, Transaction.of(2, new Operation.Append(List.of(TxnFixtures.fragment("c", 1)))), fileOnly);
        manifestReads[0] = 0;
        txnReads[0] = 0;
        assertThat(history.list()).extracting(TableHistory.Committed::version).containsExactly(1L, 2L, 3L);
        assertThat(manifestReads[0]).as("only the new version's manifest").isEqualTo(1);
        assertThat(txnReads[0]).isEqualTo(1);

        manifestReads[0] = 0;
        txnReads[0] = 0;
        TableHistory.Loaded second = history.load(2).orElseThrow();
        assertThat(second.manifest().version()).isEqualTo(2);
        assertThat(second.committed().transaction().map(Transaction::uuid)).contains(append.uuid());
        assertThat(manifestReads[0])
                .as("a walk over manifests reads the manifest")
                .isEqualTo(1);
        assertThat(txnReads[0]).as("but not the transaction it knows").isZero();
        assertThat(history.load(4)).isEmpty();
    }
}
