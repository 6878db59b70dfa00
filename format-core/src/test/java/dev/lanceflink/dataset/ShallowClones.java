package dev.lanceflink.dataset;

import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.table.BasePath;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.DeletionFile;
import dev.lanceflink.table.FeatureFlags;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.ManifestIO;
import dev.lanceflink.table.ManifestLocation;
import dev.lanceflink.table.VersionResolver;
import dev.lanceflink.txn.Operation;
import dev.lanceflink.txn.Transaction;
import dev.lanceflink.txn.TransactionCodec;
import dev.lanceflink.txn.TransactionStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * Makes shallow clones the way pylance 14's {@code LanceDataset.shallow_clone(target, version)}
 * lays them out: the clone's first manifest has the source version's number and content, every
 * data, overlay and deletion file carries {@code base_id} 0, base path 0 is the source's root (a
 * dataset root, no name), feature flag 16 is set, and the transaction is a shallow {@code Clone}.
 * No file is copied.
 */
final class ShallowClones {
    static final int SOURCE_BASE_ID = 0;

    private ShallowClones() {}

    /** Clones {@code version} of the table at {@code sourceUri} (read through {@code source}) into {@code target}. */
    static Manifest clone(ObjectStore source, String sourceUri, long version, ObjectStore target) throws IOException {
        ManifestLocation loc = VersionResolver.version(source, version);
        Manifest m = ManifestIO.read(source, loc);
        List<Fragment> fragments = new ArrayList<>();
        for (Fragment f : m.fragments()) {
            fragments.add(inSourceBase(f));
        }
        byte[] clone = lance.table.Transaction.Clone.newBuilder()
                .setIsShallow(true)
                .setRefVersion(version)
                .setRefPath(sourceUri)
                .build()
                .toByteArray();
        Transaction t = Transaction.of(version, new Operation.Clone(true, clone));
        String txnFile = TransactionStore.writeFile(target, t);
        Manifest cloned = m.toBuilder()
                .fragments(fragments)
                .basePaths(List.of(new BasePath(SOURCE_BASE_ID, null, true, sourceUri)))
                .readerFeatureFlags(m.readerFeatureFlags() | FeatureFlags.BASE_PATHS)
                .writerFeatureFlags(m.writerFeatureFlags() | FeatureFlags.BASE_PATHS)
                .transactionFile(txnFile)
                .inlineTransaction(TransactionCodec.encode(t))
                .build();
        if (!target.putIfAbsent(loc.scheme().path(version), ManifestIO.serialize(cloned))) {
            throw new IllegalStateException("the clone target " + target.rootUri() + " is not empty");
        }
        return cloned;
    }

    private static Fragment inSourceBase(Fragment f) {
        List<DataFile> files = new ArrayList<>();
        for (DataFile d : f.files()) {
            files.add(inSourceBase(d));
        }
        List<DataOverlayFile> overlays = new ArrayList<>();
        for (DataOverlayFile o : f.overlays()) {
            overlays.add(new DataOverlayFile(inSourceBase(o.dataFile()), o.coverage(), o.committedVersion()));
        }
        DeletionFile del = f.deletionFile();
        return f.withFiles(files)
                .withOverlays(overlays)
                .withDeletionFile(
                        del == null
                                ? null
                                : new DeletionFile(
                                        del.type(),
                                        del.readVersion(),
                                        del.id(),
                                        del.numDeletedRows(),
                                        OptionalInt.of(SOURCE_BASE_ID)));
    }

    static DataFile inSourceBase(DataFile d) {
        return new DataFile(
                d.path(),
                d.fields(),
                d.columnIndices(),
                d.fileMajorVersion(),
                d.fileMinorVersion(),
                d.fileSizeBytes(),
                OptionalInt.of(SOURCE_BASE_ID));
    }
}
