package dev.lanceflink.file;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HexFormat;

/**
 * The 40-byte footer that ends every Lance v2 data file (file-format.md §2):
 * {@code u64 column-metadata start, u64 CMO table offset, u64 GBO table offset,
 * u32 global buffer count, u32 column count, u16 major, u16 minor, "LANC"}.
 */
public record FileFooter(
        long columnMetadataStart,
        long columnMetadataOffsetsStart,
        long globalBufferOffsetsStart,
        int numGlobalBuffers,
        int numColumns,
        int majorVersion,
        int minorVersion) {

    /** Size of the footer in bytes. */
    public static final int SIZE = 40;

    /** The magic bytes "LANC" that end the file. */
    private static final int MAGIC = 0x434E414C; // "LANC" read as little-endian u32

    /**
     * Parses and validates a footer.
     *
     * @param footer exactly the last 40 bytes of the file (position 0 .. 40)
     * @param fileSize size of the file, to validate the offsets
     * @param path the file's path, for messages
     */
    public static FileFooter parse(ByteBuffer footer, long fileSize, String path) throws LanceFileFormatException {
        long footerStart = fileSize - SIZE;
        if (footer.remaining() < SIZE) {
            throw LanceFileFormatException.at(
                    path,
                    0,
                    "the file has " + fileSize
                            + " bytes, fewer than the 40-byte footer of a Lance v2 data file; the object is truncated or not a Lance file");
        }
        ByteBuffer b = footer.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        int p = b.position();
        int magic = b.getInt(p + 36);
        if (magic != MAGIC) {
            throw LanceFileFormatException.at(
                    path,
                    footerStart + 36,
                    "bad magic "
                            + hex(b, p + 36, 4) + ", expected 4c 41 4e 43 (\"LANC\"); the object is truncated, "
                            + "was overwritten or is not a Lance data file");
        }
        FileFooter f = new FileFooter(
                b.getLong(p),
                b.getLong(p + 8),
                b.getLong(p + 16),
                b.getInt(p + 24),
                b.getInt(p + 28),
                Short.toUnsignedInt(b.getShort(p + 32)),
                Short.toUnsignedInt(b.getShort(p + 34)));
        f.validate(fileSize, path);
        return f;
    }

    private void validate(long fileSize, String path) throws LanceFileFormatException {
        long footerStart = fileSize - SIZE;
        if (majorVersion == 0 && (minorVersion == 1 || minorVersion == 2)) {
            throw LanceFileFormatException.at(
                    path,
                    footerStart + 32,
                    "footer version " + majorVersion + "."
                            + minorVersion
                            + " is the legacy (v1) Lance file format, which this reader does not support;"
                            + " rewrite the dataset with file version 2.0 or later");
        }
        if (numColumns < 0 || numGlobalBuffers < 1 || numGlobalBuffers > (1 << 24)) {
            throw LanceFileFormatException.at(
                    path,
                    footerStart + 24,
                    "implausible footer counts: "
                            + Integer.toUnsignedString(numGlobalBuffers) + " global buffers (at least 1, the schema), "
                            + Integer.toUnsignedString(numColumns) + " columns");
        }
        if (columnMetadataStart < 0 || columnMetadataStart > columnMetadataOffsetsStart) {
            throw LanceFileFormatException.at(
                    path,
                    footerStart,
                    "column metadata start " + columnMetadataStart
                            + " is not before the column-metadata offset table at " + columnMetadataOffsetsStart);
        }
        long cmoEnd = columnMetadataOffsetsStart + 16L * numColumns;
        if (columnMetadataOffsetsStart < 0 || cmoEnd > footerStart) {
            throw LanceFileFormatException.at(
                    path,
                    footerStart + 8,
                    "column-metadata offset table [" + columnMetadataOffsetsStart + ", " + cmoEnd
                            + ") does not fit before the footer at " + footerStart);
        }
        long gboEnd = globalBufferOffsetsStart + 16L * numGlobalBuffers;
        if (globalBufferOffsetsStart < 0 || gboEnd > footerStart) {
            throw LanceFileFormatException.at(
                    path,
                    footerStart + 16,
                    "global-buffer offset table [" + globalBufferOffsetsStart + ", " + gboEnd
                            + ") does not fit before the footer at " + footerStart);
        }
    }

    private static String hex(ByteBuffer b, int at, int n) {
        byte[] bytes = new byte[n];
        b.get(at, bytes);
        return HexFormat.ofDelimiter(" ").formatHex(bytes);
    }
}
