package dev.lanceflink.it.maintenance;

import dev.lanceflink.io.ObjectInfo;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.DeletionFile;
import dev.lanceflink.table.FileLocation;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.txn.Transaction;
import java.io.IOException;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The files of a table, for cleanup checks: those a version references and those under the
 * table's managed directories, computed here independently of the cleanup code under test.
 */
final class TableFiles {
    private TableFiles() {}

    /**
     * The files (relative to the table root) that {@code m} references under the root: base data
     * files, overlay value files, deletion files and its transaction file. Computed here from the
     * manifest, independently of the cleanup code under test.
     */
    static Set<String> referencedFiles(Manifest m) {
        Set<String> out = new TreeSet<>();
        for (Fragment f : m.fragments()) {
            for (DataFile d : f.files()) {
                out.add(FileLocation.ofDataFile(d, m.basePaths()).path());
            }
            for (DataOverlayFile o : f.overlays()) {
                out.add(FileLocation.ofDataFile(o.dataFile(), m.basePaths()).path());
            }
            DeletionFile del = f.deletionFile();
            if (del != null) {
                out.add(FileLocation.ofDeletionFile(f.id(), del, m.basePaths()).path());
            }
        }
        if (!m.transactionFile().isEmpty()) {
            out.add(Transaction.TRANSACTIONS_DIR + "/" + m.transactionFile());
        }
        return out;
    }

    /** Every file under {@code data/}, {@code _deletions/} and {@code _transactions/}. */
    static Set<String> managedFiles(ObjectStore store) throws IOException {
        Set<String> out = new TreeSet<>();
        for (String dir : List.of("data", DeletionFile.DELETIONS_DIR, Transaction.TRANSACTIONS_DIR)) {
            Iterator<ObjectInfo> it = store.list(dir);
            it.forEachRemaining(o -> out.add(o.path()));
        }
        return out;
    }
}
