package dev.lanceflink.txn;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.table.ManifestNamingScheme;
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
        Transaction create = Transaction.of(0, new Operation.Overwrite(List.of(TxnFixtures.fragment("a", 3)),
                TxnFixtures.schema()));
        TableCommitter.commit(store, create, CommitOptions.defaults());
        TableHistory history = new TableHistory(store, 2);

        assertThat(history.transaction(1).map(Transaction::uuid)).contains(create.uuid());
        assertThat(history.version(2)).isEmpty();
        Transaction append = Transaction.of(1, new Operation.Append(List.of(TxnFixtures.fragment("b", 2))),
                Map.of("k", "v"));
        TableCommitter.commit(store, append, CommitOptions.defaults());
        assertThat(history.transaction(2).map(Transaction::uuid)).as("a missing version is read again")
                .contains(append.uuid());
        assertThat(history.latestVersion()).isEqualTo(2);

        // Cached: the committed version is answered without its manifest.
        store.delete(ManifestNamingScheme.V2.path(1));
        assertThat(history.transaction(1).map(Transaction::uuid)).contains(create.uuid());
        // Bounded: with room for two, version 1 is dropped once two others were read after it.
        TableCommitter.commit(store, Transaction.of(2, new Operation.Append(List.of(TxnFixtures.fragment("c", 1)))),
                CommitOptions.defaults());
        history.version(2);
        history.version(3);
        assertThat(history.version(1)).isEmpty();
    }
}
