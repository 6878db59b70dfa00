package dev.lanceflink.txn;

import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.table.CorruptTableException;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.ManifestIO;
import dev.lanceflink.table.ManifestLocation;
import dev.lanceflink.table.VersionResolver;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Optional;

/** Where committed transactions are stored: the inline manifest blob and {@code _transactions/*.txn}. */
public final class TransactionStore {
    private TransactionStore() {}

    /** Writes the {@code .txn} file of {@code t} and returns its file name (relative to {@code _transactions/}). */
    public static String writeFile(ObjectStore store, Transaction t) throws IOException {
        return writeFile(store, t, t.fileName());
    }

    /**
     * Writes the {@code .txn} file of {@code t} under {@code fileName} (relative to
     * {@code _transactions/}) and returns that name: for a commit whose usual file name is taken by
     * an earlier version of its transaction that must stay as it is (a manifest that may still be
     * published names it). A manifest names its transaction file, so any name reads back.
     */
    public static String writeFile(ObjectStore store, Transaction t, String fileName) throws IOException {
        return writeFile(store, TransactionCodec.encode(t), fileName);
    }

    /** As {@link #writeFile(ObjectStore, Transaction, String)}, for a transaction already encoded. */
    static String writeFile(ObjectStore store, byte[] encoded, String fileName) throws IOException {
        try (OutputStream out = store.create(Transaction.TRANSACTIONS_DIR + "/" + fileName)) {
            out.write(encoded);
        }
        return fileName;
    }

    /**
     * The transaction that produced {@code manifest}: the inline copy if present (Lance prefers it),
     * else the {@code .txn} file it names, else empty.
     */
    public static Optional<Transaction> read(ObjectStore store, Manifest manifest) throws IOException {
        return readEncoded(store, manifest).transaction();
    }

    /**
     * A transaction as read, with the size of its encoded form: what a cache of transactions
     * weighs them by (a transaction that lists updated fragments grows with their overlays).
     */
    public record Read(Optional<Transaction> transaction, int encodedBytes) {}

    /** As {@link #read}, with the encoded size of what was read. */
    public static Read readEncoded(ObjectStore store, Manifest manifest) throws IOException {
        String where = "version " + manifest.version() + " of " + store.rootUri();
        Optional<byte[]> inline = manifest.inlineTransaction();
        if (inline.isPresent()) {
            return new Read(
                    Optional.of(TransactionCodec.decode(inline.get(), "the inline transaction of " + where)),
                    inline.get().length);
        }
        if (manifest.transactionFile().isEmpty()) {
            return new Read(Optional.empty(), 0);
        }
        String path = Transaction.TRANSACTIONS_DIR + "/" + manifest.transactionFile();
        try {
            byte[] encoded = store.readAll(path);
            return new Read(
                    Optional.of(TransactionCodec.decode(encoded, store.rootUri() + "/" + path)), encoded.length);
        } catch (FileNotFoundException e) {
            throw new CorruptTableException(
                    "The manifest of " + where + " names transaction file " + path + ", which does not exist", e);
        }
    }

    /**
     * The transaction of a committed version.
     *
     * @throws CorruptTableException if the version recorded no transaction (then no concurrent
     *     writer can check its commit against it)
     */
    public static Transaction readForVersion(ObjectStore store, long version) throws IOException {
        ManifestLocation loc = VersionResolver.version(store, version);
        Manifest m = ManifestIO.read(store, loc);
        return read(store, m)
                .orElseThrow(() -> new CorruptTableException("Version " + version + " of "
                        + store.rootUri() + " records no transaction (no inline transaction, no transaction file), so"
                        + " a concurrent commit cannot be checked for conflicts against it"));
    }
}
