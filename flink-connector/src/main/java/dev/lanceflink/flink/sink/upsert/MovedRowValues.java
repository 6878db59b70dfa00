package dev.lanceflink.flink.sink.upsert;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.committer.core.PendingFiles;
import dev.lanceflink.committer.core.TableLocation;
import dev.lanceflink.flink.types.ArrowColumnVectors;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.read.FragmentReader;
import dev.lanceflink.schema.ColumnSet;
import dev.lanceflink.schema.LanceField;
import dev.lanceflink.schema.LanceSchema;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.ManifestIO;
import dev.lanceflink.table.RowAddress;
import dev.lanceflink.table.TableFiles;
import dev.lanceflink.table.VersionResolver;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.columnar.ColumnarRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;

/**
 * Completes rows the change writer moves (update mode rewrite-rows) whose records carry only some
 * columns ({@code INSERT INTO t (id, age) ...}): the other columns keep the values the existing
 * row has now, read from the table, overlays applied.
 *
 * <p>Where the existing row is: a committed fragment of the table (the version the changes were
 * read from, or the latest), or a data file this sink appended and whose commit may not have
 * landed yet. The writer that moves a row also wrote it (the key resolver sends a key's changes to
 * the same writer subtask), so it reports every file it finishes ({@link #wrote}) and the file is
 * read from there until a manifest shows it committed.
 */
final class MovedRowValues {
    /** Own files kept until seen committed; bounded so that a sink that never fills cannot grow it. */
    private static final int MAX_OWN_FILES = 10_000;

    private final ObjectStore store;
    private final TableLocation table;
    private final LanceSchema schema;
    private final RowType rowType;
    private final BufferAllocator allocator;
    private final long readVersion;
    private final RowDataSerializer serializer;
    private final RowData.FieldGetter[] getters;
    /** Every column of the table: a move whose record carries fewer needs the others read. */
    private final ColumnSet allColumns;

    private final Map<Long, Fragment> ownFiles = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Fragment> eldest) {
            return size() > MAX_OWN_FILES;
        }
    };
    /** The table version moved rows are read from in the current checkpoint, read on first need. */
    private Manifest manifest;
    /** {@link PendingFiles#index} of {@link #manifest}. */
    private Map<Long, Fragment> committedFiles;

    /**
     * @param rowType the table's row type (the rows' layout)
     * @param readVersion the version the changes were computed from, or 0 for the latest
     */
    MovedRowValues(
            ObjectStore store,
            TableLocation table,
            LanceSchema schema,
            RowType rowType,
            BufferAllocator allocator,
            long readVersion) {
        this.store = requireNonNull(store, "store is null");
        this.table = requireNonNull(table, "table is null");
        this.schema = requireNonNull(schema, "schema is null");
        this.rowType = requireNonNull(rowType, "rowType is null");
        this.allocator = requireNonNull(allocator, "allocator is null");
        this.readVersion = readVersion;
        this.serializer = new RowDataSerializer(rowType);
        this.getters = new RowData.FieldGetter[rowType.getFieldCount()];
        for (int i = 0; i < getters.length; i++) {
            getters[i] = RowData.createFieldGetter(rowType.getTypeAt(i), i);
        }
        this.allColumns = ColumnSet.firstColumns(getters.length);
    }

    /** True if {@code move} lacks columns that must come from the existing row. */
    boolean needsValues(LocatedChange move) {
        return move.kind() == LocatedChange.Kind.MOVE && !move.columns().containsAll(allColumns);
    }

    /** The writer finished data file {@code fileId}, the only file of {@code fragment}, not yet committed. */
    void wrote(long fileId, Fragment fragment) {
        ownFiles.put(fileId, fragment);
    }

    /** The checkpoint's changes are written: the next one reads a newer version. */
    void checkpointDone() {
        manifest = null;
        committedFiles = null;
    }

    /**
     * The rows of {@code changes} in order: each move lacking columns completed from its existing
     * row, every other change's row as it is. The returned rows live on the heap.
     */
    List<RowData> complete(List<LocatedChange> changes) throws IOException {
        Map<SourceKey, List<Integer>> bySource = new LinkedHashMap<>();
        for (int i = 0; i < changes.size(); i++) {
            LocatedChange c = changes.get(i);
            if (needsValues(c)) {
                bySource.computeIfAbsent(SourceKey.of(c), k -> new ArrayList<>())
                        .add(i);
            }
        }
        RowData[] out = new RowData[changes.size()];
        for (Map.Entry<SourceKey, List<Integer>> e : bySource.entrySet()) {
            completeFromFragment(e.getKey(), e.getValue(), changes, out);
        }
        List<RowData> rows = new ArrayList<>(changes.size());
        for (int i = 0; i < out.length; i++) {
            rows.add(out[i] != null ? out[i] : changes.get(i).row());
        }
        return rows;
    }

    /** The source of moved rows: a committed fragment (fileId 0) or a data file of this sink. */
    private record SourceKey(long fileId, long fragmentId) {
        static SourceKey of(LocatedChange move) {
            return move.fromFileId() == 0
                    ? new SourceKey(0, RowAddress.fragmentId(move.fromPosition()))
                    : new SourceKey(move.fromFileId(), 0);
        }

        long offset(LocatedChange move) {
            return fileId == 0 ? RowAddress.offset(move.fromPosition()) : move.fromPosition();
        }
    }

    private void completeFromFragment(
            SourceKey source, List<Integer> positions, List<LocatedChange> changes, RowData[] out) throws IOException {
        Fragment fragment = fragment(source);
        // The columns every move carries; all others are read (no allocation while the moves
        // carry the same columns).
        ColumnSet carried = allColumns;
        TreeSet<Long> offsetSet = new TreeSet<>();
        for (int i : positions) {
            carried = carried.intersection(changes.get(i).columns());
            offsetSet.add(source.offset(changes.get(i)));
        }
        long[] offsets = offsetSet.stream().mapToLong(Long::longValue).toArray();
        List<Integer> columns = new ArrayList<>();
        ColumnSet missing = allColumns.minus(carried);
        for (int c = missing.first(); c >= 0; c = missing.next(c + 1)) {
            columns.add(c);
        }
        List<FieldVector> vectors = new ArrayList<>();
        // The fragment's files may live under another base path (shallow clones, branches).
        try (TableFiles files = TableFiles.of(store, manifest);
                FragmentReader reader = new FragmentReader(files, fragment, allocator)) {
            List<LanceField> fields = schema.fields();
            for (int c : columns) {
                vectors.add(reader.read(fields.get(c), offsets));
            }
            ColumnarRowData existing = new ColumnarRowData(ArrowColumnVectors.batch(vectors, offsets.length));
            RowData.FieldGetter[] existingGetters = new RowData.FieldGetter[getters.length];
            for (int k = 0; k < columns.size(); k++) {
                existingGetters[columns.get(k)] = RowData.createFieldGetter(rowType.getTypeAt(columns.get(k)), k);
            }
            for (int i : positions) {
                LocatedChange move = changes.get(i);
                existing.setRowId(Arrays.binarySearch(offsets, source.offset(move)));
                GenericRowData row = new GenericRowData(move.row().getRowKind(), getters.length);
                for (int c = 0; c < getters.length; c++) {
                    row.setField(
                            c,
                            move.columns().contains(c)
                                    ? getters[c].getFieldOrNull(move.row())
                                    : existingGetters[c].getFieldOrNull(existing));
                }
                // A heap copy: the existing values are views over vectors closed below.
                out[i] = serializer.toBinaryRow(row).copy();
            }
        } finally {
            vectors.forEach(FieldVector::close);
        }
    }

    private Fragment fragment(SourceKey source) throws IOException {
        if (manifest == null) {
            readManifest();
        }
        if (source.fileId() == 0) {
            return manifest.fragment(source.fragmentId())
                    .orElseThrow(() -> new IllegalStateException("Rows of "
                            + table + " to rewrite are in fragment " + source.fragmentId() + ", which version "
                            + manifest.version()
                            + " no longer has: another writer deleted all its rows (or rewrote them)"
                            + " during this checkpoint, so the columns this sink does not write cannot be carried over. The"
                            + " job fails and restarts from its last checkpoint, which then sees the deletion"));
        }
        Fragment f = committedFiles.get(source.fileId());
        if (f == null) {
            f = ownFiles.get(source.fileId());
        }
        if (f == null && readVersion == 0) {
            readManifest(); // committed since this checkpoint's first read?
            f = committedFiles.get(source.fileId());
        }
        if (f == null) {
            throw new IllegalStateException("Rows of " + table + " to rewrite are in data file "
                    + HexFormat.of().toHexDigits(source.fileId()) + ", which this sink appended, but no version of the"
                    + " table holds it yet and this writer did not write it (restored at another parallelism before"
                    + " the file's commit landed?). The job fails and restarts from its last checkpoint, by when"
                    + " the file's commit has landed");
        }
        return f;
    }

    /** Reads the version to read from, and forgets the own files it shows committed. */
    private void readManifest() throws IOException {
        manifest = ManifestIO.read(
                store, readVersion > 0 ? VersionResolver.version(store, readVersion) : VersionResolver.latest(store));
        committedFiles = PendingFiles.index(manifest);
        ownFiles.keySet().removeAll(committedFiles.keySet());
    }
}
