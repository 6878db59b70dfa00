package dev.lanceflink.file.writer;

import java.util.Arrays;

/**
 * What a finished data file holds, in the terms the manifest's {@code DataFile} needs.
 *
 * @param path the path the file was written to (relative to the store root)
 * @param numRows rows of the file ({@code FileDescriptor.length}; the longest column)
 * @param sizeBytes exact file size ({@code DataFile.file_size_bytes})
 * @param fieldIds {@code DataFile.fields}: 2.0 every field in pre-order; 2.1+ leaf fields only
 * @param columnIndices {@code DataFile.column_indices}, parallel to {@code fieldIds}
 * @param fileMajorVersion {@code DataFile.file_major_version} (2 for 2.0 too)
 * @param fileMinorVersion {@code DataFile.file_minor_version}
 */
public record FileWriteSummary(
        String path,
        long numRows,
        long sizeBytes,
        int[] fieldIds,
        int[] columnIndices,
        int fileMajorVersion,
        int fileMinorVersion) {

    public FileWriteSummary {
        fieldIds = fieldIds.clone();
        columnIndices = columnIndices.clone();
    }

    @Override
    public int[] fieldIds() {
        return fieldIds.clone();
    }

    @Override
    public int[] columnIndices() {
        return columnIndices.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FileWriteSummary s
                && path.equals(s.path)
                && numRows == s.numRows
                && sizeBytes == s.sizeBytes
                && Arrays.equals(fieldIds, s.fieldIds)
                && Arrays.equals(columnIndices, s.columnIndices)
                && fileMajorVersion == s.fileMajorVersion
                && fileMinorVersion == s.fileMinorVersion;
    }

    @Override
    public int hashCode() {
        return 31 * (31 * path.hashCode() + Long.hashCode(numRows)) + Arrays.hashCode(fieldIds);
    }

    @Override
    public String toString() {
        return "FileWriteSummary[path=" + path + ", numRows=" + numRows + ", sizeBytes=" + sizeBytes
                + ", fieldIds=" + Arrays.toString(fieldIds) + ", columnIndices=" + Arrays.toString(columnIndices)
                + ", version=" + fileMajorVersion + "." + fileMinorVersion + "]";
    }
}
