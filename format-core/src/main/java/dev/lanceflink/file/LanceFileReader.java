package dev.lanceflink.file;

import dev.lanceflink.encoding.compression.CompressedDataException;
import dev.lanceflink.encoding.v20.V20FieldReader;
import dev.lanceflink.encoding.v21.EncodingException;
import dev.lanceflink.encoding.v21.StructuralColumnReader;
import dev.lanceflink.encoding.v21.StructuralFieldReader;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.RangeReader;
import dev.lanceflink.schema.LanceField;
import dev.lanceflink.schema.LanceSchema;
import dev.lanceflink.schema.LanceSchemaException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import lance.file.v2.ColumnMetadata;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Reads a Lance data file of version 2.0, 2.1 or 2.2: metadata on open, then rows of top-level
 * fields on demand. Random access decodes only the pages and mini-block chunks (or full-zip
 * byte ranges) that hold the requested rows.
 *
 * <p>Columns are matched to fields by a pre-order walk of the file's schema (file-format.md
 * §5.2): in 2.1+ every leaf, primitive fixed-size list and packed struct owns one column; in 2.0
 * every field does (struct headers and list offsets included). Files may be non-rectangular
 * (overlays): each field has its own row count, {@link #numRows(int)}.
 *
 * <p>Instances are not thread-safe (opened pages cache their decoded metadata and the last
 * decoded chunk); open one reader per thread.
 */
public final class LanceFileReader implements AutoCloseable {
    private final RangeReader reader;
    private final boolean ownsReader;
    private final String path;
    private final BufferAllocator allocator;
    private final LanceFileMetadata metadata;
    private final LanceSchema schema;
    /** Top-level field id → index of its first column. */
    private final Map<Integer, Integer> firstColumn = new HashMap<>();
    private final Map<Integer, StructuralFieldReader> structuralReaders = new HashMap<>();
    /** Splits large copies of plain fixed-width pages over threads; stopped on close. */
    private final ParallelRangeCopier copier;

    private LanceFileReader(RangeReader reader, boolean ownsReader, String path, BufferAllocator allocator)
            throws IOException {
        this.reader = reader;
        this.ownsReader = ownsReader;
        this.path = path;
        this.allocator = allocator;
        this.metadata = LanceFileMetadata.read(reader, path);
        this.copier = new ParallelRangeCopier(reader, path);
        try {
            this.schema = LanceSchema.fromProto(metadata.descriptor().getSchema());
        } catch (LanceSchemaException e) {
            throw LanceFileFormatException.at(path, metadata.globalBufferOffset(0), "the schema in the file descriptor is invalid: "
                    + e.getMessage(), e);
        }
        int column = 0;
        for (LanceField f : schema.fields()) {
            firstColumn.put(f.id(), column);
            column += columnCount(f);
        }
        if (column != metadata.numColumns()) {
            throw LanceFileFormatException.at(path, metadata.fileSize() - 12, "the schema's fields need " + column
                    + " columns in a " + metadata.version().label() + " file but the footer lists " + metadata.numColumns());
        }
    }

    /** Opens {@code path} in {@code store}; the reader closes the object when closed. */
    public static LanceFileReader open(ObjectStore store, String path, BufferAllocator allocator) throws IOException {
        return open(store, path, 0, allocator);
    }

    /**
     * Opens a data file whose size the table metadata records ({@code DataFile.file_size_bytes}),
     * which spares remote stores a HEAD request; 0 means unknown (manifests of old writers).
     * A wrong size fails on open, naming the file, before any column is decoded.
     */
    public static LanceFileReader open(ObjectStore store, String path, long knownSize, BufferAllocator allocator)
            throws IOException {
        RangeReader r = store.openReader(path, knownSize);
        try {
            return new LanceFileReader(r, true, displayPath(store, path), allocator);
        } catch (IOException | RuntimeException e) {
            r.close();
            throw e;
        }
    }

    /** Opens a file behind an already open reader (not closed by this reader). */
    public static LanceFileReader open(RangeReader reader, String displayPath, BufferAllocator allocator) throws IOException {
        return new LanceFileReader(reader, false, displayPath, allocator);
    }

    private static String displayPath(ObjectStore store, String path) {
        String root = store.rootUri();
        return root.endsWith("/") ? root + path : root + "/" + path;
    }

    private int columnCount(LanceField f) {
        return metadata.version() == FileVersion.V2_0 ? V20FieldReader.columnCount(f) : StructuralFieldReader.columnCount(f);
    }

    public FileVersion version() {
        return metadata.version();
    }

    /** The file's schema, with the field ids stored in the file. */
    public LanceSchema schema() {
        return schema;
    }

    /** Container-level metadata: footer, column metadata, pages. */
    public LanceFileMetadata metadata() {
        return metadata;
    }

    public String path() {
        return path;
    }

    /**
     * Rows of the file: {@code FileDescriptor.length}, or the longest top-level field if that is
     * larger (a non-rectangular file's length is its longest field). List item columns of 2.0
     * files count items, not rows, and are therefore not considered.
     */
    public long numRows() {
        long n = metadata.descriptor().getLength();
        for (LanceField f : schema.fields()) {
            n = Math.max(n, numRows(f.id()));
        }
        return n;
    }

    /** Rows stored for one top-level field (files written for overlays may be non-rectangular). */
    public long numRows(int topLevelFieldId) {
        int c = requireFirstColumn(topLevelFieldId);
        if (metadata.version() == FileVersion.V2_0) {
            return metadata.columnRows(c);
        }
        return c < metadata.numColumns() ? metadata.columnRows(c) : 0;
    }

    private int requireFirstColumn(int topLevelFieldId) {
        Integer c = firstColumn.get(topLevelFieldId);
        if (c == null) {
            throw new IllegalArgumentException("Lance file " + path + " has no top-level field with id " + topLevelFieldId
                    + "; its top-level field ids are " + firstColumn.keySet());
        }
        return c;
    }

    private LanceField topLevelField(int id) {
        requireFirstColumn(id);
        return schema.requireField(id);
    }

    /** Reads rows {@code [start, end)} of a top-level field; the caller closes the vector. */
    public FieldVector readRange(int topLevelFieldId, long start, long end) throws IOException {
        LanceField f = topLevelField(topLevelFieldId);
        long rows = numRows(topLevelFieldId);
        if (start < 0 || end > rows || start > end) {
            throw new IndexOutOfBoundsException("rows [" + start + ", " + end + ") of field '" + f.name() + "' (id "
                    + topLevelFieldId + ") are outside its " + rows + " rows in " + path);
        }
        try {
            if (metadata.version() == FileVersion.V2_0) {
                return V20FieldReader.readRange(f, columnsOf(f), reader, start, end, allocator);
            }
            return structural(f).readRange(start, end, allocator);
        } catch (EncodingException | CompressedDataException | IllegalStateException e) {
            throw decodeError(f, e);
        }
    }

    /** Reads the listed rows (ascending) of a top-level field; the caller closes the vector. */
    public FieldVector take(int topLevelFieldId, long[] sortedRows) throws IOException {
        LanceField f = topLevelField(topLevelFieldId);
        long rows = numRows(topLevelFieldId);
        for (int i = 0; i < sortedRows.length; i++) {
            if (sortedRows[i] < 0 || sortedRows[i] >= rows) {
                throw new IndexOutOfBoundsException("row " + sortedRows[i] + " (position " + i + ") of field '" + f.name()
                        + "' is outside its " + rows + " rows in " + path);
            }
        }
        try {
            if (metadata.version() == FileVersion.V2_0) {
                return V20FieldReader.take(f, columnsOf(f), reader, sortedRows, allocator);
            }
            return structural(f).take(sortedRows, allocator);
        } catch (EncodingException | CompressedDataException | IllegalStateException e) {
            throw decodeError(f, e);
        }
    }

    /** Reads rows {@code [start, end)} of several top-level fields into one root; the caller closes it. */
    public VectorSchemaRoot readRange(int[] topLevelFieldIds, long start, long end) throws IOException {
        List<FieldVector> vectors = new ArrayList<>(topLevelFieldIds.length);
        try {
            for (int id : topLevelFieldIds) {
                vectors.add(readRange(id, start, end));
            }
        } catch (IOException | RuntimeException e) {
            for (FieldVector v : vectors) {
                v.close();
            }
            throw e;
        }
        return new VectorSchemaRoot(vectors);
    }

    private List<ColumnMetadata> columnsOf(LanceField f) {
        int c = firstColumn.get(f.id());
        return metadata.columns().subList(c, c + columnCount(f));
    }

    private StructuralFieldReader structural(LanceField f) throws IOException {
        StructuralFieldReader r = structuralReaders.get(f.id());
        if (r == null) {
            int first = firstColumn.get(f.id());
            r = new StructuralFieldReader(f, (leafOrdinal, leaf, shape, hasRep) -> {
                int column = first + leafOrdinal;
                PageInfo[] pages = metadata.pages(column);
                long[] firstRows = new long[pages.length];
                long[] rows = new long[pages.length];
                com.google.protobuf.Any[] encodings = new com.google.protobuf.Any[pages.length];
                for (int i = 0; i < pages.length; i++) {
                    firstRows[i] = pages[i].firstRow();
                    rows[i] = pages[i].numRows();
                    encodings[i] = pages[i].encoding();
                }
                return new StructuralColumnReader(firstRows, rows, encodings,
                        page -> new FilePageBuffers(reader, pages[page], path, copier), shape, hasRep,
                        "column " + column + " ('" + leaf.pathString() + "')");
            });
            structuralReaders.put(f.id(), r);
        }
        return r;
    }

    private LanceFileFormatException decodeError(LanceField f, RuntimeException e) {
        return new LanceFileFormatException("Lance file " + path + " (version " + metadata.version().label()
                + "): cannot decode field '" + f.pathString() + "' (id " + f.id() + ", " + f.logicalType() + ", first column "
                + firstColumn.get(f.id()) + "): " + e.getMessage(), e);
    }

    @Override
    public void close() throws IOException {
        structuralReaders.clear();
        copier.close();
        if (ownsReader) {
            reader.close();
        }
    }
}
