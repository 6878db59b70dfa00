package dev.lanceflink.read;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.deletion.DeletionFiles;
import dev.lanceflink.deletion.DeletionVector;
import dev.lanceflink.file.FileField;
import dev.lanceflink.file.LanceFileReader;
import dev.lanceflink.overlay.OverlayResolver;
import dev.lanceflink.schema.LanceField;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.TableFiles;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;

/**
 * Reads the columns of one fragment by physical row offset. A top-level field comes from the data
 * file whose {@code fields} hold it (or, in 2.1+ files that list only leaves, its leaves); a field
 * that no data file holds (added to the schema later) reads as NULL, and so does a struct leaf;
 * a struct whose leaves several files hold is put together from them ({@link SplitFields}).
 * Columns are found through each file's {@code fields} / {@code column_indices} and read under
 * the table schema's names and types ({@link LanceFileReader#project}), never through the ids
 * stored in the file. Deleted rows are not filtered here: {@link #liveOffsets} tells the caller
 * which offsets are alive. Data overlay files of the fragment are applied to every value read
 * ({@link OverlayResolver}), so scans, takes and filters all see current values.
 */
public final class FragmentReader implements AutoCloseable {
    private final TableFiles files;
    private final Fragment fragment;
    private final BufferAllocator allocator;
    private final Map<String, LanceFileReader> readers = new HashMap<>();
    /** Top-level field id → the data files holding (parts of) it and its columns there. */
    private final Map<Integer, List<Part>> holders = new HashMap<>();

    private DeletionVector deletions;
    private OverlayResolver overlays;

    /**
     * @param files where the fragment's files are read from (its manifest's base paths resolved);
     *     stays the caller's
     */
    public FragmentReader(TableFiles files, Fragment fragment, BufferAllocator allocator) {
        this.files = requireNonNull(files, "files is null");
        this.fragment = requireNonNull(fragment, "fragment is null");
        this.allocator = requireNonNull(allocator, "allocator is null");
    }

    public Fragment fragment() {
        return fragment;
    }

    /** The fragment's deletion vector (empty if none). */
    public DeletionVector deletions() throws IOException {
        if (deletions == null) {
            deletions = fragment.deletionFile() == null
                    ? DeletionVector.EMPTY
                    : DeletionFiles.read(files, fragment.id(), fragment.deletionFile());
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
        return n == out.length ? out : Arrays.copyOf(out, n);
    }

    /**
     * Reads ahead the small overlay files that supply cells of {@code fields}, {@code parallelism}
     * at a time ({@link OverlayResolver#prefetch}), for a caller about to read every overlaid row
     * of the fragment (a fold).
     */
    public void prefetchOverlays(List<LanceField> fields, int parallelism) throws IOException {
        if (fragment.overlays().isEmpty()) {
            return;
        }
        if (overlays == null) {
            overlays = OverlayResolver.of(files, fragment, allocator);
        }
        overlays.prefetch(fields, parallelism);
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
            overlays = OverlayResolver.of(files, fragment, allocator);
        }
        return overlays.resolve(field, offsets, base);
    }

    private FieldVector readBase(LanceField field, long[] offsets) throws IOException {
        List<Part> parts = holders.get(field.id());
        if (parts == null) {
            parts = find(field);
            holders.put(field.id(), parts);
        }
        if (parts.size() == 1 && parts.get(0).columns().field() == field) {
            return read(parts.get(0), offsets);
        }
        // The field is in no data file, or spread over several, or some struct leaves are in none.
        List<FieldVector> vectors = new ArrayList<>();
        FieldVector out = null;
        try {
            for (Part p : parts) {
                vectors.add(read(p, offsets));
            }
            out = SplitFields.assemble(field, vectors, offsets.length, allocator, "Fragment " + fragment.id());
            return out;
        } finally {
            for (FieldVector v : vectors) {
                if (v != out) {
                    v.close();
                }
            }
        }
    }

    private FieldVector read(Part part, long[] offsets) throws IOException {
        LanceFileReader reader = reader(part.file());
        if (isContiguous(offsets)) {
            long start = offsets.length == 0 ? 0 : offsets[0];
            return reader.readRange(part.columns(), start, start + offsets.length);
        }
        return reader.take(part.columns(), offsets);
    }

    /** What one data file holds of a top-level field, and where. */
    private record Part(DataFile file, FileField columns) {}

    /** What the fragment's data files hold of a top-level field, in file order: usually one part, none if added later. */
    private List<Part> find(LanceField field) throws IOException {
        Set<Integer> ids = new HashSet<>();
        field.preOrder().forEach(f -> ids.add(f.id()));
        List<Part> parts = new ArrayList<>();
        for (DataFile f : fragment.files()) {
            boolean listed = false;
            for (int i = 0; i < f.fieldCount() && !listed; i++) {
                listed = ids.contains(f.fieldId(i));
            }
            if (listed) {
                LanceFileReader reader = reader(f);
                FileField columns = reader.project(field, f.columnMap(reader));
                if (columns != null) { // null: the file lists only a struct parent without a column (2.1+)
                    parts.add(new Part(f, columns));
                }
            }
        }
        return List.copyOf(parts);
    }

    static boolean isContiguous(long[] offsets) {
        return offsets.length == 0 || offsets[offsets.length - 1] - offsets[0] == offsets.length - 1;
    }

    private LanceFileReader reader(DataFile file) throws IOException {
        LanceFileReader r = readers.get(file.path());
        if (r == null) {
            TableFiles.StoredFile stored = files.dataFile(fragment.id(), file);
            r = LanceFileReader.openOwning(stored.openReader(file.fileSizeBytes()), stored.uri(), allocator);
            readers.put(file.path(), r);
        }
        return r;
    }

    /** {@code count} NULLs typed as {@code field}. */
    static FieldVector nulls(LanceField field, int count, BufferAllocator allocator) {
        FieldVector v = field.toArrow().createVector(allocator);
        v.allocateNew();
        for (int i = 0; i < count; i++) {
            setNull(v, i);
        }
        v.setValueCount(count);
        return v;
    }

    private static void setNull(ValueVector v, int index) {
        if (v instanceof BaseFixedWidthVector f) {
            f.setNull(index);
        } else if (v instanceof BaseVariableWidthVector f) {
            f.setNull(index);
        } else if (v instanceof BaseLargeVariableWidthVector f) {
            f.setNull(index);
        } else if (v instanceof ListVector f) {
            f.setNull(index);
        } else if (v instanceof LargeListVector f) {
            f.setNull(index);
        } else if (v instanceof FixedSizeListVector f) {
            f.setNull(index);
        } else if (v instanceof StructVector f) {
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
