package dev.lanceflink.file.writer;

/**
 * Tuning of {@link LanceFileWriter}.
 *
 * @param targetPageBytes a column's buffered data is cut into a page once it reaches about this
 *     many bytes (Lance: 8 MiB). Memory use is roughly this times the number of columns.
 * @param rowsPerSlice rows shredded at a time before the page size is checked again; bounds how
 *     far a page can overshoot {@code targetPageBytes} when batches are large
 * @param fullZipMinValueBytes 2.1+: pages whose largest value has at least this many bytes use
 *     the full-zip layout instead of mini-block (Lance: 256)
 * @param bitPacking 2.1+: bit-pack 8/16/32/64-bit mini-block values ({@code inline_bitpacking})
 *     when that makes the page smaller, as Lance does; off = plain values (faster, larger files)
 * @param stringCompression 2.1+: dictionary-encode low-cardinality string/binary pages and
 *     FSST-compress other utf8 pages under Lance's rules (see {@code StringPageCompressor}), as
 *     Lance does by default; off = plain {@code variable} strings (faster, larger files)
 */
public record FileWriterOptions(
        long targetPageBytes,
        int rowsPerSlice,
        int fullZipMinValueBytes,
        boolean bitPacking,
        boolean stringCompression) {

    public static final long DEFAULT_TARGET_PAGE_BYTES = 8L * 1024 * 1024;
    /** Pages are assembled in Java arrays; 512 MiB keeps every page buffer well below 2 GiB. */
    public static final long MAX_TARGET_PAGE_BYTES = 512L * 1024 * 1024;

    public static final int DEFAULT_ROWS_PER_SLICE = 8192;
    public static final int DEFAULT_FULL_ZIP_MIN_VALUE_BYTES = 256;

    public FileWriterOptions {
        if (targetPageBytes < 1 || targetPageBytes > MAX_TARGET_PAGE_BYTES) {
            throw new IllegalArgumentException("targetPageBytes must be in [1, " + MAX_TARGET_PAGE_BYTES
                    + "] (a page is assembled in memory), got " + targetPageBytes);
        }
        if (rowsPerSlice < 1) {
            throw new IllegalArgumentException("rowsPerSlice must be positive, got " + rowsPerSlice);
        }
        if (fullZipMinValueBytes < 1 || fullZipMinValueBytes > 16 * 1024) {
            throw new IllegalArgumentException("fullZipMinValueBytes must be in [1, 16384] (mini-block chunks hold"
                    + " at most 32 KiB in file version 2.1), got " + fullZipMinValueBytes);
        }
    }

    /** Lance's defaults: 8 MiB pages, full-zip from 256-byte values, bit-packed integers, dictionaries and FSST. */
    public static FileWriterOptions defaults() {
        return new FileWriterOptions(
                DEFAULT_TARGET_PAGE_BYTES, DEFAULT_ROWS_PER_SLICE, DEFAULT_FULL_ZIP_MIN_VALUE_BYTES, true, true);
    }

    public FileWriterOptions withTargetPageBytes(long bytes) {
        return new FileWriterOptions(bytes, rowsPerSlice, fullZipMinValueBytes, bitPacking, stringCompression);
    }

    public FileWriterOptions withRowsPerSlice(int rows) {
        return new FileWriterOptions(targetPageBytes, rows, fullZipMinValueBytes, bitPacking, stringCompression);
    }

    public FileWriterOptions withFullZipMinValueBytes(int bytes) {
        return new FileWriterOptions(targetPageBytes, rowsPerSlice, bytes, bitPacking, stringCompression);
    }

    public FileWriterOptions withStringCompression(boolean enabled) {
        return new FileWriterOptions(targetPageBytes, rowsPerSlice, fullZipMinValueBytes, bitPacking, enabled);
    }

    public FileWriterOptions withBitPacking(boolean enabled) {
        return new FileWriterOptions(targetPageBytes, rowsPerSlice, fullZipMinValueBytes, enabled, stringCompression);
    }
}
