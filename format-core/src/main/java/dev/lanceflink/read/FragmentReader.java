package dev.lanceflink.read;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.deletion.DeletionFiles;
import dev.lanceflink.deletion.DeletionVector;
import dev.lanceflink.file.ColumnMap;
import dev.lanceflink.file.FileField;
import dev.lanceflink.file.LanceFileReader;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.overlay.OverlayResolver;
import dev.lanceflink.schema.LanceField;
import dev.lanceflink.table.CorruptTableException;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.UnsupportedTableFeatureException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;

/**
 * Reads the columns of one fragment by physical row offset. A top-level field comes from the data
 * file whose {@code fields} hold it (or, in 2.1+ files that list only leaves, its leaves); a field
 * that no data file holds (added to the schema later) reads as NULL. Columns are found through
 * each file's {@code fields} / {@code column_indices} and read under the table schema's names and
 * types ({@link LanceFileReader#project}), never through the ids stored in the file. Deleted rows are not filtered
 * here: {@link #liveOffsets} tells the caller which offsets are alive. Data overlay files of the
 * fragment are applied to every value read ({@link OverlayResolver}), so scans, takes and filters
 * all see current values.
 */
public final class FragmentReader implements AutoCloseable {
    private final ObjectStore store;
    private final Fragment fragment;
    private final BufferAllocator allocator;
    private final Map<String, LanceFileReader> readers = new HashMap<>();
    /** Top-level field id → the data file holding it and its columns there, or empty if none does. */
    private final Map<Integer, Optional<Held>> holders = new HashMap<>();
    private DeletionVector deletions;
    private OverlayResolver overlays;

    public FragmentReader(ObjectStore store, Fragment fragment, BufferAllocator allocator) {
        this.store = requireNonNull(store, "store is null");
        this.fragment = requireNonNull(fragment, "fragment is null");
        this.allocator = requireNonNull(allocator, "allocator is null");
    }

    public Fragment fragment() {
        return fragment;
    }

    /** The fragment's deletion vector (empty if none). */
    public DeletionVector deletions() throws IOException {
        if (deletions == null) {
            deletions = fragment.deletionFile() == null ? DeletionVector.EMPTY
                    : DeletionFiles.read(store, fragment.id(), fragment.deletionFile());
        }
        return deletions;
    }

    /** Offsets in {@code [start, end)} that are not deleted, ascending. */
    public long[] liveOffsets(long start, long end) throws IOException {
        DeletionVector dv = deletions();
        long[] out = new long[(int) (end - start)];
        if (dv.isEmpty()) {
            for (int i = 0; i < out.length; i++) {
                out[i] = start + i;
            }
            return out;
        }
        int n = 0;
        for (long o = start; o < end; o++) {
            if (!dv.contains((int) o)) {
                out[n++] = o;
            }
        }
        return n == out.length ? out : java.util.Arrays.copyOf(out, n);
    }

    /**
     * Values of a top-level field at the given ascending physical offsets, as a vector the
     * caller closes.
     */
    public FieldVector read(LanceField field, long[] offsets) throws IOException {
        FieldVector base = readBase(field, offsets);
        if (fragment.overlays().isEmpty()) {
            return base;
        }
        if (overlays == null) {
            overlays = OverlayResolver.of(store, fragment, allocator);
        }
        return overlays.resolve(field, offsets, base);
    }

    private FieldVector readBase(LanceField field, long[] offsets) throws IOException {
        Optional<Held> held = holders.get(field.id());
        if (held == null) {
            held = Optional.ofNullable(find(field));
            holders.put(field.id(), held);
        }
        if (held.isEmpty()) {
            return nulls(field, offsets.length);
        }
        LanceFileReader reader = reader(held.get().file());
        FileField columns = held.get().columns();
        if (isContiguous(offsets)) {
            long start = offsets.length == 0 ? 0 : offsets[0];
            return reader.readRange(columns, start, start + offsets.length);
        }
        return reader.take(columns, offsets);
    }

    /** A data file holding a top-level field, and where the field's columns are in it. */
    private record Held(DataFile file, FileField columns) {}

    private Held find(LanceField field) throws IOException {
        Set<Integer> ids = new HashSet<>();
        field.preOrder().forEach(f -> ids.add(f.id()));
        DataFile holder = null;
        for (DataFile f : fragment.files()) {
            for (int i = 0; i < f.fieldCount(); i++) {
                if (ids.contains(f.fieldId(i))) {
                    if (holder != null && holder != f) {
                        throw new UnsupportedTableFeatureException("Fragment " + fragment.id() + ": field '"
                                + field.pathString() + "' (id " + field.id() + ") is stored partly in data file "
                                + holder.path() + " and partly in " + f.path() + "; reading a field whose columns are"
                                + " spread over several data files is not supported");
                    }
                    holder = f;
                    break;
                }
            }
        }
        if (holder == null) {
            return null;
        }
        LanceFileReader reader = reader(holder);
        FileField columns = reader.project(field, columnMap(holder, reader));
        if (columns == null) {
            throw new CorruptTableException("Fragment " + fragment.id() + ": data file " + holder.path() + " lists ids of"
                    + " field '" + field.pathString() + "' (id " + field.id() + ") but none of its columns");
        }
        if (columns.field() != field) {
            Set<Integer> stored = new HashSet<>();
            columns.field().preOrder().forEach(f -> stored.add(f.id()));
            List<String> missing = new ArrayList<>();
            field.preOrder().filter(f -> f.isLeaf() && !stored.contains(f.id())).forEach(f -> missing.add(
                    f.pathString() + " (id " + f.id() + ")"));
            throw new UnsupportedTableFeatureException("Fragment " + fragment.id() + ": data file " + holder.path()
                    + " holds only part of field '" + field.pathString() + "' (id " + field.id() + "); no data file of"
                    + " the fragment holds " + String.join(", ", missing) + ". Reading a struct some of whose"
                    + " leaves are missing from its data file is not supported");
        }
        return new Held(holder, columns);
    }

    /**
     * Where a data file (base or overlay) holds which table field: its entry's {@code fields} /
     * {@code column_indices}; for entries of old writers without column indices, the ids stored
     * in the file (those writers stored the table's).
     */
    public static ColumnMap columnMap(DataFile file, LanceFileReader reader) throws IOException {
        Optional<ColumnMap> listed = file.columnMap();
        return listed.isPresent() ? listed.get() : reader.embeddedColumns();
    }

    static boolean isContiguous(long[] offsets) {
        return offsets.length == 0 || offsets[offsets.length - 1] - offsets[0] == offsets.length - 1;
    }

    private LanceFileReader reader(DataFile file) throws IOException {
        LanceFileReader r = readers.get(file.path());
        if (r == null) {
            r = LanceFileReader.open(store, file.rootRelativePath(), file.fileSizeBytes(), allocator);
            readers.put(file.path(), r);
        }
        return r;
    }

    private FieldVector nulls(LanceField field, int count) {
        FieldVector v = field.toArrow().createVector(allocator);
        v.allocateNew();
        for (int i = 0; i < count; i++) {
            setNull(v, i);
        }
        v.setValueCount(count);
        return v;
    }

    private static void setNull(ValueVector v, int index) {
        if (v instanceof org.apache.arrow.vector.BaseFixedWidthVector f) {
            f.setNull(index);
        } else if (v instanceof org.apache.arrow.vector.BaseVariableWidthVector f) {
            f.setNull(index);
        } else if (v instanceof org.apache.arrow.vector.BaseLargeVariableWidthVector f) {
            f.setNull(index);
        } else if (v instanceof org.apache.arrow.vector.complex.ListVector f) {
            f.setNull(index);
        } else if (v instanceof org.apache.arrow.vector.complex.LargeListVector f) {
            f.setNull(index);
        } else if (v instanceof org.apache.arrow.vector.complex.FixedSizeListVector f) {
            f.setNull(index);
        } else if (v instanceof org.apache.arrow.vector.complex.StructVector f) {
            f.setNull(index);
        }
    }

    @Override
    public void close() throws IOException {
        IOException first = null;
        if (overlays != null) {
            try {
                overlays.close();
            } catch (IOException e) {
                first = e;
            }
            overlays = null;
        }
        for (LanceFileReader r : readers.values()) {
            try {
                r.close();
            } catch (IOException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        readers.clear();
        if (first != null) {
            throw first;
        }
    }
}
