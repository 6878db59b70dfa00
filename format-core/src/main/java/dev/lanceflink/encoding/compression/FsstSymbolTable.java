package dev.lanceflink.encoding.compression;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * An FSST (Fast Static Symbol Table) table in the exact 2312-byte form Lance stores in
 * {@code Fsst.symbol_table} (compression.md §3.7), with decompression and compression.
 *
 * <pre>
 * offset 0     u64 LE header: bits 32–63 "FSST" magic 0x46535354; bit 24 = strings are compressed;
 *              bits 16–23 suffix limit, bits 8–15 terminator (encoder hints, unused by decoders);
 *              bits 0–7 m = number of symbols (0 … 255)
 * offset 8     m × 8 bytes: symbol c, its first byte lowest, unused bytes 0
 * offset 8+8m  m × 1 byte: length of symbol c (1 … 8)
 * rest         zero up to 2312 bytes
 * </pre>
 *
 * A compressed string is a sequence of codes: code {@code c < m} stands for the first
 * {@code len[c]} bytes of symbol c; code 255 is an escape, the following byte is literal. When the
 * "compressed" bit is clear the strings are stored as is; Lance writes such tables for pages whose
 * string bytes are below {@value #MIN_COMPRESSED_INPUT_BYTES} bytes even though the page is encoded
 * as {@code fsst}.
 *
 * <p>Instances are immutable and thread-safe; build them with {@link #parse}, {@link #train} or
 * {@link #uncompressed()}.
 */
public final class FsstSymbolTable {
    /** Size of the serialized table Lance stores. */
    public static final int SERIALIZED_SIZE = 8 + 256 * 8 + 256;
    /** Lance compresses only when the page's string bytes reach this size (32 KiB). */
    public static final int MIN_COMPRESSED_INPUT_BYTES = 32 * 1024;
    /** Code that escapes one literal byte. */
    public static final int ESCAPE = 255;

    private static final String SCHEME = "fsst";
    private static final long MAGIC = 0x46535354L;
    private static final VarHandle LONG_LE =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private final boolean compressed;
    private final int symbolCount;
    /** Symbol bytes of each code, first byte lowest; codes ≥ m hold 0. */
    private final long[] symbols;
    /** Length of each code's symbol; 0 for codes ≥ m (decoding such a code is an error). */
    private final byte[] lengths;

    private final int suffixLimit;
    private final int terminator;
    /** Longest-match index for compression; built lazily, null for tables that are never used to compress. */
    private volatile FsstMatcher matcher;

    FsstSymbolTable(
            boolean compressed, int symbolCount, long[] symbols, byte[] lengths, int suffixLimit, int terminator) {
        this.compressed = compressed;
        this.symbolCount = symbolCount;
        this.symbols = symbols;
        this.lengths = lengths;
        this.suffixLimit = suffixLimit;
        this.terminator = terminator;
    }

    // ---------------------------------------------------------------- construction

    /** The table Lance writes when it decides not to compress: compressed bit 0, no symbols. */
    public static FsstSymbolTable uncompressed() {
        return new FsstSymbolTable(false, 0, new long[256], new byte[256], 0, 0);
    }

    /** Parses the serialized table held in {@code table[offset, offset+length)}; {@code length} must be 2312. */
    public static FsstSymbolTable parse(byte[] table, int offset, int length) {
        return parse(ByteBuffer.wrap(table), offset, length);
    }

    /** Parses the serialized table at {@code [offset, offset+length)} of {@code table}; {@code length} must be 2312. */
    public static FsstSymbolTable parse(ByteBuffer table, int offset, int length) {
        if (length != SERIALIZED_SIZE) {
            throw new CompressedDataException(
                    SCHEME + ": symbol_table has " + length + " bytes, expected exactly " + SERIALIZED_SIZE);
        }
        Buffers.checkRange(SCHEME, "symbol_table", table, offset, length);
        ByteBuffer in = Buffers.le(table);
        long header = in.getLong(offset);
        if ((header >>> 32) != MAGIC) {
            throw new CompressedDataException(SCHEME + ": symbol_table header 0x" + Long.toHexString(header)
                    + " lacks the FSST magic 0x46535354 in bits 32-63 (bytes 4-7 should be 54 53 53 46)");
        }
        boolean compressed = (header & (1L << 24)) != 0;
        int m = (int) (header & 0xFF);
        if (m > 255) {
            throw new CompressedDataException(
                    SCHEME + ": symbol_table declares " + m + " symbols, at most 255 allowed");
        }
        long[] symbols = new long[256];
        byte[] lengths = new byte[256];
        for (int c = 0; c < m; c++) {
            symbols[c] = in.getLong(offset + 8 + 8 * c);
            int len = in.get(offset + 8 + 8 * m + c) & 0xFF;
            if (len < 1 || len > 8) {
                throw new CompressedDataException(SCHEME + ": symbol " + c + " has length " + len + " (byte "
                        + (8 + 8 * m + c) + " of symbol_table), must be 1 … 8");
            }
            lengths[c] = (byte) len;
            if (len < 8) {
                symbols[c] &= (1L << (8 * len)) - 1;
            }
        }
        return new FsstSymbolTable(
                compressed, m, symbols, lengths, (int) (header >>> 16) & 0xFF, (int) (header >>> 8) & 0xFF);
    }

    /**
     * Builds a table for the strings {@code data[offsets[i], offsets[i+1])}, {@code i < count},
     * the way Lance's FSST encoder decides: when the string bytes total less than
     * {@value #MIN_COMPRESSED_INPUT_BYTES} the result is {@link #uncompressed()}, otherwise a trained
     * table (see {@link FsstTrainer} for the algorithm).
     */
    public static FsstSymbolTable train(byte[] data, int[] offsets, int count) {
        long[] wide = new long[count + 1];
        Buffers.checkArray(SCHEME, "string offsets", offsets.length, 0, count + 1L);
        for (int i = 0; i <= count; i++) {
            wide[i] = offsets[i];
        }
        return train(data, wide, count);
    }

    /** As {@link #train(byte[], int[], int)} with 64-bit offsets (large_utf8). */
    public static FsstSymbolTable train(byte[] data, long[] offsets, int count) {
        Buffers.checkArray(SCHEME, "string offsets", offsets.length, 0, count + 1L);
        long total = offsets[count] - offsets[0];
        if (total < MIN_COMPRESSED_INPUT_BYTES) {
            return uncompressed();
        }
        return FsstTrainer.train(data, offsets, count);
    }

    // ---------------------------------------------------------------- accessors and serialization

    /** Whether strings are FSST-compressed (header bit 24); if not, they are stored as is. */
    public boolean isCompressed() {
        return compressed;
    }

    /** Number of symbols m (0 … 255). */
    public int symbolCount() {
        return symbolCount;
    }

    /** Length in bytes (1 … 8) of the symbol with code {@code code < symbolCount()}. */
    public int symbolLength(int code) {
        checkCode(code);
        return lengths[code];
    }

    /** Bytes of the symbol with code {@code code}, first byte in the lowest 8 bits, unused bytes 0. */
    public long symbolBytes(int code) {
        checkCode(code);
        return symbols[code];
    }

    private void checkCode(int code) {
        if (code < 0 || code >= symbolCount) {
            throw new IndexOutOfBoundsException(SCHEME + ": code " + code + " outside [0, " + symbolCount + ")");
        }
    }

    /** The 2312-byte serialized form Lance stores in {@code Fsst.symbol_table}. */
    public byte[] serialize() {
        byte[] out = new byte[SERIALIZED_SIZE];
        ByteBuffer buf = ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN);
        long header = (MAGIC << 32)
                | (compressed ? 1L << 24 : 0)
                | ((long) (suffixLimit & 0xFF) << 16)
                | ((long) (terminator & 0xFF) << 8)
                | symbolCount;
        buf.putLong(0, header);
        for (int c = 0; c < symbolCount; c++) {
            buf.putLong(8 + 8 * c, symbols[c]);
            out[8 + 8 * symbolCount + c] = lengths[c];
        }
        return out;
    }

    // ---------------------------------------------------------------- decompression

    /**
     * Exact decompressed length of the compressed string at {@code [srcOffset, srcOffset+srcLength)}
     * (lets readers size an Arrow data buffer before decompressing into it).
     */
    public long decompressedLength(ByteBuffer src, int srcOffset, int srcLength) {
        Buffers.checkRange(SCHEME, "compressed string", src, srcOffset, srcLength);
        if (!compressed) {
            return srcLength;
        }
        long total = 0;
        int p = srcOffset;
        int end = srcOffset + srcLength;
        while (p < end) {
            int code = src.get(p) & 0xFF;
            if (code == ESCAPE) {
                if (p + 1 >= end) {
                    throw danglingEscape(p - srcOffset, srcLength);
                }
                total += 1;
                p += 2;
            } else {
                int len = lengths[code];
                if (len == 0) {
                    throw unknownCode(code, p - srcOffset);
                }
                total += len;
                p += 1;
            }
        }
        return total;
    }

    /**
     * Decompresses the string at {@code [srcOffset, srcOffset+srcLength)} of {@code src} into
     * {@code dst} from {@code dstOffset}. Fastest when {@code dst} has {@code 8·srcLength} bytes of room
     * (each code is then copied as one 8-byte word); otherwise every write is bounds-checked and a
     * {@link IndexOutOfBoundsException} reports a too-small {@code dst}.
     *
     * @return bytes written
     */
    public int decompress(ByteBuffer src, int srcOffset, int srcLength, byte[] dst, int dstOffset) {
        Buffers.checkRange(SCHEME, "compressed string", src, srcOffset, srcLength);
        if (!compressed) {
            Buffers.checkArray(SCHEME, "decompressed string", dst.length, dstOffset, srcLength);
            src.get(srcOffset, dst, dstOffset, srcLength);
            return srcLength;
        }
        int end = srcOffset + srcLength;
        int p = srcOffset;
        int out = dstOffset;
        if ((long) dstOffset + 8L * srcLength + 8 <= dst.length) {
            // Fast path: enough slack to store each symbol as a full 8-byte word and advance by its length.
            while (p < end) {
                int code = src.get(p) & 0xFF;
                if (code != ESCAPE) {
                    int len = lengths[code];
                    if (len == 0) {
                        throw unknownCode(code, p - srcOffset);
                    }
                    LONG_LE.set(dst, out, symbols[code]);
                    out += len;
                    p += 1;
                } else {
                    if (p + 1 >= end) {
                        throw danglingEscape(p - srcOffset, srcLength);
                    }
                    dst[out++] = src.get(p + 1);
                    p += 2;
                }
            }
            return out - dstOffset;
        }
        while (p < end) {
            int code = src.get(p) & 0xFF;
            if (code != ESCAPE) {
                int len = lengths[code];
                if (len == 0) {
                    throw unknownCode(code, p - srcOffset);
                }
                if (out + len > dst.length) {
                    throw new IndexOutOfBoundsException(SCHEME + ": decompressed string does not fit the output array ("
                            + dst.length + " bytes, writing at " + out + ")");
                }
                long s = symbols[code];
                for (int k = 0; k < len; k++) {
                    dst[out + k] = (byte) (s >>> (8 * k));
                }
                out += len;
                p += 1;
            } else {
                if (p + 1 >= end) {
                    throw danglingEscape(p - srcOffset, srcLength);
                }
                if (out >= dst.length) {
                    throw new IndexOutOfBoundsException(
                            SCHEME + ": decompressed string does not fit the output array (" + dst.length + " bytes)");
                }
                dst[out++] = src.get(p + 1);
                p += 2;
            }
        }
        return out - dstOffset;
    }

    /**
     * Decompresses into a {@link ByteBuffer} (e.g. an Arrow data buffer) at {@code dstOffset}; the
     * buffer must have room for {@link #decompressedLength} bytes.
     *
     * @return bytes written
     */
    public int decompress(ByteBuffer src, int srcOffset, int srcLength, ByteBuffer dst, int dstOffset) {
        Buffers.checkRange(SCHEME, "compressed string", src, srcOffset, srcLength);
        ByteBuffer out = Buffers.le(dst);
        if (!compressed) {
            Buffers.checkOutput(dst, dstOffset, srcLength);
            out.put(dstOffset, src, srcOffset, srcLength);
            return srcLength;
        }
        int end = srcOffset + srcLength;
        int limit = dst.limit();
        int p = srcOffset;
        int o = dstOffset;
        while (p < end) {
            int code = src.get(p) & 0xFF;
            if (code != ESCAPE) {
                int len = lengths[code];
                if (len == 0) {
                    throw unknownCode(code, p - srcOffset);
                }
                if (o + 8 <= limit) {
                    out.putLong(o, symbols[code]);
                } else if (o + len <= limit) {
                    long s = symbols[code];
                    for (int k = 0; k < len; k++) {
                        out.put(o + k, (byte) (s >>> (8 * k)));
                    }
                } else {
                    throw new IndexOutOfBoundsException(
                            SCHEME + ": decompressed string does not fit the output buffer (" + limit
                                    + " bytes, writing at " + o + ")");
                }
                o += len;
                p += 1;
            } else {
                if (p + 1 >= end) {
                    throw danglingEscape(p - srcOffset, srcLength);
                }
                if (o >= limit) {
                    throw new IndexOutOfBoundsException(
                            SCHEME + ": decompressed string does not fit the output buffer (" + limit + " bytes)");
                }
                out.put(o++, src.get(p + 1));
                p += 2;
            }
        }
        return o - dstOffset;
    }

    /** Decompresses one string into a new array of exactly its length. */
    public byte[] decompress(ByteBuffer src, int srcOffset, int srcLength) {
        long n = decompressedLength(src, srcOffset, srcLength);
        byte[] out = new byte[(int) n];
        decompress(src, srcOffset, srcLength, out, 0);
        return out;
    }

    private static CompressedDataException unknownCode(int code, int at) {
        return new CompressedDataException(SCHEME + ": code " + code + " at byte " + at
                + " of the compressed string has no symbol in the table (and is not the escape 255)");
    }

    private static CompressedDataException danglingEscape(int at, int length) {
        return new CompressedDataException(SCHEME + ": escape code at byte " + at + " is the last of the " + length
                + "-byte compressed string; the literal byte is missing");
    }

    // ---------------------------------------------------------------- compression

    /** Upper bound of {@link #compress} output for an input of {@code length} bytes (every byte escaped). */
    public static int maxCompressedLength(int length) {
        return 2 * length;
    }

    /**
     * Compresses {@code src[srcOffset, srcOffset+srcLength)} into {@code dst} at {@code dstOffset}
     * (room for {@link #maxCompressedLength} bytes needed) by greedy longest-symbol matching; bytes
     * without a symbol are escaped. With an {@linkplain #isCompressed() uncompressed} table the
     * bytes are copied.
     *
     * @return bytes written
     */
    public int compress(byte[] src, int srcOffset, int srcLength, byte[] dst, int dstOffset) {
        Buffers.checkArray(SCHEME, "string to compress", src.length, srcOffset, srcLength);
        if (!compressed) {
            Buffers.checkArray(SCHEME, "compressed string", dst.length, dstOffset, srcLength);
            System.arraycopy(src, srcOffset, dst, dstOffset, srcLength);
            return srcLength;
        }
        Buffers.checkArray(
                SCHEME, "compressed string (room for 2 bytes per input byte)", dst.length, dstOffset, 2L * srcLength);
        return matcher().compress(src, srcOffset, srcLength, dst, dstOffset);
    }

    private FsstMatcher matcher() {
        FsstMatcher m = matcher;
        if (m == null) {
            m = new FsstMatcher(symbolCount, symbols, lengths);
            matcher = m;
        }
        return m;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("FsstSymbolTable{compressed=")
                .append(compressed)
                .append(", symbols=")
                .append(symbolCount);
        for (int c = 0; c < Math.min(symbolCount, 8); c++) {
            sb.append(c == 0 ? ": " : ", ").append('"');
            for (int k = 0; k < lengths[c]; k++) {
                int b = (int) (symbols[c] >>> (8 * k)) & 0xFF;
                if (b >= 0x20 && b < 0x7F) {
                    sb.append((char) b);
                } else {
                    sb.append("\\x").append(HexFormat.of().toHexDigits((byte) b));
                }
            }
            sb.append('"');
        }
        return sb.append(symbolCount > 8 ? ", …}" : "}").toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FsstSymbolTable t
                && t.compressed == compressed
                && t.symbolCount == symbolCount
                && Arrays.equals(t.symbols, symbols)
                && Arrays.equals(t.lengths, lengths);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(symbols) * 31 + symbolCount;
    }
}
