package dev.lanceflink.file.writer;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.file.FileVersion;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.schema.LanceSchema;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import lance.file.FileDescriptor;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Writes one Lance data file ({@code .lance}) in file version 2.1 (structural encodings, the
 * default of Lance 7.0.0), 2.2 or 2.0.
 *
 * <p>A 2.2 file uses the 2.1 layouts and compressions with one change that Lance 2.2 readers
 * insist on: every mini-block page is written in the large-chunk grammar
 * ({@code has_large_chunk = true}: u32 chunk metadata words and u32 value-buffer sizes in each
 * chunk header), as they refuse the u16 grammar of 2.1. Full-zip pages and all-null constant
 * pages (raw u16 rep/def buffers, no compression fields) are the same bytes as in 2.1, which
 * 2.2 readers accept. The file version is handed down to each page encoder for that. What 2.2
 * also adds that matters here is the map type: maps are accepted in 2.2 files only, as Lance
 * itself refuses them in older files.
 *
 * <p>Pages are written to the store as each column's buffered data reaches
 * {@link FileWriterOptions#targetPageBytes()}, so memory stays bounded by about that much per
 * column. {@link #finish()} appends the schema ({@code FileDescriptor}, global buffer 0), the
 * column metadata, the offset tables and the 40-byte footer, then publishes the object.
 *
 * <p>Columns may receive different numbers of rows through {@link #writeColumn}: the result is
 * a non-rectangular file (file-format.md §9) whose row count is that of its longest column, as
 * sparse data overlays need.
 *
 * <p>Not thread-safe. Values are stored uncompressed (flat / variable / fixed-size-list value
 * encodings, raw u16 levels), which every Lance reader accepts.
 */
public final class LanceFileWriter implements AutoCloseable {
    private static final byte[] MAGIC = {'L', 'A', 'N', 'C'};

    private final ObjectStore store;
    private final String path;
    private final LanceSchema schema;
    private final FileVersion version;
    private final FileWriterOptions options;
    private final List<WriterField> topFields;
    private final List<StructuralFieldWriter> structural = new ArrayList<>();
    private final List<V20ColumnWriter> legacy = new ArrayList<>();
    /** 2.0: rows appended so far per top-level field (the top-level row of its next row). */
    private final long[] legacyRows;

    private final FileSink sink;
    private boolean finished;
    private boolean closed;
    /** Whether {@link #next} gave this writer's page buffers to another file. */
    private boolean handedOver;

    private LanceFileWriter(
            ObjectStore store,
            String path,
            LanceSchema schema,
            FileVersion version,
            FileWriterOptions options,
            List<WriterField> topFields,
            OutputStream out,
            LanceFileWriter previous) {
        this.store = store;
        this.path = path;
        this.schema = schema;
        this.version = version;
        this.options = options;
        this.topFields = topFields;
        this.legacyRows = new long[topFields.size()];
        EncodeBuffer encoded = new EncodeBuffer();
        for (int i = 0; i < topFields.size(); i++) {
            WriterField f = topFields.get(i);
            if (version == FileVersion.V2_0) {
                legacy.add(V20ColumnWriter.create(f, options, false));
            } else if (previous != null) {
                structural.add(new StructuralFieldWriter(previous.structural.get(i)));
            } else {
                structural.add(new StructuralFieldWriter(f, version, options, encoded));
            }
        }
        this.sink = new FileSink(out);
    }

    /**
     * Starts a data file at {@code path} of {@code store}.
     *
     * @param schema the fields stored in this file, with their dataset field ids
     * @param version the file version; must match the dataset's {@code data_format}
     * @param allocator reserved for Arrow memory the writer may need; the writer reads the
     *     caller's vectors without copying them into Arrow memory
     * @throws IllegalArgumentException if the schema holds a type the writer cannot store, or a
     *     map in a file version before 2.2
     */
    public static LanceFileWriter create(
            ObjectStore store,
            String path,
            LanceSchema schema,
            FileVersion version,
            BufferAllocator allocator,
            FileWriterOptions options)
            throws IOException {
        requireNonNull(store, "store is null");
        requireNonNull(path, "path is null");
        requireNonNull(schema, "schema is null");
        requireNonNull(version, "version is null");
        requireNonNull(options, "options is null");
        List<WriterField> top = WriterSchema.topLevel(schema);
        if (!version.storesMaps()) {
            for (WriterField f : top) {
                refuseMaps(f, f.name(), version, path);
            }
        }
        OutputStream out = store.create(path);
        return new LanceFileWriter(store, path, schema, version, options, top, out, null);
    }

    /** Lance reads maps only from 2.2 files (its older decoders have no map type), so none may go in earlier. */
    private static void refuseMaps(WriterField f, String fieldPath, FileVersion version, String path) {
        if (f.kind() == WriterField.Kind.MAP) {
            throw new IllegalArgumentException("field '" + fieldPath + "' (id " + f.id() + ") is a map, but maps need"
                    + " data storage version 2.2 and this file is version " + version.label() + " (" + path + ")."
                    + " Create the table with data storage version 2.2 (WriteParams.withFileVersion(FileVersion.V2_2));"
                    + " an existing table keeps its version, so rewrite it into a new 2.2 table to add map columns");
        }
        for (WriterField c : f.children()) {
            refuseMaps(c, fieldPath + "." + c.name(), version, path);
        }
    }

    /**
     * Starts another data file at {@code path} of the same store, with this writer's schema,
     * version and options, after this one was {@link #finish() finished}. The new file's 2.1
     * page buffers are this writer's (already grown to page size), so writers that roll many
     * files (one per checkpoint in a streaming sink) neither grow nor garbage-collect them per
     * file. This writer must not be used afterwards.
     *
     * @throws IllegalStateException if this writer is not finished (a closed or failed writer's
     *     buffers may still hold rows)
     */
    public LanceFileWriter next(String path) throws IOException {
        requireNonNull(path, "path is null");
        if (!finished) {
            throw new IllegalStateException("only a finished writer hands its buffers to the next file; " + this.path
                    + " is " + (closed ? "closed without finishing" : "still open"));
        }
        if (handedOver) {
            throw new IllegalStateException("the buffers of " + this.path + " already went to another file");
        }
        handedOver = true;
        OutputStream out = store.create(path);
        return new LanceFileWriter(store, path, schema, version, options, topFields, out, this);
    }

    /** Appends a batch whose columns are the schema's top-level fields, in order. */
    public void write(VectorSchemaRoot batch) throws IOException {
        requireNonNull(batch, "batch is null");
        List<FieldVector> vectors = batch.getFieldVectors();
        if (vectors.size() != topFields.size()) {
            throw new IllegalArgumentException("batch has " + vectors.size() + " columns but the file schema has "
                    + topFields.size() + " top-level fields " + names() + " (" + path + ")");
        }
        for (int i = 0; i < vectors.size(); i++) {
            String name = vectors.get(i).getField().getName();
            if (!name.equals(topFields.get(i).name())) {
                throw new IllegalArgumentException("batch column " + i + " is '" + name + "' but the file schema"
                        + " expects '" + topFields.get(i).name() + "' there " + names() + " (" + path + ")");
            }
        }
        for (int i = 0; i < vectors.size(); i++) {
            append(i, vectors.get(i));
        }
    }

    /**
     * Appends rows to a single top-level field. Fields may end up with different row counts
     * (a non-rectangular file, used by sparse overlays).
     */
    public void writeColumn(int topLevelFieldId, FieldVector values) throws IOException {
        requireNonNull(values, "values is null");
        for (int i = 0; i < topFields.size(); i++) {
            if (topFields.get(i).id() == topLevelFieldId) {
                append(i, values);
                return;
            }
        }
        throw new IllegalArgumentException("field id " + topLevelFieldId + " is not a top-level field of the file"
                + " schema; top-level ids are " + ids() + " (" + path + ")");
    }

    private void append(int index, FieldVector vector) throws IOException {
        checkOpen();
        WriterField f = topFields.get(index);
        String mismatch = shapeMismatch(f, vector.getField(), f.name());
        if (mismatch != null) {
            throw new IllegalArgumentException("column '" + f.name() + "' (id " + f.id() + ") does not match the file"
                    + " schema: " + mismatch + " (" + path + ")");
        }
        int n = vector.getValueCount();
        try {
            if (version == FileVersion.V2_0) {
                legacy.get(index).append(vector, 0, n, legacyRows[index], sink);
                legacyRows[index] += n;
            } else {
                structural.get(index).append(vector, 0, n, sink);
            }
        } catch (IOException | RuntimeException e) {
            abort();
            throw e;
        }
    }

    /**
     * Checks the whole vector tree against the schema: the writer copies Arrow buffers as they
     * are, so a look-alike type (other unit, width, time zone) would store wrong bytes.
     *
     * @return what differs, or null
     */
    private static String shapeMismatch(WriterField expected, Field actual, String path) {
        ArrowType type = actual.getType();
        if (!expected.arrowType().equals(type)) {
            return "'" + path + "' is " + expected.arrowType() + " in the schema but the vector holds " + type;
        }
        List<Field> children = actual.getChildren();
        switch (expected.kind()) {
            case FSL -> {
                ArrowType item = children.isEmpty() ? null : children.get(0).getType();
                if (item == null
                        || WriterField.fixedWidth(item) != expected.byteWidth()
                        || item.getTypeID() == ArrowType.ArrowTypeID.Bool) {
                    return "'" + path + "' items are " + item + " in the vector, " + expected.byteWidth()
                            + "-byte values in the schema";
                }
            }
            case STRUCT, LIST, LARGE_LIST, MAP -> {
                if (children.size() != expected.children().size()) {
                    return "'" + path + "' has " + children.size() + " children in the vector, "
                            + expected.children().size() + " in the schema";
                }
                for (int i = 0; i < children.size(); i++) {
                    WriterField c = expected.children().get(i);
                    String m = shapeMismatch(c, children.get(i), path + "." + c.name());
                    if (m != null) {
                        return m;
                    }
                }
            }
            default -> {}
        }
        return null;
    }

    /** Writes the metadata and the footer and publishes the file. */
    public FileWriteSummary finish() throws IOException {
        checkOpen();
        try {
            return doFinish();
        } catch (IOException | RuntimeException e) {
            abort();
            throw e;
        }
    }

    private FileWriteSummary doFinish() throws IOException {
        List<ColumnPages> columns = new ArrayList<>();
        List<Integer> fieldIds = new ArrayList<>();
        long numRows = 0;
        if (version == FileVersion.V2_0) {
            for (V20ColumnWriter w : legacy) {
                w.finish(sink);
                w.collectColumns(columns);
                numRows = Math.max(numRows, w.rows());
            }
            for (WriterField f : topFields) {
                collectPreOrder(f, fieldIds);
            }
        } else {
            for (StructuralFieldWriter w : structural) {
                w.finish(sink);
                columns.addAll(w.columns());
                numRows = Math.max(numRows, w.rows());
                for (LeafPath p : w.leafPaths()) {
                    fieldIds.add(p.leaf().id());
                }
            }
        }
        // Global buffer 0: the schema and row count. Page buffers are 64-padded, so this starts aligned.
        long descriptorPos = sink.position();
        byte[] descriptor = FileDescriptor.newBuilder()
                .setSchema(schema.toProtoSchema())
                .setLength(numRows)
                .build()
                .toByteArray();
        sink.write(descriptor);

        long metadataStart = sink.position();
        long[] cmPos = new long[columns.size()];
        long[] cmLen = new long[columns.size()];
        for (int c = 0; c < columns.size(); c++) {
            byte[] cm = columns.get(c).toBytes();
            cmPos[c] = sink.position();
            cmLen[c] = cm.length;
            sink.write(cm);
        }
        long cmoStart = sink.position();
        ByteBuilder tables = new ByteBuilder(16 * columns.size() + 16 + 40);
        for (int c = 0; c < columns.size(); c++) {
            tables.putLong(cmPos[c]);
            tables.putLong(cmLen[c]);
        }
        long gboStart = cmoStart + tables.size();
        tables.putLong(descriptorPos);
        tables.putLong(descriptor.length);
        tables.putLong(metadataStart);
        tables.putLong(cmoStart);
        tables.putLong(gboStart);
        tables.putInt(1);
        tables.putInt(columns.size());
        tables.putShort(version.footerMajor());
        tables.putShort(version.footerMinor());
        tables.putBytes(MAGIC, 0, 4);
        sink.write(tables.array(), 0, tables.size());
        long size = sink.position();
        sink.close();
        finished = true;
        closed = true;

        int[] ids = fieldIds.stream().mapToInt(Integer::intValue).toArray();
        int[] indices = new int[ids.length];
        for (int i = 0; i < indices.length; i++) {
            indices[i] = i;
        }
        return new FileWriteSummary(path, numRows, size, ids, indices, version.major(), version.minor());
    }

    private static void collectPreOrder(WriterField f, List<Integer> out) {
        out.add(f.id());
        for (WriterField c : f.children()) {
            collectPreOrder(c, out);
        }
    }

    /** Abandons an unfinished file: nothing is left at the path. No-op after {@link #finish()}. */
    @Override
    public void close() {
        if (!closed) {
            abort();
        }
    }

    /**
     * The store publishes an object when its stream closes, so an abandoned file is closed and
     * then deleted; stores that can discard a stream (S3 aborts the upload) make this a no-op.
     */
    private void abort() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (sink.abortable()) {
                sink.abort();
            } else {
                try {
                    sink.close();
                } finally {
                    store.delete(path);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "could not remove the abandoned data file " + path
                            + "; delete it by hand (it is not referenced by any manifest)",
                    e);
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the writer of " + path + " is " + (finished ? "finished" : "closed"));
        }
    }

    private List<String> names() {
        return topFields.stream().map(WriterField::name).toList();
    }

    private List<Integer> ids() {
        return topFields.stream().map(WriterField::id).toList();
    }
}
