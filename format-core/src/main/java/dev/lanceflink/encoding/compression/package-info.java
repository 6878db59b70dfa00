/**
 * Byte-exact codecs for the compression schemes Lance 7.0.0 writes into data files
 * (compression.md §3): FastLanes bit-packing ({@link dev.lanceflink.encoding.compression.FastLanesBitPacking},
 * {@link dev.lanceflink.encoding.compression.InlineBitPacking},
 * {@link dev.lanceflink.encoding.compression.OutOfLineBitPacking}), run-length encoding
 * ({@link dev.lanceflink.encoding.compression.Rle}), FSST string compression
 * ({@link dev.lanceflink.encoding.compression.FsstSymbolTable}), general zstd/LZ4 framing
 * ({@link dev.lanceflink.encoding.compression.GeneralCompression}), byte-stream-split
 * ({@link dev.lanceflink.encoding.compression.ByteStreamSplit}) and the block form of variable-width
 * items ({@link dev.lanceflink.encoding.compression.VariableBlock}).
 *
 * <p>Everything here is a pure transform over caller-provided buffers and primitive arrays, with no
 * protobuf or Arrow types: the page decoders pick the scheme from the encoding message and hand in
 * the bytes, the value count and the scheme's parameters. Conventions shared by all classes:
 * <ul>
 *   <li>buffers are addressed with absolute {@code (offset, length)} pairs; their position, limit
 *       and byte order are neither used nor changed (data is always little-endian);</li>
 *   <li>"generic" methods take the word width {@code T} (8, 16, 32, 64) and read or write raw
 *       little-endian values, so a decoder can write straight into an Arrow buffer; typed overloads
 *       work on {@code byte[]}/{@code short[]}/{@code int[]}/{@code long[]};</li>
 *   <li>malformed encoded input raises {@link dev.lanceflink.encoding.compression.CompressedDataException}
 *       naming the scheme, the offending field or offset and what was expected; caller mistakes
 *       (too-small outputs, bad arguments) raise the usual {@code IllegalArgumentException} or
 *       {@code IndexOutOfBoundsException}.</li>
 * </ul>
 */
package dev.lanceflink.encoding.compression;
