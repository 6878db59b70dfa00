package dev.lanceflink.flink.sink.upsert;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.committer.core.PendingFiles;
import dev.lanceflink.committer.core.RowTarget;
import dev.lanceflink.committer.core.TableLocation;
import dev.lanceflink.committer.core.TargetedDeletion;
import dev.lanceflink.committer.core.TargetedOverlay;
import dev.lanceflink.committer.core.WrittenChanges;
import dev.lanceflink.file.FileVersion;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.flink.sink.RewriteRowsCheck;
import dev.lanceflink.flink.sink.writer.LatestTableVersion;
import dev.lanceflink.flink.sink.writer.RowDataToArrow;
import dev.lanceflink.flink.types.LanceTypeMapping;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.overlay.OverlayStager;
import dev.lanceflink.schema.ColumnSet;
import dev.lanceflink.schema.LanceField;
import dev.lanceflink.schema.LanceSchema;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.ManifestIO;
import dev.lanceflink.table.RowAddress;
import dev.lanceflink.table.TableSnapshot;
import dev.lanceflink.table.VersionResolver;
import dev.lanceflink.write.FragmentWriter;
import java.io.IOException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.SinkWriterMetricGroup;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.utils.ProjectedRowData;
import org.roaringbitmap.RoaringBitmap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The writer of the upsert and row-address sinks: at each checkpoint it turns the
 * {@link LocatedChange}s it received into new fragments (inserts, at the file and offset the
 * resolver chose), data overlay files (one per target fragment, holding only the updated cells)
 * and deletion offsets (the committer writes the deletion files). It commits nothing.
 *
 * <p>An overlay is dense when every update of the fragment sets the same columns, otherwise
 * sparse: each column covers just the offsets whose update sets it.
 *
 * <p>In update mode rewrite-rows no overlay is written: a {@link LocatedChange.Kind#MOVE} deletes
 * the existing row and appends it again like an insert, at the location the resolver chose or,
 * for rows no key map tracks (SQL UPDATE), at the end of this writer's own new file. A moved row
 * whose record lacks columns waits, with the rows after it, until its batch is encoded, and gets
 * the existing row's values then ({@link MovedRowValues}), read for the whole batch at once.
 *
 * <p>Metrics (group {@code lance}): {@code rowsWritten}, {@code cellsWritten},
 * {@code rowsDeleted}, {@code filesWritten}, {@code overlayFilesWritten}, {@code bytesWritten},
 * {@code lastFlushDurationMs}.
 */
public final class LanceChangeWriter implements CommittingSinkWriter<LocatedChange, WrittenChanges> {
    private static final Logger LOG = LoggerFactory.getLogger(LanceChangeWriter.class);

    private final TableLocation table;
    private final String fileTag;
    private final int batchRows;
    /** The version the changes were computed from (a row-level statement's scan), or 0. */
    private final long readVersion;
    /** Rows per data file of rows this writer places itself (moves of rows no key map tracks). */
    private final long rowsPerFile;

    private final boolean rewriteRows;
    private final ObjectStore store;
    private final BufferAllocator allocator;
    private final LanceSchema schema;
    private final FileVersion fileVersion;
    private final RowDataToArrow inserts;
    /** Top-level struct (ROW) columns: overlays cannot replace them. */
    private final ColumnSet structColumns;
    /** Updates per target: fileId (0 = committed) and fragment id or file id. */
    private final Map<RowTarget, OverlayBuffer> updates = new LinkedHashMap<>();

    private final Map<RowTarget, RoaringBitmap> deletions = new LinkedHashMap<>();
    private final List<Fragment> newFragments = new ArrayList<>();
    /**
     * Rows of the open file not yet in {@link #inserts}, in file order: from the first move that
     * lacks columns on, until the batch is encoded and their missing values read.
     */
    private final List<LocatedChange> awaitingValues = new ArrayList<>();

    private final MovedRowValues movedRowValues;
    private final Counter rowsWritten;
    private final Counter cellsWritten;
    private final Counter rowsDeleted;
    private final Counter filesWritten;
    private final Counter overlayFilesWritten;
    private final Counter bytesWritten;
    private volatile long lastFlushDurationMs;
    private FragmentWriter file;
    private long fileId;
    private long nextOffset;
    private long checkpoint;
    /** The file and next offset for rows this writer places itself (0: none open). */
    private long ownFileId;

    private long ownFileRows;
    private final Random random = new SecureRandom();

    /**
     * @param fileTag identifies the writer in file names (job, subtask, attempt), after the file id
     */
    public LanceChangeWriter(TableLocation table, String fileTag, int batchRows, SinkWriterMetricGroup metrics)
            throws IOException {
        this(table, fileTag, batchRows, 0, Long.MAX_VALUE, false, null, metrics);
    }

    /** Writes by the latest version's schema (no pinned snapshot). */
    public LanceChangeWriter(
            TableLocation table,
            String fileTag,
            int batchRows,
            long readVersion,
            long rowsPerFile,
            boolean rewriteRows,
            SinkWriterMetricGroup metrics)
            throws IOException {
        this(table, fileTag, batchRows, readVersion, rowsPerFile, rewriteRows, null, metrics);
    }

    /**
     * @param readVersion the version the changes' row addresses come from (an UPDATE's scan), or
     *     0 for the latest: overlays are then written against the fragments as that version has
     *     them, so that a fragment another writer compacted away meanwhile reaches the committer
     *     (which fails the statement) instead of being taken for deleted and its updates dropped
     * @param rowsPerFile rows per new data file of the rows this writer places itself (moves of
     *     rows found by address)
     * @param rewriteRows the changes come in update mode rewrite-rows (moves instead of updates):
     *     refused for tables with stable row ids, whose moved rows would have to keep their ids
     * @param snapshot the statement's pinned view of the table (of version {@code readVersion}):
     *     changes are written by its schema and field ids, as the statement was planned; null to
     *     write by the latest version's
     */
    public LanceChangeWriter(
            TableLocation table,
            String fileTag,
            int batchRows,
            long readVersion,
            long rowsPerFile,
            boolean rewriteRows,
            TableSnapshot snapshot,
            SinkWriterMetricGroup metrics)
            throws IOException {
        this.table = requireNonNull(table, "table is null");
        this.fileTag = requireNonNull(fileTag, "fileTag is null");
        this.batchRows = batchRows;
        this.readVersion = readVersion;
        this.rowsPerFile = rowsPerFile;
        this.rewriteRows = rewriteRows;
        this.store = table.open();
        this.allocator = new RootAllocator();
        try {
            if (snapshot != null) {
                // The statement's own view: no read, and the field ids it was planned with.
                if (rewriteRows) {
                    RewriteRowsCheck.requireNoStableRowIds(snapshot.stableRowIds(), table.toString());
                }
                this.schema = snapshot.schema();
                this.fileVersion = FileVersion.parse(snapshot.dataStorageVersion());
            } else {
                Manifest latest = LatestTableVersion.read(store, table);
                if (rewriteRows) {
                    RewriteRowsCheck.requireNoStableRowIds(latest, table.toString());
                }
                this.schema = latest.schema();
                this.fileVersion = FileVersion.parse(latest.dataFormat().version());
            }
            this.inserts = new RowDataToArrow(schema.toArrow(), allocator, table.uri());
            this.structColumns = structColumns(schema);
            this.movedRowValues = new MovedRowValues(
                    store, table, schema, LanceTypeMapping.toRowType(schema.toArrow()), allocator, readVersion);
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
        MetricGroup group = metrics.addGroup("lance");
        this.rowsWritten = group.counter("rowsWritten");
        this.cellsWritten = group.counter("cellsWritten");
        this.rowsDeleted = group.counter("rowsDeleted");
        this.filesWritten = group.counter("filesWritten");
        this.overlayFilesWritten = group.counter("overlayFilesWritten");
        this.bytesWritten = group.counter("bytesWritten");
        group.gauge("lastFlushDurationMs", () -> lastFlushDurationMs);
    }

    @Override
    public void write(LocatedChange change, Context context) throws IOException {
        switch (change.kind()) {
            case INSERT -> insert(change);
            case UPDATE -> {
                requireNoStructColumn(change.columns());
                updates.computeIfAbsent(target(change), t -> new OverlayBuffer())
                        .add(offset(change), change.columns(), change.row());
            }
            case DELETE -> delete(target(change), offset(change));
            case MOVE -> {
                delete(
                        target(change.fromFileId(), change.fromPosition()),
                        offset(change.fromFileId(), change.fromPosition()));
                insert(change.placedByWriter() ? placeAtEndOfOwnFile(change) : change);
            }
        }
    }

    private void delete(RowTarget target, long offset) {
        deletions.computeIfAbsent(target, t -> new RoaringBitmap()).add((int) offset);
    }

    /** {@code move} at the next offset of this writer's own new file (a row no key map tracks). */
    private LocatedChange placeAtEndOfOwnFile(LocatedChange move) {
        if (ownFileId == 0 || ownFileRows == rowsPerFile) {
            do {
                ownFileId = random.nextLong();
            } while (ownFileId == 0);
            ownFileRows = 0;
        }
        return LocatedChange.move(
                move.fromFileId(), move.fromPosition(), ownFileId, ownFileRows++, move.columns(), move.row());
    }

    private static ColumnSet structColumns(LanceSchema schema) {
        ColumnSet.Builder structs = ColumnSet.builder();
        List<LanceField> top = schema.fields();
        for (int c = 0; c < top.size(); c++) {
            if (top.get(c).isStruct()) {
                structs.add(c);
            }
        }
        return structs.build();
    }

    /**
     * An update becomes overlay cells, and a struct column cannot be overlaid as a whole: Lance
     * resolves each leaf of a struct on its own and keeps the struct's own NULL in the base file,
     * so SET st = NULL (or a ROW with NULL fields over a NULL struct) has no overlay form. Fails on
     * the first such update, before anything of the checkpoint is written.
     */
    private void requireNoStructColumn(ColumnSet columns) {
        if (columns.intersects(structColumns)) {
            String name = schema.fields()
                    .get(columns.intersection(structColumns).first())
                    .name();
            throw new IllegalArgumentException("An update of " + table + " sets ROW column '" + name + "', but"
                    + " updates are written as data overlay files, which cannot replace a struct column (Lance"
                    + " resolves each of its fields separately and keeps the struct's NULL in the base file). Leave '"
                    + name + "' out of UPDATE ... SET and of the upsert's written columns, or write with"
                    + " 'sink.update-mode' = 'rewrite-rows', which replaces whole rows");
        }
    }

    private static RowTarget target(LocatedChange c) {
        return target(c.fileId(), c.position());
    }

    private static long offset(LocatedChange c) {
        return offset(c.fileId(), c.position());
    }

    /** The fragment of an existing row named as in {@link LocatedChange}: a row address, or a file id and offset. */
    private static RowTarget target(long fileId, long position) {
        return fileId == 0 ? RowTarget.committed(RowAddress.fragmentId(position)) : RowTarget.pending(fileId);
    }

    private static long offset(long fileId, long position) {
        return fileId == 0 ? RowAddress.offset(position) : position;
    }

    private void insert(LocatedChange change) throws IOException {
        if (change.fileId() != fileId) {
            finishFile();
            fileId = change.fileId();
            nextOffset = 0;
            String name = PendingFiles.fileName(fileId, fileTag + "-f" + checkpoint);
            file = new FragmentWriter(
                    store, schema, fileVersion, Long.MAX_VALUE, allocator, FileWriterOptions.defaults(), () -> name);
        }
        if (change.position() != nextOffset) {
            throw new IllegalStateException("The Lance writer for " + table + " got row " + change.position()
                    + " of new file " + HexFormat.of().toHexDigits(fileId) + " but expected row " + nextOffset + ". The"
                    + " key resolver and the writer must be connected one to one (same parallelism, forward)");
        }
        if (!awaitingValues.isEmpty() || movedRowValues.needsValues(change)) {
            awaitingValues.add(change);
        } else {
            inserts.append(change.row());
        }
        nextOffset++;
        if (inserts.rowCount() + awaitingValues.size() >= batchRows) {
            writeBatch();
        }
    }

    private void writeBatch() throws IOException {
        if (!awaitingValues.isEmpty()) {
            for (RowData row : movedRowValues.complete(awaitingValues)) {
                inserts.append(row);
            }
            awaitingValues.clear();
        }
        if (inserts.rowCount() == 0) {
            return;
        }
        file.write(inserts.batch());
        rowsWritten.inc(inserts.rowCount());
        inserts.reset();
    }

    private void finishFile() throws IOException {
        if (file == null) {
            return;
        }
        writeBatch();
        List<Fragment> finished = file.finish();
        for (Fragment f : finished) {
            if (rewriteRows) {
                movedRowValues.wrote(fileId, f); // a later move of one of its rows may read it before its commit
            }
        }
        newFragments.addAll(finished);
        file.close();
        file = null;
        fileId = 0;
    }

    @Override
    public void flush(boolean endOfInput) {
        // Everything is written in prepareCommit, which Flink calls right after this.
    }

    @Override
    public Collection<WrittenChanges> prepareCommit() throws IOException {
        long start = System.nanoTime();
        checkpoint++;
        finishFile();
        ownFileId = 0; // a checkpoint always ends the open file
        movedRowValues.checkpointDone();
        List<Fragment> fragments = List.copyOf(newFragments);
        newFragments.clear();
        long rows = 0;
        long bytes = 0;
        for (Fragment f : fragments) {
            rows += f.physicalRows();
            for (DataFile d : f.files()) {
                bytes += d.fileSizeBytes();
            }
        }
        List<TargetedOverlay> overlays = new ArrayList<>();
        long cells = 0;
        if (!updates.isEmpty()) {
            Manifest latest = ManifestIO.read(
                    store,
                    readVersion > 0 ? VersionResolver.version(store, readVersion) : VersionResolver.latest(store));
            Map<Long, Fragment> pendingIndex = PendingFiles.index(latest);
            for (Map.Entry<RowTarget, OverlayBuffer> e : updates.entrySet()) {
                Optional<TargetedOverlay> o = writeOverlay(latest, pendingIndex, e.getKey(), e.getValue());
                if (o.isPresent()) {
                    overlays.add(o.get());
                    bytes += o.get().overlay().dataFile().fileSizeBytes();
                    cells += o.get().overlay().cellCount();
                }
            }
            updates.clear();
        }
        List<TargetedDeletion> deleted = new ArrayList<>();
        for (Map.Entry<RowTarget, RoaringBitmap> e : deletions.entrySet()) {
            deleted.add(new TargetedDeletion(e.getKey(), e.getValue()));
            rowsDeleted.inc(e.getValue().getLongCardinality());
        }
        deletions.clear();
        filesWritten.inc(fragments.size());
        overlayFilesWritten.inc(overlays.size());
        cellsWritten.inc(cells);
        bytesWritten.inc(bytes);
        lastFlushDurationMs = (System.nanoTime() - start) / 1_000_000L;
        if (fragments.isEmpty() && overlays.isEmpty() && deleted.isEmpty()) {
            return List.of();
        }
        return List.of(new WrittenChanges(fragments, overlays, deleted, rows, cells, bytes));
    }

    /**
     * Writes the overlay of one target fragment. A pending target whose commit has landed
     * meanwhile is written against its now known fragment. A target the table no longer has
     * (a committed fragment that a compaction rewrote or another writer emptied, or an appended
     * file compacted since) is written like a pending one, attached to the target as located: the
     * committer follows the rows to where a compaction moved them, or drops the values if the rows
     * were deleted (deletions win).
     *
     * <p>Only the columns the updates set are converted to Arrow; ordering, de-duplication and
     * the overlay's shape are the {@link OverlayStager}'s.
     */
    private Optional<TargetedOverlay> writeOverlay(
            Manifest latest, Map<Long, Fragment> pendingIndex, RowTarget target, OverlayBuffer buffer)
            throws IOException {
        Fragment fragment = null;
        if (target.isPending()) {
            fragment = pendingIndex.get(target.pendingFileId());
        } else {
            fragment = latest.fragment(target.fragmentId()).orElse(null);
        }
        List<LanceField> top = schema.fields();
        ColumnSet union = buffer.union();
        int[] positions = union.toArray();
        List<Field> fields = new ArrayList<>(positions.length);
        for (int c : positions) {
            fields.add(OverlayStager.valueField(top.get(c)));
        }
        int n = buffer.size();
        ColumnSet[] set = buffer.uniform() ? null : new ColumnSet[n];
        if (set != null) {
            ColumnSet lastIn = null;
            ColumnSet lastOut = null;
            for (int i = 0; i < n; i++) {
                ColumnSet in = buffer.columns(i);
                if (in != lastIn && !in.equals(lastIn)) {
                    ColumnSet.Builder b = ColumnSet.builder();
                    for (int k = 0; k < positions.length; k++) {
                        if (in.contains(positions[k])) {
                            b.add(k);
                        }
                    }
                    lastIn = in;
                    lastOut = b.build();
                }
                set[i] = lastOut;
            }
        }
        try (RowDataToArrow values = new RowDataToArrow(new Schema(fields), allocator, table.uri())) {
            ProjectedRowData written = ProjectedRowData.from(positions);
            for (int i = 0; i < n; i++) {
                values.append(written.replaceRow(buffer.row(i)));
            }
            Optional<OverlayStager.StagedOverlay> staged = OverlayStager.stage(
                    store,
                    latest,
                    fragment != null
                            ? OverlayStager.Target.fragment(fragment.id())
                            : OverlayStager.Target.uncommitted(),
                    buffer.offsets(),
                    n,
                    values.batch().getFieldVectors(),
                    set,
                    allocator,
                    FileWriterOptions.defaults());
            RowTarget attachTo = fragment != null ? RowTarget.committed(fragment.id()) : target;
            return staged.map(o -> new TargetedOverlay(attachTo, o.overlay()));
        }
    }

    @Override
    public void close() throws IOException {
        try {
            if (file != null) {
                file.close(); // deletes the files of a checkpoint that never completed
                file = null;
            }
            if (inserts != null) {
                inserts.close();
            }
            allocator.close();
        } finally {
            store.close();
        }
    }
}
