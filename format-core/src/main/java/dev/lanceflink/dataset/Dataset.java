package dev.lanceflink.dataset;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.deletion.DeletionStager;
import dev.lanceflink.deletion.DeletionVector;
import dev.lanceflink.expr.Expr;
import dev.lanceflink.expr.ExprParser;
import dev.lanceflink.expr.ExprPrinter;
import dev.lanceflink.expr.PredicateEvaluator;
import dev.lanceflink.file.FileVersion;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.ObjectStores;
import dev.lanceflink.overlay.OverlayCommits;
import dev.lanceflink.overlay.StagedWrite;
import dev.lanceflink.read.FragmentReader;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.read.Scanner;
import dev.lanceflink.schema.LanceField;
import dev.lanceflink.schema.LanceSchema;
import dev.lanceflink.table.DataStorageFormat;
import dev.lanceflink.table.FeatureFlags;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.ManifestIO;
import dev.lanceflink.table.ManifestLocation;
import dev.lanceflink.table.RowAddress;
import dev.lanceflink.table.TableFiles;
import dev.lanceflink.table.VersionNotFoundException;
import dev.lanceflink.table.VersionResolver;
import dev.lanceflink.txn.CommitConflictException;
import dev.lanceflink.txn.CommitOptions;
import dev.lanceflink.txn.Operation;
import dev.lanceflink.txn.TableCommitter;
import dev.lanceflink.txn.TableHistory;
import dev.lanceflink.txn.Transaction;
import dev.lanceflink.txn.TransactionStore;
import dev.lanceflink.update.OverlayUpdate;
import dev.lanceflink.write.FragmentWriter;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.roaringbitmap.RoaringBitmap;

/**
 * A Lance table at one version: open it, scan it, take rows, and commit appends, deletes and
 * overwrites. Every write is one transaction committed with optimistic concurrency
 * ({@link TableCommitter}); a write that fails commits nothing. Writes return the dataset at the
 * new version; this object stays at its own version.
 */
public final class Dataset implements AutoCloseable {
    private final ObjectStore store;
    private final boolean ownsStore;
    private final Manifest manifest;
    /** Reads this version's files; owns the stores it opens for base paths (closed with this object). */
    private final TableFiles files;

    private final BufferAllocator allocator;
    private final boolean ownsAllocator;
    /** The versions {@link #findCommittedVersion} and {@link #versions} read, kept for the next call. */
    private TableHistory history;

    private Dataset(
            ObjectStore store, boolean ownsStore, Manifest manifest, BufferAllocator allocator, boolean ownsAllocator) {
        this.store = store;
        this.ownsStore = ownsStore;
        this.manifest = manifest;
        this.files = TableFiles.of(store, manifest);
        this.allocator = allocator;
        this.ownsAllocator = ownsAllocator;
    }

    // ---- opening ------------------------------------------------------------------------------

    /** Opens the latest version of the table at {@code uri}. */
    public static Dataset open(String uri, Map<String, String> storageOptions) throws IOException {
        ObjectStore store = ObjectStores.open(uri, storageOptions);
        try {
            return new Dataset(store, true, readable(store, latest(store)), new RootAllocator(), true);
        } catch (IOException | RuntimeException e) {
            store.close();
            throw e;
        }
    }

    /** Opens the latest version of the table in {@code store}; the store stays the caller's. */
    public static Dataset open(ObjectStore store, BufferAllocator allocator) throws IOException {
        return new Dataset(store, false, readable(store, latest(store)), allocator, false);
    }

    private static ManifestLocation latest(ObjectStore store) throws IOException {
        try {
            return VersionResolver.latest(store);
        } catch (VersionNotFoundException e) {
            throw new NotADatasetException(
                    "'" + store.rootUri() + "' is not a Lance dataset: it has no"
                            + " _versions/*.manifest. Check the path, or create the table first",
                    e);
        }
    }

    /** The same table at another version. */
    public Dataset checkoutVersion(long version) throws IOException {
        return sibling(readable(store, VersionResolver.version(store, version)));
    }

    /** The same table as it was at {@code instant} (the newest version committed at or before it). */
    public Dataset checkoutAsOf(Instant instant) throws IOException {
        return sibling(readable(store, VersionResolver.asOf(store, instant)));
    }

    /** The newest version of the same table. */
    public Dataset checkoutLatest() throws IOException {
        return sibling(readable(store, latest(store)));
    }

    /** Reads a manifest and refuses it if it needs a reader feature this library lacks. */
    private static Manifest readable(ObjectStore store, ManifestLocation location) throws IOException {
        Manifest m = ManifestIO.read(store, location);
        FeatureFlags.checkReadable(m.readerFeatureFlags(), store.rootUri() + "/" + location.path());
        return m;
    }

    private Dataset sibling(Manifest m) {
        // Shares store and allocator; only the first Dataset (the owner) closes them.
        return new Dataset(store, false, m, allocator, false);
    }

    // ---- metadata -----------------------------------------------------------------------------

    public String uri() {
        return store.rootUri();
    }

    public ObjectStore store() {
        return store;
    }

    /**
     * Where this version's data, overlay and deletion files are read from: the table root, or the
     * base paths its manifest names (e.g. a shallow clone's source). Closed with this dataset.
     */
    public TableFiles files() {
        return files;
    }

    public BufferAllocator allocator() {
        return allocator;
    }

    public long version() {
        return manifest.version();
    }

    public Manifest manifest() {
        return manifest;
    }

    public LanceSchema schema() {
        return manifest.schema();
    }

    public List<Fragment> fragments() {
        return manifest.fragments();
    }

    public long countRows() {
        return manifest.countLiveRows();
    }

    /**
     * Every version, oldest first, with its operation and transaction properties. Read through
     * this dataset's {@link TableHistory}: asked again, only versions committed since are read.
     */
    public synchronized List<VersionInfo> versions() throws IOException {
        List<VersionInfo> out = new ArrayList<>();
        for (TableHistory.Committed c : history().list()) {
            Optional<Transaction> t = c.transaction();
            out.add(new VersionInfo(
                    c.version(),
                    c.timestamp(),
                    t.map(x -> x.operation().name()).orElse(""),
                    c.liveRows(),
                    t.map(Transaction::properties).orElse(Map.of())));
        }
        return out;
    }

    /** The history of this table, created on first use; callers hold this dataset's lock. */
    private TableHistory history() {
        if (history == null) {
            history = new TableHistory(store);
        }
        return history;
    }

    /**
     * The first version after {@code afterVersion} (up to the latest) whose transaction has
     * {@code value} under {@code propertyKey}, or "uuid" as the key to match the transaction uuid.
     * This answers "did my commit land?" after a {@link dev.lanceflink.txn.CommitOutcomeUnknownException}
     * or a lost response: tag each logical change with a unique property before committing it.
     */
    public synchronized Optional<Long> findCommittedVersion(String propertyKey, String value, long afterVersion)
            throws IOException {
        long latest = VersionResolver.latest(store).version();
        for (long v = afterVersion + 1; v <= latest; v++) {
            // Asked each time: a version removed by cleanup is skipped, as on the first call.
            Optional<TableHistory.Committed> c = history().present(v);
            if (c.isEmpty()) {
                continue; // removed by cleanup
            }
            Optional<Transaction> t = c.get().transaction();
            if (t.isPresent()
                    && (propertyKey.equals("uuid")
                            ? value.equals(t.get().uuid())
                            : value.equals(t.get().properties().get(propertyKey)))) {
                return Optional.of(v);
            }
        }
        return Optional.empty();
    }

    /** The transaction that produced this version, if recorded. */
    public Optional<Transaction> transaction() throws IOException {
        return TransactionStore.read(store, manifest);
    }

    // ---- reading ------------------------------------------------------------------------------

    /** A scan of this version; close it, and every batch it returns. */
    public Scanner scan(ScanOptions options) {
        return new Scanner(files, schema(), fragments(), options, allocator);
    }

    /**
     * Rows at the given row addresses ({@code fragment_id << 32 | offset}), in the order asked,
     * with the given top-level columns (null = all). A deleted or missing address is an error.
     */
    public VectorSchemaRoot take(long[] rowAddresses, List<String> columns) throws IOException {
        List<LanceField> fields = new ArrayList<>();
        for (String c : columns == null
                ? schema().fields().stream().map(LanceField::name).toList()
                : columns) {
            fields.add(schema().fieldByName(c)
                    .orElseThrow(() -> new IllegalArgumentException("Column '" + c + "' does not exist in " + uri())));
        }
        // Read each fragment's rows once, in ascending offset order, then place them as asked.
        long[] sorted = Arrays.stream(rowAddresses).distinct().sorted().toArray();
        Map<Long, Integer> position = new HashMap<>();
        for (int i = 0; i < sorted.length; i++) {
            position.put(sorted[i], i);
        }
        List<FieldVector> gathered = new ArrayList<>();
        try {
            for (LanceField f : fields) {
                FieldVector all = f.toArrow().createVector(allocator);
                all.allocateNew();
                gathered.add(all);
            }
            int filled = 0;
            int i = 0;
            while (i < sorted.length) {
                long fragmentId = RowAddress.fragmentId(sorted[i]);
                int j = i;
                while (j < sorted.length && RowAddress.fragmentId(sorted[j]) == fragmentId) {
                    j++;
                }
                Fragment fragment = manifest.fragment(fragmentId)
                        .orElseThrow(() -> new IllegalArgumentException("Row address " + sorted[0] + " names fragment "
                                + fragmentId + ", which version " + version() + " of " + uri() + " does not have"));
                long[] offsets = new long[j - i];
                for (int k = i; k < j; k++) {
                    offsets[k - i] = RowAddress.offset(sorted[k]);
                    if (offsets[k - i] >= fragment.physicalRows()) {
                        throw new IllegalArgumentException("Row address " + sorted[k] + " is past the end of fragment "
                                + fragmentId + " (" + fragment.physicalRows() + " rows)");
                    }
                }
                try (FragmentReader reader = new FragmentReader(files, fragment, allocator)) {
                    DeletionVector dv = reader.deletions();
                    for (long o : offsets) {
                        if (dv.contains((int) o)) {
                            throw new IllegalArgumentException("Row address " + RowAddress.of(fragmentId, o)
                                    + " is a deleted row at version " + version() + " of " + uri());
                        }
                    }
                    for (int c = 0; c < fields.size(); c++) {
                        try (FieldVector part = reader.read(fields.get(c), offsets)) {
                            FieldVector all = gathered.get(c);
                            for (int r = 0; r < offsets.length; r++) {
                                all.copyFromSafe(r, filled + r, part);
                            }
                        }
                    }
                }
                filled += offsets.length;
                i = j;
            }
            List<FieldVector> out = new ArrayList<>();
            for (FieldVector all : gathered) {
                all.setValueCount(filled);
                FieldVector ordered = all.getField().createVector(allocator);
                ordered.allocateNew();
                for (int r = 0; r < rowAddresses.length; r++) {
                    ordered.copyFromSafe(position.get(rowAddresses[r]), r, all);
                }
                ordered.setValueCount(rowAddresses.length);
                out.add(ordered);
            }
            VectorSchemaRoot root = new VectorSchemaRoot(out);
            root.setRowCount(rowAddresses.length);
            return root;
        } finally {
            gathered.forEach(FieldVector::close);
        }
    }

    // ---- writing ------------------------------------------------------------------------------

    /**
     * Writes {@code batches} to the table at {@code uri} (created if missing) and returns the new
     * version. All batches must have the same schema; the first batch's schema defines a new
     * table's schema.
     */
    public static Dataset write(
            String uri,
            Map<String, String> storageOptions,
            Iterable<VectorSchemaRoot> batches,
            Schema arrowSchema,
            WriteParams params)
            throws IOException {
        ObjectStore store = ObjectStores.open(uri, storageOptions);
        BufferAllocator allocator = new RootAllocator();
        try {
            Manifest m = write(store, allocator, batches, arrowSchema, params);
            return new Dataset(store, true, m, allocator, true);
        } catch (IOException | RuntimeException e) {
            allocator.close();
            store.close();
            throw e;
        }
    }

    /** As {@link #write(String, Map, Iterable, Schema, WriteParams)} on an open store. */
    public static Manifest write(
            ObjectStore store,
            BufferAllocator allocator,
            Iterable<VectorSchemaRoot> batches,
            Schema arrowSchema,
            WriteParams params)
            throws IOException {
        requireNonNull(params, "params is null");
        Optional<Manifest> existing = readLatestIfAny(store);
        if (existing.isPresent() && params.mode() == WriteMode.CREATE) {
            throw new DatasetExistsException(
                    "Cannot create a table at " + store.rootUri() + ": version "
                            + existing.get().version() + " already exists. Use APPEND or OVERWRITE",
                    null);
        }
        boolean newSchema = existing.isEmpty() || params.mode() == WriteMode.OVERWRITE;
        LanceSchema schema = newSchema
                ? LanceSchema.fromArrow(arrowSchema, 0)
                : existing.get().schema();
        if (!newSchema) {
            WriteSchemaCheck.checkSchema(schema, arrowSchema, store.rootUri());
        }
        FileVersion version = existing.isPresent() && params.mode() != WriteMode.OVERWRITE
                ? FileVersion.parse(existing.get().dataFormat().version())
                : params.fileVersion() != null
                        ? params.fileVersion()
                        : existing.map(m -> FileVersion.parse(m.dataFormat().version()))
                                .orElse(FileVersion.DEFAULT_FOR_NEW_TABLES);
        List<Fragment> fragments;
        try (FragmentWriter writer = new FragmentWriter(
                store, schema, version, params.maxRowsPerFile(), allocator, params.fileWriterOptions())) {
            for (VectorSchemaRoot batch : batches) {
                WriteSchemaCheck.checkSchema(schema, batch.getSchema(), store.rootUri());
                WriteSchemaCheck.checkNulls(schema, batch, store.rootUri());
                writer.write(batch);
            }
            fragments = writer.finish();
        }
        long readVersion = existing.map(Manifest::version).orElse(0L);
        Operation op = existing.isPresent() && params.mode() == WriteMode.APPEND
                ? new Operation.Append(fragments)
                : new Operation.Overwrite(fragments, schema);
        CommitOptions commit = params.commitOptions();
        if (existing.isEmpty() || params.mode() == WriteMode.OVERWRITE) {
            // An overwrite records the data format of the files it writes (a 2.0 table stays 2.0
            // unless the caller asked for another version) and keeps the table's row-id mode.
            commit = commit.withNewTable(
                    commit.namingScheme(),
                    DataStorageFormat.lance(version.label()),
                    existing.map(Manifest::usesStableRowIds).orElse(params.enableStableRowIds()));
        }
        try {
            return TableCommitter.commit(
                    store, Transaction.of(readVersion, op, params.transactionProperties()), commit);
        } catch (CommitConflictException e) {
            // Version 1 is published put-if-absent and an Overwrite read at version 0 conflicts with
            // any version 1, so a concurrent creator's table is never replaced. Say so by type: a
            // caller that wanted the table to exist (with its schema) can then use the other's.
            Optional<Manifest> now = params.mode() == WriteMode.CREATE ? readLatestIfAny(store) : Optional.empty();
            if (now.isPresent()) {
                throw new DatasetExistsException(
                        "Cannot create a table at " + store.rootUri() + ": a concurrent"
                                + " writer created it first (version "
                                + now.get().version() + " exists now)",
                        e);
            }
            throw e;
        }
    }

    private static Optional<Manifest> readLatestIfAny(ObjectStore store) throws IOException {
        try {
            return Optional.of(ManifestIO.read(store, VersionResolver.latest(store)));
        } catch (VersionNotFoundException e) {
            return Optional.empty();
        }
    }

    /** Appends rows to this table; returns the new version. */
    public Dataset append(Iterable<VectorSchemaRoot> batches, WriteParams params) throws IOException {
        WriteParams p = new WriteParams(
                WriteMode.APPEND,
                params.maxRowsPerFile(),
                params.fileVersion(),
                params.enableStableRowIds(),
                params.transactionProperties(),
                params.fileWriterOptions(),
                params.commitOptions());
        return sibling(write(store, allocator, batches, schema().toArrow(), p));
    }

    /** Deletes the rows matching a SQL filter; returns the new version (this one if nothing matched). */
    public Dataset delete(String filter) throws IOException {
        return delete(filter, Map.of(), CommitOptions.defaults());
    }

    public Dataset delete(String filter, Map<String, String> properties, CommitOptions commitOptions)
            throws IOException {
        return delete(ExprParser.parse(filter), filter, properties, commitOptions);
    }

    /**
     * Deletes the rows matching {@code filter} (built by an engine, with typed comparisons);
     * the transaction records it as text ({@link ExprPrinter}). Returns the new version (this
     * one if nothing matched).
     */
    public Dataset delete(Expr filter, Map<String, String> properties, CommitOptions commitOptions) throws IOException {
        return delete(filter, ExprPrinter.sql(filter), properties, commitOptions);
    }

    private Dataset delete(Expr parsed, String filter, Map<String, String> properties, CommitOptions commitOptions)
            throws IOException {
        Map<Long, RoaringBitmap> matches = new HashMap<>();
        ScanOptions scan = new ScanOptions(PredicateEvaluator.referencedColumns(parsed), parsed, -1, true, 8192);
        try (Scanner s = scan(scan)) {
            while (s.hasNext()) {
                try (VectorSchemaRoot b = s.next()) {
                    UInt8Vector addr = (UInt8Vector) b.getVector(ScanOptions.ROW_ADDRESS);
                    for (int r = 0; r < b.getRowCount(); r++) {
                        long a = addr.get(r);
                        matches.computeIfAbsent(RowAddress.fragmentId(a), k -> new RoaringBitmap())
                                .add(RowAddress.offsetBits(a));
                    }
                }
            }
        }
        return deleteOffsets(matches, filter, properties, commitOptions);
    }

    /**
     * Sets new values for some columns of the rows at {@code rowAddresses} as one commit of data
     * overlay files (row addresses stay); returns the new version (this one if there is nothing to
     * update). See {@link OverlayUpdate#stage} for the rules.
     */
    public Dataset update(long[] rowAddresses, VectorSchemaRoot values) throws IOException {
        return update(rowAddresses, values, OverlayUpdate.Mode.OVERLAY, Map.of(), CommitOptions.defaults());
    }

    /**
     * As {@link #update(long[], VectorSchemaRoot)}; {@code mode} REWRITE_ROWS stores the update
     * the way released Lance builds can read (rows move to new fragments).
     */
    public Dataset update(
            long[] rowAddresses,
            VectorSchemaRoot values,
            OverlayUpdate.Mode mode,
            Map<String, String> properties,
            CommitOptions commitOptions)
            throws IOException {
        if (rowAddresses.length == 0) {
            return this;
        }
        StagedWrite staged = OverlayUpdate.stage(
                store, manifest, rowAddresses, values, mode, allocator, FileWriterOptions.defaults());
        try {
            return sibling(OverlayCommits.commit(store, version(), staged, properties, commitOptions));
        } catch (CommitConflictException e) {
            staged.discard(store); // certainly not committed; other failures may have landed, keep the files
            throw e;
        }
    }

    /** Deletes rows by row address; returns the new version. */
    public Dataset deleteRows(long[] rowAddresses) throws IOException {
        return deleteRows(rowAddresses, Map.of(), CommitOptions.defaults());
    }

    /** As {@link #deleteRows(long[])}, with transaction properties and commit options. */
    public Dataset deleteRows(long[] rowAddresses, Map<String, String> properties, CommitOptions commitOptions)
            throws IOException {
        Map<Long, RoaringBitmap> byFragment = new HashMap<>();
        for (long a : rowAddresses) {
            long fragmentId = RowAddress.fragmentId(a);
            Fragment f = manifest.fragment(fragmentId)
                    .orElseThrow(() -> new IllegalArgumentException("Row address " + a + " names fragment " + fragmentId
                            + ", which version " + version() + " of " + uri() + " does not have"));
            if (RowAddress.offset(a) >= f.physicalRows()) {
                throw new IllegalArgumentException("Row address " + a + " is past the end of fragment " + fragmentId
                        + " (" + f.physicalRows() + " rows)");
            }
            byFragment.computeIfAbsent(fragmentId, k -> new RoaringBitmap()).add(RowAddress.offsetBits(a));
        }
        return deleteOffsets(byFragment, "", properties, commitOptions);
    }

    private Dataset deleteOffsets(
            Map<Long, RoaringBitmap> byFragment,
            String predicate,
            Map<String, String> properties,
            CommitOptions commitOptions)
            throws IOException {
        if (byFragment.isEmpty()) {
            return this;
        }
        Map<Long, Fragment> fragments = new HashMap<>();
        for (Fragment f : manifest.fragments()) {
            fragments.put(f.id(), f);
        }
        DeletionStager.Staged staged = DeletionStager.stage(store, files, fragments, version(), byFragment);
        List<Fragment> updated = new ArrayList<>(staged.updated().values());
        List<Long> removed = staged.removed();
        List<String> written = new ArrayList<>(staged.writtenPaths());
        try {
            if (updated.isEmpty() && removed.isEmpty()) {
                return this;
            }
            Transaction t = Transaction.of(version(), new Operation.Delete(updated, removed, predicate), properties);
            try {
                return sibling(TableCommitter.commit(store, t, commitOptions));
            } catch (CommitConflictException conflict) {
                throw conflict; // certainly not published: the files below are removed
            } catch (IOException | RuntimeException unknown) {
                // The commit may have been published (e.g. CommitOutcomeUnknownException): its
                // deletion files must stay, or that version would reference missing files.
                written.clear();
                throw unknown;
            }
        } catch (IOException | RuntimeException ex) {
            for (String p : written) {
                try {
                    store.delete(p);
                } catch (IOException ignored) {
                    // unreferenced; cleanup removes it
                }
            }
            throw ex;
        }
    }

    @Override
    public void close() throws IOException {
        files.close();
        if (ownsAllocator) {
            allocator.close();
        }
        if (ownsStore) {
            store.close();
        }
    }
}
