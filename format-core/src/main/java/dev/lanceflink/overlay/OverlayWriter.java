package dev.lanceflink.overlay;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.file.FileVersion;
import dev.lanceflink.file.writer.FileWriteSummary;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.file.writer.LanceFileWriter;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.overlay.OverlayWriteException.Kind;
import dev.lanceflink.schema.LanceField;
import dev.lanceflink.schema.LanceSchema;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.OverlayCoverage;
import dev.lanceflink.table.RowAddress;
import dev.lanceflink.write.DataFileNames;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.roaringbitmap.RoaringBitmap;

/**
 * Writes one data overlay file for one fragment (overlays.md §4, §8): new values for cells
 * {@code (physical offset, field)} of some declared top-level fields. Nothing is committed: the
 * {@link DataOverlayFile} returned by {@link #finish()} goes into an {@code Operation.DataOverlay}
 * group (see {@link OverlayCommits}).
 *
 * <p>Every field has its own coverage, the union of the offsets it was given; its value column
 * holds the values in that (ascending) order, so the value of offset {@code o} sits at
 * {@code rank(o) - 1}. When all declared fields end up with the same offsets the overlay is
 * dense (one shared bitmap), otherwise sparse (one bitmap per {@code data_file.fields} slot, a
 * non-rectangular file).
 *
 * <p>Coverage is not nullness: a NULL value for a written offset sets the cell to NULL. There is
 * deliberately no way to say "leave this cell alone" with a null; simply do not write the offset
 * for that field ({@link #writeField}).
 *
 * <p>Each batch is validated completely before anything of it is staged, so a refused batch
 * leaves the writer as it was. Struct columns are refused ({@link Kind#STRUCT_FIELD}): Lance
 * resolves struct leaves independently and keeps the struct's own validity from the base row, so
 * an overlay could neither set a struct to NULL nor make a NULL struct valid.
 */
public final class OverlayWriter implements AutoCloseable {
    private final ObjectStore store;
    private final BufferAllocator allocator;
    private final FileWriterOptions fileOptions;
    private final Fragment fragment;
    private final FileVersion fileVersion;
    private final LanceSchema fileSchema;
    private final LanceField[] fields;
    private final RoaringBitmap[] coverage;
    private final long[] lastOffset;
    private LanceFileWriter writer;
    private String fileName;
    private boolean done;

    private OverlayWriter(
            ObjectStore store,
            BufferAllocator allocator,
            FileWriterOptions fileOptions,
            Fragment fragment,
            FileVersion fileVersion,
            LanceSchema fileSchema,
            LanceField[] fields) {
        this.store = store;
        this.allocator = allocator;
        this.fileOptions = fileOptions;
        this.fragment = fragment;
        this.fileVersion = fileVersion;
        this.fileSchema = fileSchema;
        this.fields = fields;
        this.coverage = new RoaringBitmap[fields.length];
        this.lastOffset = new long[fields.length];
        for (int i = 0; i < fields.length; i++) {
            coverage[i] = new RoaringBitmap();
            lastOffset[i] = -1;
        }
    }

    /**
     * Starts an overlay of fragment {@code fragmentId} of the table version {@code manifest}.
     *
     * @param fieldIds the top-level dataset field ids the overlay may carry, in any order (the
     *     file stores them in schema order)
     * @throws OverlayWriteException if the table uses legacy files, a field id is unknown, not
     *     top-level, a struct, or a blob column
     * @throws IllegalArgumentException if the fragment does not exist
     */
    public static OverlayWriter create(
            ObjectStore store,
            Manifest manifest,
            long fragmentId,
            int[] fieldIds,
            BufferAllocator allocator,
            FileWriterOptions fileOptions) {
        requireNonNull(store, "store is null");
        requireNonNull(manifest, "manifest is null");
        requireNonNull(fieldIds, "fieldIds is null");
        requireNonNull(allocator, "allocator is null");
        requireNonNull(fileOptions, "fileOptions is null");
        Fragment fragment = manifest.fragment(fragmentId)
                .orElseThrow(() -> new IllegalArgumentException("Cannot overlay fragment " + fragmentId + ": version "
                        + manifest.version() + " of the table has no such fragment"));
        return create(store, manifest, fragment, fieldIds, allocator, fileOptions);
    }

    /**
     * Starts an overlay of a fragment that is written but not committed yet (its id is assigned
     * when it is committed). Row addresses given to this writer use fragment id 0: they are the
     * offsets within that fragment. The caller attaches the finished overlay to the fragment's id
     * once it is known, and must commit it after the fragment itself.
     *
     * @param physicalRows rows of the uncommitted fragment, or {@code Integer.MAX_VALUE + 1L}
     *     when unknown (then the committer must check the coverage against the fragment's rows)
     */
    public static OverlayWriter createForUncommittedFragment(
            ObjectStore store,
            Manifest manifest,
            long physicalRows,
            int[] fieldIds,
            BufferAllocator allocator,
            FileWriterOptions fileOptions) {
        requireNonNull(manifest, "manifest is null");
        if (physicalRows < 1) {
            throw new IllegalArgumentException("An uncommitted fragment has at least one row, got " + physicalRows);
        }
        return create(store, manifest, Fragment.of(0, List.of(), physicalRows), fieldIds, allocator, fileOptions);
    }

    private static OverlayWriter create(
            ObjectStore store,
            Manifest manifest,
            Fragment fragment,
            int[] fieldIds,
            BufferAllocator allocator,
            FileWriterOptions fileOptions) {
        requireNonNull(store, "store is null");
        requireNonNull(fieldIds, "fieldIds is null");
        requireNonNull(allocator, "allocator is null");
        requireNonNull(fileOptions, "fileOptions is null");
        long fragmentId = fragment.id();
        String format =
                manifest.dataFormat() == null ? "0.1" : manifest.dataFormat().version();
        if (format.startsWith("0.")) {
            throw new OverlayWriteException(
                    Kind.LEGACY_FILE_FORMAT,
                    "Cannot overlay fragment " + fragmentId
                            + ": the table stores legacy Lance files (data format " + format + "); data overlay files"
                            + " need file format 2.0 or later. Rewrite the table with format 2.0+ or update by rewriting rows");
        }
        if (fieldIds.length == 0) {
            throw new OverlayWriteException(
                    Kind.SCHEMA_MISMATCH, "An overlay of fragment " + fragmentId + " must declare at least one field");
        }
        LanceSchema schema = manifest.schema();
        List<LanceField> declared = new ArrayList<>();
        for (LanceField top : schema.fields()) {
            int count = 0;
            for (int id : fieldIds) {
                count += id == top.id() ? 1 : 0;
            }
            if (count > 1) {
                throw new OverlayWriteException(
                        Kind.DUPLICATE_COLUMN,
                        "The overlay of fragment " + fragmentId + " declares field id " + top.id() + " ('" + top.name()
                                + "') " + count + " times");
            }
            if (count == 1) {
                declared.add(top);
            }
        }
        for (int id : fieldIds) {
            if (declared.stream().noneMatch(f -> f.id() == id)) {
                Optional<LanceField> f = schema.fieldById(id);
                throw new OverlayWriteException(
                        Kind.SCHEMA_MISMATCH,
                        f.isEmpty()
                                ? "The overlay of fragment " + fragmentId + " names field id " + id
                                        + ", which the dataset schema does not define"
                                : "The overlay of fragment " + fragmentId + " names field id " + id + " ('"
                                        + f.get().pathString()
                                        + "'), which is nested; declare its top-level field instead");
            }
        }
        LanceField[] fields = declared.toArray(new LanceField[0]);
        List<LanceField> relaxed = new ArrayList<>();
        for (LanceField f : fields) {
            if (OverlayFields.isBlob(f)) {
                throw new OverlayWriteException(
                        Kind.BLOB_FIELD,
                        "Field '" + f.name() + "' (id " + f.id()
                                + ") is or contains a blob column; blob columns cannot be overlaid (fragment "
                                + fragmentId + "). Update it by rewriting rows");
            }
            if (f.isStruct()) {
                // Lance (pylance 14) resolves overlays leaf by leaf and keeps the struct's own validity
                // from the base row: an overlay cannot set a struct to NULL, and values overlaid on a
                // row whose struct is NULL stay invisible. Rewriting the row is the only exact update.
                throw new OverlayWriteException(
                        Kind.STRUCT_FIELD,
                        "Field '" + f.name() + "' (id " + f.id()
                                + ") is a struct, which an overlay cannot update exactly: Lance keeps a struct's NULL or"
                                + " non-NULL state from the base row (fragment " + fragmentId
                                + "). Update it by rewriting"
                                + " rows ('sink.update-mode' = 'rewrite-rows')");
            }
            // Nullability is relaxed so that NULL overrides are possible, as Lance's writer does.
            relaxed.add(OverlayFields.relaxNullability(f));
        }
        FileVersion version = FileVersion.parse(format);
        return new OverlayWriter(store, allocator, fileOptions, fragment, version, LanceSchema.of(relaxed), fields);
    }

    /** As {@link #create(ObjectStore, Manifest, long, int[], BufferAllocator, FileWriterOptions)} with default file options. */
    public static OverlayWriter create(
            ObjectStore store, Manifest manifest, long fragmentId, int[] fieldIds, BufferAllocator allocator) {
        return create(store, manifest, fragmentId, fieldIds, allocator, FileWriterOptions.defaults());
    }

    public long fragmentId() {
        return fragment.id();
    }

    /**
     * Stages the batch's columns for the rows at {@code rowAddresses}: row {@code i} of every
     * column is the new value of the cell at {@code rowAddresses[i]}. Columns are matched to the
     * declared fields by name; fields the batch lacks are left alone for these rows.
     */
    public void write(long[] rowAddresses, VectorSchemaRoot values) throws IOException {
        requireNonNull(rowAddresses, "rowAddresses is null");
        requireNonNull(values, "values is null");
        checkOpen();
        List<FieldVector> vectors = values.getFieldVectors();
        int[] slots = new int[vectors.size()];
        for (int c = 0; c < vectors.size(); c++) {
            String name = vectors.get(c).getField().getName();
            slots[c] = slotOf(name);
            for (int p = 0; p < c; p++) {
                if (slots[p] == slots[c]) {
                    throw new OverlayWriteException(
                            Kind.DUPLICATE_COLUMN,
                            "The overlay batch for fragment " + fragment.id() + " has column '" + name + "' twice");
                }
            }
            validate(slots[c], rowAddresses, rowAddresses.length, vectors.get(c));
        }
        for (int c = 0; c < vectors.size(); c++) {
            stage(slots[c], rowAddresses, rowAddresses.length, vectors.get(c));
        }
    }

    /**
     * Stages new values of one field: {@code values[i]} is the new value of the cell at
     * {@code rowAddresses[i]}. Different fields may receive different offsets (a sparse overlay).
     */
    public void writeField(int fieldId, long[] rowAddresses, FieldVector values) throws IOException {
        requireNonNull(rowAddresses, "rowAddresses is null");
        writeField(fieldId, rowAddresses, rowAddresses.length, values);
    }

    /**
     * As {@link #writeField(int, long[], FieldVector)} for the first {@code count} addresses of
     * {@code rowAddresses}: streaming stagers reuse one address buffer for every batch.
     */
    void writeField(int fieldId, long[] rowAddresses, int count, FieldVector values) throws IOException {
        requireNonNull(rowAddresses, "rowAddresses is null");
        requireNonNull(values, "values is null");
        if (count < 0 || count > rowAddresses.length) {
            throw new IllegalArgumentException(
                    "count " + count + " is not within the " + rowAddresses.length + " row addresses given");
        }
        checkOpen();
        int slot = -1;
        for (int i = 0; i < fields.length; i++) {
            if (fields[i].id() == fieldId) {
                slot = i;
            }
        }
        if (slot < 0) {
            throw new OverlayWriteException(
                    Kind.UNDECLARED_COLUMN,
                    "Field id " + fieldId + " is not one of the" + " fields declared for the overlay of fragment "
                            + fragment.id() + " " + declaredNames());
        }
        validate(slot, rowAddresses, count, values);
        stage(slot, rowAddresses, count, values);
    }

    private int slotOf(String name) {
        for (int i = 0; i < fields.length; i++) {
            if (fields[i].name().equals(name)) {
                return i;
            }
        }
        throw new OverlayWriteException(
                Kind.UNDECLARED_COLUMN,
                "Batch column '" + name + "' is not one of the" + " fields declared for the overlay of fragment "
                        + fragment.id() + " " + declaredNames());
    }

    private void validate(int slot, long[] rowAddresses, int count, FieldVector values) {
        LanceField f = fields[slot];
        if (!OverlayFields.sameType(f.toArrow(), values.getField())) {
            throw new OverlayWriteException(
                    Kind.VALUE_MISMATCH,
                    "Values for field '" + f.name() + "' (id " + f.id()
                            + ") of the overlay of fragment " + fragment.id() + " are "
                            + values.getField().getType()
                            + " but the dataset type is " + f.toArrow().getType() + " (" + f.logicalType() + ")");
        }
        if (values.getValueCount() != count) {
            throw new OverlayWriteException(
                    Kind.VALUE_MISMATCH,
                    "Field '" + f.name() + "' got "
                            + values.getValueCount() + " values for " + count + " row addresses (fragment "
                            + fragment.id() + "); give exactly one value per row address");
        }
        long previous = lastOffset[slot];
        for (int i = 0; i < count; i++) {
            long address = rowAddresses[i];
            long fragmentId = RowAddress.fragmentId(address);
            long offset = RowAddress.offset(address);
            if (fragmentId != fragment.id()) {
                throw new OverlayWriteException(
                        Kind.FOREIGN_ROW_ADDRESS,
                        "Row address " + address + " (position " + i
                                + ") belongs to fragment " + fragmentId + ", but this writer overlays fragment "
                                + fragment.id() + "; split the rows per fragment and use one writer each");
            }
            if (offset >= fragment.physicalRows()) {
                throw new OverlayWriteException(
                        Kind.OFFSET_OUT_OF_RANGE,
                        "Row address " + address + " (position " + i
                                + ") has offset " + offset + ", but fragment " + fragment.id() + " has only "
                                + fragment.physicalRows() + " physical rows (deleted rows included)");
            }
            if (offset <= previous) {
                throw new OverlayWriteException(
                        Kind.OFFSET_NOT_ASCENDING,
                        "Field '" + f.name() + "' of the overlay of"
                                + " fragment " + fragment.id() + " gets offset " + offset + " (position " + i
                                + ") after offset " + previous + "; offsets of a field must be strictly increasing"
                                + " across all batches (sort the rows by row address and drop duplicates)");
            }
            previous = offset;
        }
    }

    private void stage(int slot, long[] rowAddresses, int count, FieldVector values) throws IOException {
        if (count == 0) {
            return;
        }
        if (writer == null) {
            fileName = DataFileNames.newName();
            writer = LanceFileWriter.create(store, "data/" + fileName, fileSchema, fileVersion, allocator, fileOptions);
        }
        try {
            writer.writeColumn(fields[slot].id(), values);
        } catch (IOException | RuntimeException e) {
            done = true; // the file writer discarded the partial file
            throw e;
        }
        for (int i = 0; i < count; i++) {
            coverage[slot].add(RowAddress.offsetBits(rowAddresses[i]));
        }
        lastOffset[slot] = RowAddress.offset(rowAddresses[count - 1]);
    }

    /**
     * Writes the file and describes it, with {@code committed_version} 0 (stamped at commit).
     * Empty when nothing was staged: then no file exists and there is nothing to commit.
     */
    public Optional<DataOverlayFile> finish() throws IOException {
        checkOpen();
        done = true;
        if (writer == null) {
            return Optional.empty();
        }
        FileWriteSummary s = writer.finish();
        int[] ids = s.fieldIds();
        boolean dense = true;
        for (int i = 1; i < fields.length; i++) {
            dense &= coverage[i].equals(coverage[0]);
        }
        OverlayCoverage cov;
        if (dense) {
            cov = OverlayCoverage.Dense.of(coverage[0]);
        } else {
            List<RoaringBitmap> perSlot = new ArrayList<>(ids.length);
            for (int id : ids) {
                perSlot.add(coverage[slotHolding(id)]);
            }
            cov = OverlayCoverage.PerField.of(perSlot);
        }
        DataFile file = new DataFile(
                fileName, ids, s.columnIndices(), s.fileMajorVersion(), s.fileMinorVersion(), s.sizeBytes());
        return Optional.of(new DataOverlayFile(file, cov, 0));
    }

    private int slotHolding(int id) {
        for (int i = 0; i < fields.length; i++) {
            if (OverlayFields.inSubtree(fields[i], id)) {
                return i;
            }
        }
        throw new IllegalStateException("the file writer reported field id " + id + ", which belongs to no declared"
                + " overlay field " + declaredNames());
    }

    /** Path (relative to the store root) of the file being written, or empty if none was started. */
    public Optional<String> writtenPath() {
        return fileName == null ? Optional.empty() : Optional.of("data/" + fileName);
    }

    private List<String> declaredNames() {
        List<String> out = new ArrayList<>();
        for (LanceField f : fields) {
            out.add(f.name() + " (id " + f.id() + ")");
        }
        return out;
    }

    private void checkOpen() {
        if (done) {
            throw new IllegalStateException(
                    "The overlay writer of fragment " + fragment.id() + " is finished or failed; start a new one");
        }
    }

    /** Discards an unfinished file; no-op after {@link #finish()}. */
    @Override
    public void close() {
        done = true;
        if (writer != null) {
            writer.close();
        }
    }
}
