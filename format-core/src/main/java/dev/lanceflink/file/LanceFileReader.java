package dev.lanceflink.file;

import com.google.protobuf.Any;
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
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Reads a Lance data file of version 2.0, 2.1 or 2.2: metadata on open, then rows of top-level
 * fields on demand. Random access decodes only the pages and mini-block chunks (or full-zip
 * byte ranges) that hold the requested rows.
 *
 * <p>A table reads a file through {@link #project}: the manifest's {@code DataFile.fields} /
 * {@code column_indices} ({@link ColumnMap}) say which column holds which table field, and the
 * table schema gives names and types. The schema stored in the file is only used to check that
 * a column holds the type the table expects; its field ids and names are not trusted (Lance's
 * file writer numbers fields from 0 whatever the table's ids, and columns are renamed or dropped
 * in the manifest without touching files).
 *
 * <p>The methods taking a field id read a file on its own, by the ids of the schema stored in
 * it: columns are matched to fields by a pre-order walk of that schema (file-format.md §5.2): in
 * 2.1+ every leaf, primitive fixed-size list and packed struct owns one column; in 2.0 every
 * field does (struct headers and list offsets included). Files may be non-rectangular
 * (overlays): each field has its own row count, {@link #numRows(FileField)}.
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
    /** Top-level field id (of the file's own schema) → index of its first column. */
    private final Map<Integer, Integer> firstColumn = new HashMap<>();
    /** The node of the file's own schema that owns each column (null for a column no field owns). */
    private final LanceField[] columnOwners;
    /** The file's own field ids and their columns, as a writer that keeps table ids would list them. */
    private final List<Integer> embeddedIds;

    private final List<Integer> embeddedIdColumns;
    private ColumnMap embeddedColumns;
    private final Map<Integer, FileField> embeddedFields = new HashMap<>();
    private final Map<FileField, StructuralFieldReader> structuralReaders = new HashMap<>();
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
            throw LanceFileFormatException.at(
                    path,
                    metadata.globalBufferOffset(0),
                    "the schema in the file descriptor is invalid: " + e.getMessage(),
                    e);
        }
        int column = 0;
        for (LanceField f : schema.fields()) {
            firstColumn.put(f.id(), column);
            column += columnCount(f);
        }
        if (column != metadata.numColumns()) {
            throw LanceFileFormatException.at(
                    path,
                    metadata.fileSize() - 12,
                    "the schema's fields need " + column + " columns in a "
                            + metadata.version().label() + " file but the footer lists " + metadata.numColumns());
        }
        this.columnOwners = new LanceField[metadata.numColumns()];
        this.embeddedIds = new ArrayList<>();
        this.embeddedIdColumns = new ArrayList<>();
        int next = 0;
        for (LanceField f : schema.fields()) {
            next = assignColumns(f, next, embeddedIds, embeddedIdColumns);
        }
    }

    /** Records the columns of {@code f}'s subtree in the file's own schema, from {@code column} on. */
    private int assignColumns(LanceField f, int column, List<Integer> ids, List<Integer> cols) {
        boolean v20 = metadata.version() == FileVersion.V2_0;
        if (ownsColumnAlone(f) || v20) {
            columnOwners[column] = f;
            ids.add(f.id());
            cols.add(column);
            column++;
            if (ownsColumnAlone(f)) {
                return column;
            }
        }
        for (LanceField c : f.children()) {
            column = assignColumns(c, column, ids, cols);
        }
        return column;
    }

    /** Whether {@code f} is stored in one column with no columns for its descendants (every version). */
    private static boolean ownsColumnAlone(LanceField f) {
        return f.isLeaf() || f.isPackedStruct();
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
        return openOwning(store.openReader(path, knownSize), displayPath(store, path), allocator);
    }

    /** Opens a file behind {@code reader}, which the returned reader closes when closed (or when it fails to open). */
    public static LanceFileReader openOwning(RangeReader reader, String displayPath, BufferAllocator allocator)
            throws IOException {
        try {
            return new LanceFileReader(reader, true, displayPath, allocator);
        } catch (IOException | RuntimeException e) {
            reader.close();
            throw e;
        }
    }

    /** Opens a file behind an already open reader (not closed by this reader). */
    public static LanceFileReader open(RangeReader reader, String displayPath, BufferAllocator allocator)
            throws IOException {
        return new LanceFileReader(reader, false, displayPath, allocator);
    }

    private static String displayPath(ObjectStore store, String path) {
        String root = store.rootUri();
        return root.endsWith("/") ? root + path : root + "/" + path;
    }

    private int columnCount(LanceField f) {
        return metadata.version() == FileVersion.V2_0
                ? V20FieldReader.columnCount(f)
                : StructuralFieldReader.columnCount(f);
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

    /**
     * Rows stored for one top-level field of the file's own schema (files written for overlays
     * may be non-rectangular).
     */
    public long numRows(int topLevelFieldId) {
        requireFirstColumn(topLevelFieldId);
        FileField f = embeddedField(topLevelFieldId);
        return f == null ? 0 : numRows(f);
    }

    /** Rows stored for a projected field: those of its first column. */
    public long numRows(FileField field) {
        return metadata.columnRows(field.firstColumn());
    }

    private int requireFirstColumn(int topLevelFieldId) {
        Integer c = firstColumn.get(topLevelFieldId);
        if (c == null) {
            throw new IllegalArgumentException(
                    "Lance file " + path + " has no top-level field with id " + topLevelFieldId
                            + " in the schema stored in it; its top-level field ids are " + firstColumn.keySet());
        }
        return c;
    }

    /** A top-level field of the file's own schema with the columns it owns; null if it owns none. */
    private FileField embeddedField(int id) {
        FileField f = embeddedFields.get(id);
        if (f == null && !embeddedFields.containsKey(id)) {
            try {
                f = project(schema.requireField(id), embeddedColumns());
            } catch (LanceFileFormatException e) {
                throw new IllegalArgumentException(e.getMessage(), e);
            }
            embeddedFields.put(id, f);
        }
        return f;
    }

    /**
     * The file's own field ids and their columns (2.0: every field; 2.1+: leaves and packed
     * structs). Only for files whose data file entry has no column indices (legacy writers that
     * stored the table's ids in the file); tables otherwise map columns with the manifest's
     * {@code DataFile} entry.
     */
    public ColumnMap embeddedColumns() throws LanceFileFormatException {
        if (embeddedColumns == null) {
            try {
                embeddedColumns = ColumnMap.of(
                        embeddedIds.stream().mapToInt(Integer::intValue).toArray(),
                        embeddedIdColumns.stream().mapToInt(Integer::intValue).toArray());
            } catch (IllegalArgumentException e) {
                throw new LanceFileFormatException(
                        "Lance file " + path + ": the field ids of the schema stored in it"
                                + " cannot locate its columns: " + e.getMessage(),
                        e);
            }
        }
        return embeddedColumns;
    }

    /**
     * A top-level table field as this file stores it: {@code tableField} (from the table schema:
     * its names, types and ids) restricted to the nodes {@code columns} places in this file, each
     * column-owning node with its column. Nodes the map does not list are left out (dropped
     * columns, struct leaves the file does not carry); null if the file holds none of the field.
     *
     * @throws LanceFileFormatException if the map names a column the file does not have, a leaf
     *     without a column, a 2.0 struct or list without its own column, or a column whose stored
     *     type is not the table field's type
     */
    public FileField project(LanceField tableField, ColumnMap columns) throws LanceFileFormatException {
        List<Integer> out = new ArrayList<>();
        LanceField p = projectNode(tableField, columns, out);
        return p == null
                ? null
                : new FileField(p, out.stream().mapToInt(Integer::intValue).toArray());
    }

    private LanceField projectNode(LanceField f, ColumnMap columns, List<Integer> out) throws LanceFileFormatException {
        if (ownsColumnAlone(f)) {
            int c = columns.column(f.id());
            if (c == ColumnMap.ABSENT) {
                if (f.preOrder().anyMatch(x -> columns.contains(x.id()))) {
                    // A packed struct is one column, listed under the struct's id: reading it as
                    // absent would turn its values into NULLs.
                    throw new LanceFileFormatException("Lance file " + path + ": the data file lists children of the"
                            + " packed struct '" + f.pathString() + "' (id " + f.id() + ") but not the struct, whose"
                            + " single column holds them");
                }
                return null;
            }
            out.add(checkColumn(f, c, true));
            return f;
        }
        // 2.0 stores a struct header / list offsets column before the children's columns.
        boolean ownColumn = metadata.version() == FileVersion.V2_0;
        int mark = out.size();
        if (ownColumn) {
            out.add(-1);
        }
        List<LanceField> kept = new ArrayList<>();
        boolean all = true;
        for (LanceField c : f.children()) {
            LanceField p = projectNode(c, columns, out);
            if (p != null) {
                kept.add(p);
            }
            all &= p == c;
        }
        if (kept.isEmpty()) {
            if (ownColumn) {
                out.remove(mark);
            }
            return null;
        }
        if (ownColumn) {
            out.set(mark, checkColumn(f, columns.column(f.id()), false));
        }
        if (all) {
            return f;
        }
        LanceField.Builder b = f.toBuilder().clearChildren();
        kept.forEach(b::addChild);
        return b.build();
    }

    /** Checks that column {@code c} exists and holds {@code f}'s type; returns {@code c}. */
    private int checkColumn(LanceField f, int c, boolean wholeSubtree) throws LanceFileFormatException {
        String what = "the table's field '" + f.pathString() + "' (id " + f.id() + ", " + f.logicalType() + ")";
        if (c == ColumnMap.ABSENT || c == ColumnMap.NO_COLUMN) {
            throw new LanceFileFormatException("Lance file " + path + " (version "
                    + metadata.version().label() + "): "
                    + what + " has " + (c == ColumnMap.ABSENT ? "no entry" : "column index -1") + " in the data file's"
                    + " fields/column_indices, but this file version stores it in a column of its own");
        }
        if (c >= metadata.numColumns()) {
            throw new LanceFileFormatException("Lance file " + path + ": the data file's column_indices place " + what
                    + " in column " + c + ", but the file has " + metadata.numColumns() + " columns");
        }
        LanceField stored = columnOwners[c];
        if (stored != null && !sameStoredType(f.toArrow(), stored.toArrow(), wholeSubtree)) {
            throw new LanceFileFormatException("Lance file " + path + ": the data file's column_indices place " + what
                    + " in column " + c + ", which the file's own schema describes as '" + stored.pathString() + "' ("
                    + stored.logicalType() + "); a column must hold the type of the table field it is listed for");
        }
        return c;
    }

    /** Same Arrow type (and, for a whole subtree, same child types); names and nullability may differ. */
    private static boolean sameStoredType(Field table, Field stored, boolean wholeSubtree) {
        if (!table.getType().equals(stored.getType())) {
            return false;
        }
        if (!wholeSubtree) {
            return true;
        }
        List<Field> a = table.getChildren();
        List<Field> b = stored.getChildren();
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (!sameStoredType(a.get(i), b.get(i), true)) {
                return false;
            }
        }
        return true;
    }

    private FileField topLevelField(int id) {
        requireFirstColumn(id);
        FileField f = embeddedField(id);
        if (f == null) {
            throw new IllegalArgumentException("field id " + id + " of Lance file " + path + " owns no column");
        }
        return f;
    }

    /**
     * Reads rows {@code [start, end)} of a top-level field of the file's own schema; the caller
     * closes the vector.
     */
    public FieldVector readRange(int topLevelFieldId, long start, long end) throws IOException {
        return readRange(topLevelField(topLevelFieldId), start, end);
    }

    /**
     * Reads the listed rows (ascending) of a top-level field of the file's own schema; the caller
     * closes the vector.
     */
    public FieldVector take(int topLevelFieldId, long[] sortedRows) throws IOException {
        return take(topLevelField(topLevelFieldId), sortedRows);
    }

    /**
     * Reads rows {@code [start, end)} of a projected field ({@link #project}); the vector is
     * typed and named as {@link FileField#field()}. The caller closes it.
     */
    public FieldVector readRange(FileField field, long start, long end) throws IOException {
        LanceField f = field.field();
        long rows = numRows(field);
        if (start < 0 || end > rows || start > end) {
            throw new IndexOutOfBoundsException("rows [" + start + ", " + end + ") of field '" + f.name() + "' (id "
                    + f.id() + ") are outside its " + rows + " rows in " + path);
        }
        try {
            if (metadata.version() == FileVersion.V2_0) {
                return V20FieldReader.readRange(f, columnsOf(field), reader, start, end, allocator);
            }
            return structural(field).readRange(start, end, allocator);
        } catch (EncodingException | CompressedDataException | IllegalStateException e) {
            throw decodeError(field, e);
        }
    }

    /** Reads the listed rows (ascending) of a projected field ({@link #project}); the caller closes the vector. */
    public FieldVector take(FileField field, long[] sortedRows) throws IOException {
        LanceField f = field.field();
        long rows = numRows(field);
        for (int i = 0; i < sortedRows.length; i++) {
            if (sortedRows[i] < 0 || sortedRows[i] >= rows) {
                throw new IndexOutOfBoundsException("row " + sortedRows[i] + " (position " + i + ") of field '"
                        + f.name() + "' is outside its " + rows + " rows in " + path);
            }
        }
        try {
            if (metadata.version() == FileVersion.V2_0) {
                return V20FieldReader.take(f, columnsOf(field), reader, sortedRows, allocator);
            }
            return structural(field).take(sortedRows, allocator);
        } catch (EncodingException | CompressedDataException | IllegalStateException e) {
            throw decodeError(field, e);
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

    private List<ColumnMetadata> columnsOf(FileField f) {
        List<ColumnMetadata> out = new ArrayList<>(f.columnCount());
        for (int i = 0; i < f.columnCount(); i++) {
            out.add(metadata.column(f.column(i)));
        }
        return out;
    }

    private StructuralFieldReader structural(FileField field) throws IOException {
        StructuralFieldReader r = structuralReaders.get(field);
        if (r == null) {
            r = new StructuralFieldReader(field.field(), (leafOrdinal, leaf, shape, hasRep) -> {
                int column = field.column(leafOrdinal);
                PageInfo[] pages = metadata.pages(column);
                long[] firstRows = new long[pages.length];
                long[] rows = new long[pages.length];
                Any[] encodings = new Any[pages.length];
                for (int i = 0; i < pages.length; i++) {
                    firstRows[i] = pages[i].firstRow();
                    rows[i] = pages[i].numRows();
                    encodings[i] = pages[i].encoding();
                }
                return new StructuralColumnReader(
                        firstRows,
                        rows,
                        encodings,
                        page -> new FilePageBuffers(reader, pages[page], path, copier),
                        shape,
                        hasRep,
                        "column " + column + " ('" + leaf.pathString() + "')");
            });
            structuralReaders.put(field, r);
        }
        return r;
    }

    private LanceFileFormatException decodeError(FileField field, RuntimeException e) {
        LanceField f = field.field();
        return new LanceFileFormatException(
                "Lance file " + path + " (version " + metadata.version().label()
                        + "): cannot decode field '" + f.pathString() + "' (id " + f.id() + ", " + f.logicalType()
                        + ", first column "
                        + field.firstColumn() + "): " + e.getMessage(),
                e);
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
