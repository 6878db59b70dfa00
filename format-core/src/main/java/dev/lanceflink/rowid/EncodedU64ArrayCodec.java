package dev.lanceflink.rowid;

import com.google.protobuf.ByteString;
import dev.lanceflink.table.CorruptTableException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import lance.table.EncodedU64Array;

/**
 * {@code EncodedU64Array}: u64 values stored as u16 or u32 deltas from the minimum when they fit,
 * else raw u64 (whose field number is 2, not 1). An empty array is an empty {@code u64_array}.
 */
final class EncodedU64ArrayCodec {
    private EncodedU64ArrayCodec() {}

    static EncodedU64Array encode(long[] values, int from, int to) {
        int n = to - from;
        if (n == 0) {
            return EncodedU64Array.newBuilder()
                    .setU64Array(EncodedU64Array.U64Array.getDefaultInstance())
                    .build();
        }
        long min = values[from];
        long max = values[from];
        for (int i = from + 1; i < to; i++) {
            if (Long.compareUnsigned(values[i], min) < 0) {
                min = values[i];
            }
            if (Long.compareUnsigned(values[i], max) > 0) {
                max = values[i];
            }
        }
        long range = max - min;
        if (Long.compareUnsigned(range, 0xFFFFL) <= 0) {
            ByteBuffer b = ByteBuffer.allocate(2 * n).order(ByteOrder.LITTLE_ENDIAN);
            for (int i = from; i < to; i++) {
                b.putShort((short) (values[i] - min));
            }
            return EncodedU64Array.newBuilder()
                    .setU16Array(EncodedU64Array.U16Array.newBuilder()
                            .setBase(min)
                            .setOffsets(ByteString.copyFrom(b.array())))
                    .build();
        }
        if (Long.compareUnsigned(range, 0xFFFF_FFFFL) <= 0) {
            ByteBuffer b = ByteBuffer.allocate(4 * n).order(ByteOrder.LITTLE_ENDIAN);
            for (int i = from; i < to; i++) {
                b.putInt((int) (values[i] - min));
            }
            return EncodedU64Array.newBuilder()
                    .setU32Array(EncodedU64Array.U32Array.newBuilder()
                            .setBase(min)
                            .setOffsets(ByteString.copyFrom(b.array())))
                    .build();
        }
        ByteBuffer b = ByteBuffer.allocate(8 * n).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = from; i < to; i++) {
            b.putLong(values[i]);
        }
        return EncodedU64Array.newBuilder()
                .setU64Array(EncodedU64Array.U64Array.newBuilder().setValues(ByteString.copyFrom(b.array())))
                .build();
    }

    static int length(EncodedU64Array a, String context) throws CorruptTableException {
        return switch (a.getArrayCase()) {
            case U16_ARRAY -> checkedLength(a.getU16Array().getOffsets().size(), 2, context);
            case U32_ARRAY -> checkedLength(a.getU32Array().getOffsets().size(), 4, context);
            case U64_ARRAY -> checkedLength(a.getU64Array().getValues().size(), 8, context);
            case ARRAY_NOT_SET -> 0;
        };
    }

    private static int checkedLength(int bytes, int width, String context) throws CorruptTableException {
        if (bytes % width != 0) {
            throw new CorruptTableException(context + ": encoded u64 array of " + bytes
                    + " bytes is not a multiple of its " + width + "-byte element width");
        }
        return bytes / width;
    }

    /** Decodes into {@code out[at ..]} and returns the number of values written. */
    static int decodeInto(EncodedU64Array a, long[] out, int at, String context) throws CorruptTableException {
        int n = length(a, context);
        switch (a.getArrayCase()) {
            case U16_ARRAY -> {
                long base = a.getU16Array().getBase();
                ByteBuffer b =
                        a.getU16Array().getOffsets().asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
                for (int i = 0; i < n; i++) {
                    out[at + i] = base + Short.toUnsignedLong(b.getShort());
                }
            }
            case U32_ARRAY -> {
                long base = a.getU32Array().getBase();
                ByteBuffer b =
                        a.getU32Array().getOffsets().asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
                for (int i = 0; i < n; i++) {
                    out[at + i] = base + Integer.toUnsignedLong(b.getInt());
                }
            }
            case U64_ARRAY -> {
                ByteBuffer b =
                        a.getU64Array().getValues().asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
                for (int i = 0; i < n; i++) {
                    out[at + i] = b.getLong();
                }
            }
            case ARRAY_NOT_SET -> {
                // empty
            }
        }
        return n;
    }

    static long[] decode(EncodedU64Array a, String context) throws CorruptTableException {
        long[] out = new long[length(a, context)];
        decodeInto(a, out, 0, context);
        return out;
    }
}
