package dev.lanceflink.table;

import static java.util.Objects.requireNonNull;

import java.util.OptionalInt;

/**
 * The deletion vector reference of a fragment ({@code DeletionFile} in table.proto). The file
 * name is derived, never stored: {@code _deletions/<fragment id>-<read version>-<id>.<ext>}.
 *
 * @param readVersion table version the delete was computed against (part of the name)
 * @param id random unsigned 64-bit id (part of the name; rendered unsigned)
 * @param numDeletedRows number of deleted offsets; 0 means unknown to Lance, so always fill it
 */
public record DeletionFile(DeletionFileType type, long readVersion, long id, long numDeletedRows, OptionalInt baseId) {
    public static final String DELETIONS_DIR = "_deletions";

    public DeletionFile {
        requireNonNull(type, "type is null");
        requireNonNull(baseId, "baseId is null (use OptionalInt.empty())");
    }

    public DeletionFile(DeletionFileType type, long readVersion, long id, long numDeletedRows) {
        this(type, readVersion, id, numDeletedRows, OptionalInt.empty());
    }

    /** The file name, e.g. {@code 42-10-8723402384028.arrow}. */
    public String fileName(long fragmentId) {
        return Long.toUnsignedString(fragmentId) + "-" + Long.toUnsignedString(readVersion) + "-"
                + Long.toUnsignedString(id) + "." + type.extension();
    }

    /** The path relative to the dataset root, for a file under the root (no base id). */
    public String rootRelativePath(long fragmentId) {
        return DELETIONS_DIR + "/" + fileName(fragmentId);
    }
}
