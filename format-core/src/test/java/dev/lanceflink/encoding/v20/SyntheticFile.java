package dev.lanceflink.encoding.v20;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import dev.lanceflink.io.RangeReader;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import lance.encodings.ArrayEncoding;
import lance.encodings.Binary;
import lance.encodings.Buffer;
import lance.encodings.Dictionary;
import lance.encodings.FixedSizeList;
import lance.encodings.Flat;
import lance.encodings.Nullable;
import lance.file.v2.ColumnMetadata;
import lance.file.v2.DirectEncoding;
import lance.file.v2.Encoding;

/**
 * Builds 2.0 page buffers and column metadata in memory, byte for byte as file-format.md §7.2
 * describes them, so tests can exercise page layouts the fixtures do not contain (several pages
 * per column, page boundaries inside bytes, mixed encodings). Also a {@link RangeReader} over the
 * bytes that records every read.
 */
final class SyntheticFile {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    final List<long[]> reads = new ArrayList<>();

    /** Appends a page: its buffers, then the page metadata. */
    ColumnMetadata.Page page(long rows, ArrayEncoding enc, byte[]... buffers) {
        ColumnMetadata.Page.Builder p = ColumnMetadata.Page.newBuilder().setLength(rows);
        for (byte[] b : buffers) {
            p.addBufferOffsets(bytes.size()).addBufferSizes(b.length);
            bytes.writeBytes(b);
            // Pad like Lance does, so offsets are realistic.
            while (bytes.size() % 64 != 0) {
                bytes.write(0x48);
            }
        }
        Any any = Any.newBuilder()
                .setTypeUrl("/lance.encodings.ArrayEncoding")
                .setValue(enc.toByteString())
                .build();
        p.setEncoding(
                Encoding.newBuilder().setDirect(DirectEncoding.newBuilder().setEncoding(any.toByteString())));
        return p.build();
    }

    static ColumnMetadata column(ColumnMetadata.Page... pages) {
        ColumnMetadata.Builder c = ColumnMetadata.newBuilder();
        long priority = 0;
        for (ColumnMetadata.Page p : pages) {
            c.addPages(p.toBuilder().setPriority(priority));
            priority += p.getLength();
        }
        return c.build();
    }

    RangeReader reader() {
        byte[] data = bytes.toByteArray();
        return new RangeReader() {
            @Override
            public long size() {
                return data.length;
            }

            @Override
            public ByteBuffer read(long offset, int length) throws EOFException {
                if (offset < 0 || offset + length > data.length) {
                    throw new EOFException("read [" + offset + ", +" + length + ") beyond " + data.length);
                }
                reads.add(new long[] {offset, length});
                return ByteBuffer.wrap(data, (int) offset, length).slice();
            }
        };
    }

    long bytesRead() {
        return reads.stream().mapToLong(r -> r[1]).sum();
    }

    // ------------------------------------------------------------------ encodings

    static ArrayEncoding flat(int bits, int buffer) {
        return ArrayEncoding.newBuilder()
                .setFlat(Flat.newBuilder()
                        .setBitsPerValue(bits)
                        .setBuffer(Buffer.newBuilder().setBufferIndex(buffer)))
                .build();
    }

    static ArrayEncoding noNull(ArrayEncoding values) {
        return ArrayEncoding.newBuilder()
                .setNullable(Nullable.newBuilder()
                        .setNoNulls(Nullable.NoNull.newBuilder().setValues(values)))
                .build();
    }

    static ArrayEncoding someNull(ArrayEncoding validity, ArrayEncoding values) {
        return ArrayEncoding.newBuilder()
                .setNullable(Nullable.newBuilder()
                        .setSomeNulls(Nullable.SomeNull.newBuilder()
                                .setValidity(validity)
                                .setValues(values)))
                .build();
    }

    static ArrayEncoding allNull() {
        return ArrayEncoding.newBuilder()
                .setNullable(Nullable.newBuilder().setAllNulls(Nullable.AllNull.newBuilder()))
                .build();
    }

    static ArrayEncoding binary(int indicesBuffer, int bytesBuffer, long nullAdjustment) {
        return ArrayEncoding.newBuilder()
                .setBinary(Binary.newBuilder()
                        .setIndices(noNull(flat(64, indicesBuffer)))
                        .setBytes(flat(8, bytesBuffer))
                        .setNullAdjustment(nullAdjustment))
                .build();
    }

    static ArrayEncoding fsl(int dimension, ArrayEncoding items) {
        return ArrayEncoding.newBuilder()
                .setFixedSizeList(
                        FixedSizeList.newBuilder().setDimension(dimension).setItems(items))
                .build();
    }

    static ArrayEncoding list(long nullOffsetAdjustment, long numItems) {
        return ArrayEncoding.newBuilder()
                .setList(lance.encodings.List.newBuilder()
                        .setOffsets(noNull(flat(64, 0)))
                        .setNullOffsetAdjustment(nullOffsetAdjustment)
                        .setNumItems(numItems))
                .build();
    }

    static ArrayEncoding struct() {
        return ArrayEncoding.newBuilder()
                .setStruct(lance.encodings.SimpleStruct.getDefaultInstance())
                .build();
    }

    static ArrayEncoding dictionary(int numItems, long itemsNullAdjustment) {
        return ArrayEncoding.newBuilder()
                .setDictionary(Dictionary.newBuilder()
                        .setIndices(noNull(flat(8, 0)))
                        .setItems(binary(1, 2, itemsNullAdjustment))
                        .setNumDictionaryItems(numItems))
                .build();
    }

    // ------------------------------------------------------------------ buffers

    static byte[] ints(int... values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (int v : values) {
            b.putInt(v);
        }
        return b.array();
    }

    static byte[] longs(long... values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * 8).order(ByteOrder.LITTLE_ENDIAN);
        for (long v : values) {
            b.putLong(v);
        }
        return b.array();
    }

    static byte[] floats(float... values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (float v : values) {
            b.putFloat(v);
        }
        return b.array();
    }

    /** LSB-first bitmap; 1 for each true. */
    static byte[] bits(boolean... values) {
        byte[] out = new byte[(values.length + 7) / 8];
        for (int i = 0; i < values.length; i++) {
            if (values[i]) {
                out[i / 8] |= (byte) (1 << (i % 8));
            }
        }
        return out;
    }

    /** Validity bitmap of boxed values: 1 where non-null. */
    static byte[] validity(Object... values) {
        boolean[] valid = new boolean[values.length];
        for (int i = 0; i < values.length; i++) {
            valid[i] = values[i] != null;
        }
        return bits(valid);
    }

    /**
     * A 2.0 binary page's two buffers for {@code values} (null = null): u64 end offsets with
     * {@code total + 1} added for nulls, and the concatenated bytes. Returns {indices, bytes}
     * and the null adjustment in {@code adjOut[0]}.
     */
    static byte[][] binaryBuffers(String[] values, long[] adjOut) {
        ByteArrayOutputStream data = new ByteArrayOutputStream();
        for (String v : values) {
            if (v != null) {
                data.writeBytes(v.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
        }
        long adj = data.size() + 1L;
        long[] ends = new long[values.length];
        long end = 0;
        for (int i = 0; i < values.length; i++) {
            if (values[i] != null) {
                end += values[i].getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
                ends[i] = end;
            } else {
                ends[i] = end + adj;
            }
        }
        adjOut[0] = adj;
        return new byte[][] {longs(ends), data.toByteArray()};
    }

    static ByteString utf8(String s) {
        return ByteString.copyFromUtf8(s);
    }
}
