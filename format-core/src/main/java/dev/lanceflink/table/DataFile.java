package dev.lanceflink.table;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.file.ColumnMap;
import dev.lanceflink.file.LanceFileReader;
import java.io.IOException;
import java.util.Arrays;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.IntPredicate;

/**
 * One data file of a fragment ({@code DataFile} in table.proto).
 *
 * <p>{@code path} is only the file name, relative to the {@code data/} directory of its base
 * (the dataset root unless {@code baseId} is set). {@code fields[i]} is a field id stored in the
 * file ({@link #TOMBSTONE} = the column was superseded by a newer file and must be ignored), and
 * {@code columnIndices[i]} its column in the file (-1 = no own column). Arrays are copied in and
 * out; use {@link #fieldId(int)} / {@link #columnIndex(int)} in loops.
 *
 * @param fileSizeBytes exact size; 0 means unknown (Lance then re-derives it), so always fill it
 */
public record DataFile(
        String path,
        int[] fields,
        int[] columnIndices,
        int fileMajorVersion,
        int fileMinorVersion,
        long fileSizeBytes,
        OptionalInt baseId) {

    /** Field id marking a superseded column. */
    public static final int TOMBSTONE = -2;

    public DataFile {
        requireNonNull(path, "path is null");
        requireNonNull(baseId, "baseId is null (use OptionalInt.empty())");
        fields = fields.clone();
        columnIndices = columnIndices.clone();
    }

    /** A file under the dataset root's {@code data/} directory. */
    public DataFile(
            String path,
            int[] fields,
            int[] columnIndices,
            int fileMajorVersion,
            int fileMinorVersion,
            long fileSizeBytes) {
        this(path, fields, columnIndices, fileMajorVersion, fileMinorVersion, fileSizeBytes, OptionalInt.empty());
    }

    @Override
    public int[] fields() {
        return fields.clone();
    }

    @Override
    public int[] columnIndices() {
        return columnIndices.clone();
    }

    public int fieldCount() {
        return fields.length;
    }

    public int fieldId(int i) {
        return fields[i];
    }

    public int columnIndex(int i) {
        return columnIndices[i];
    }

    /** Position of {@code fieldId} in {@link #fields()}, or -1. */
    public int positionOf(int fieldId) {
        for (int i = 0; i < fields.length; i++) {
            if (fields[i] == fieldId) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Which column of the file holds which table field, as {@code fields} / {@code column_indices}
     * list it: the mapping every read of a table must use (the ids stored inside a file are not
     * the table's when Lance's file writer wrote it). Empty if the entry lists fields but no
     * column indices, as writers before column indices existed did; their files carry the table's
     * field ids.
     *
     * @throws CorruptTableException if a field is listed twice or without a column index
     */
    public Optional<ColumnMap> columnMap() throws CorruptTableException {
        if (columnIndices.length == 0 && fields.length > 0) {
            return Optional.empty();
        }
        try {
            return Optional.of(ColumnMap.of(fields, columnIndices));
        } catch (IllegalArgumentException e) {
            throw new CorruptTableException("Data file " + path + ": " + e.getMessage(), e);
        }
    }

    /**
     * Where this file (base or overlay) holds which table field, read through {@code reader} of
     * this file: the entry's {@link #columnMap()}; for entries of old writers without column
     * indices, the ids stored in the file (those writers stored the table's).
     */
    public ColumnMap columnMap(LanceFileReader reader) throws IOException {
        Optional<ColumnMap> listed = columnMap();
        return listed.isPresent() ? listed.get() : reader.embeddedColumns();
    }

    /** True if every field slot is a tombstone; such files are dropped when a manifest is built. */
    public boolean isFullyTombstoned() {
        for (int f : fields) {
            if (f != TOMBSTONE) {
                return false;
            }
        }
        return true;
    }

    /** A copy with the given field ids replaced by {@link #TOMBSTONE}. */
    public DataFile withTombstoned(IntPredicate fieldIds) {
        int[] f = fields.clone();
        for (int i = 0; i < f.length; i++) {
            if (f[i] != TOMBSTONE && fieldIds.test(f[i])) {
                f[i] = TOMBSTONE;
            }
        }
        return new DataFile(path, f, columnIndices, fileMajorVersion, fileMinorVersion, fileSizeBytes, baseId);
    }

    /** The path relative to the dataset root when the file lives under the root ({@code data/<path>}). */
    public String rootRelativePath() {
        return "data/" + path;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DataFile d
                && path.equals(d.path)
                && Arrays.equals(fields, d.fields)
                && Arrays.equals(columnIndices, d.columnIndices)
                && fileMajorVersion == d.fileMajorVersion
                && fileMinorVersion == d.fileMinorVersion
                && fileSizeBytes == d.fileSizeBytes
                && baseId.equals(d.baseId);
    }

    @Override
    public int hashCode() {
        return path.hashCode() * 31 + Arrays.hashCode(fields);
    }

    @Override
    public String toString() {
        return "DataFile[" + path + ", fields=" + Arrays.toString(fields) + ", columns="
                + Arrays.toString(columnIndices)
                + ", v" + fileMajorVersion + "." + fileMinorVersion + ", " + fileSizeBytes + " bytes"
                + (baseId.isPresent() ? ", base " + baseId.getAsInt() : "") + "]";
    }
}
