package dev.lanceflink.rowid;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.lanceflink.table.CorruptTableException;
import lance.table.RowIdSequence;
import lance.table.U64Segment;

/**
 * Codec of {@code RowIdSequence} (rowids.proto): the stable row id of every physical row of a
 * fragment, in physical order, as a list of {@code U64Segment}s.
 *
 * <p>Quirk kept from the implementation (spec README §14): in {@code RangeWithBitmap} bit
 * {@code i} (value {@code start + i}) lives in byte {@code i / 8} at bit {@code i % 8}, i.e.
 * LSB-first, although the proto comment says MSB-first.
 */
public final class RowIdSequenceCodec {
    private RowIdSequenceCodec() {}

    /** The sequence {@code [start, end)} (what a plain append produces). */
    public static byte[] encodeRange(long start, long end) {
        return RowIdSequence.newBuilder()
                .addSegments(rangeSegment(start, end))
                .build()
                .toByteArray();
    }

    static U64Segment rangeSegment(long start, long end) {
        return U64Segment.newBuilder()
                .setRange(U64Segment.Range.newBuilder().setStart(start).setEnd(end))
                .build();
    }

    /**
     * Encodes ids in the given order as one segment, choosing like Lance: contiguous ascending →
     * {@code Range}; other ascending input → the smallest of {@code RangeWithHoles},
     * {@code RangeWithBitmap} and {@code SortedArray}; unsorted → {@code Array}.
     */
    public static byte[] encode(long[] ids) {
        return RowIdSequence.newBuilder().addSegments(segment(ids)).build().toByteArray();
    }

    static U64Segment segment(long[] ids) {
        int n = ids.length;
        if (n == 0) {
            return rangeSegment(0, 0);
        }
        boolean sorted = true;
        for (int i = 1; i < n && sorted; i++) {
            sorted = Long.compareUnsigned(ids[i - 1], ids[i]) < 0;
        }
        if (!sorted) {
            return U64Segment.newBuilder()
                    .setArray(EncodedU64ArrayCodec.encode(ids, 0, n))
                    .build();
        }
        long start = ids[0];
        long end = ids[n - 1] + 1;
        long span = end - start;
        if (span == n) {
            return rangeSegment(start, end);
        }
        long holes = span - n;
        long holesCost = 24 + 4 * holes;
        long bitmapCost = 24 + (span + 7) / 8;
        long sortedCost = 24 + 2L * n;
        if (holesCost <= bitmapCost && holesCost <= sortedCost && holes <= Integer.MAX_VALUE) {
            long[] h = new long[(int) holes];
            int k = 0;
            long expect = start;
            for (long id : ids) {
                while (expect < id) {
                    h[k++] = expect++;
                }
                expect = id + 1;
            }
            return U64Segment.newBuilder()
                    .setRangeWithHoles(U64Segment.RangeWithHoles.newBuilder()
                            .setStart(start)
                            .setEnd(end)
                            .setHoles(EncodedU64ArrayCodec.encode(h, 0, h.length)))
                    .build();
        }
        if (bitmapCost <= sortedCost && span <= Integer.MAX_VALUE - 7L) {
            byte[] bits = new byte[(int) ((span + 7) / 8)];
            for (long id : ids) {
                long i = id - start;
                bits[(int) (i >>> 3)] |= (byte) (1 << (i & 7)); // LSB-first
            }
            return U64Segment.newBuilder()
                    .setRangeWithBitmap(U64Segment.RangeWithBitmap.newBuilder()
                            .setStart(start)
                            .setEnd(end)
                            .setBitmap(ByteString.copyFrom(bits)))
                    .build();
        }
        return U64Segment.newBuilder()
                .setSortedArray(EncodedU64ArrayCodec.encode(ids, 0, n))
                .build();
    }

    /** Decodes every row id, in physical order. {@code context} names the fragment in errors. */
    public static long[] decode(byte[] bytes, String context) throws CorruptTableException {
        RowIdSequence seq;
        try {
            seq = RowIdSequence.parseFrom(bytes);
        } catch (InvalidProtocolBufferException e) {
            throw new CorruptTableException(
                    context + ": row id sequence (" + bytes.length + " bytes) is not a valid RowIdSequence protobuf: "
                            + e.getMessage(),
                    e);
        }
        long total = 0;
        for (U64Segment s : seq.getSegmentsList()) {
            total += segmentLength(s, context);
        }
        if (total > Integer.MAX_VALUE - 8) {
            throw new CorruptTableException(context + ": row id sequence claims " + total + " rows");
        }
        long[] out = new long[(int) total];
        int at = 0;
        for (U64Segment s : seq.getSegmentsList()) {
            at += decodeSegment(s, out, at, context);
        }
        return out;
    }

    /** Decodes the values of one segment. */
    static long[] decodeSegment(U64Segment s, String context) throws CorruptTableException {
        long n = segmentLength(s, context);
        if (n > Integer.MAX_VALUE - 8) {
            throw new CorruptTableException(context + ": row id segment claims " + n + " values");
        }
        long[] out = new long[(int) n];
        decodeSegment(s, out, 0, context);
        return out;
    }

    /** Number of row ids in a serialized sequence, without materializing them. */
    public static long count(byte[] bytes, String context) throws CorruptTableException {
        try {
            long total = 0;
            for (U64Segment s : RowIdSequence.parseFrom(bytes).getSegmentsList()) {
                total += segmentLength(s, context);
            }
            return total;
        } catch (InvalidProtocolBufferException e) {
            throw new CorruptTableException(
                    context + ": row id sequence is not a valid RowIdSequence protobuf: " + e.getMessage(), e);
        }
    }

    static long segmentLength(U64Segment s, String context) throws CorruptTableException {
        return switch (s.getSegmentCase()) {
            case RANGE -> span(s.getRange().getStart(), s.getRange().getEnd(), context);
            case RANGE_WITH_HOLES ->
                span(s.getRangeWithHoles().getStart(), s.getRangeWithHoles().getEnd(), context)
                        - EncodedU64ArrayCodec.length(s.getRangeWithHoles().getHoles(), context);
            case RANGE_WITH_BITMAP -> {
                U64Segment.RangeWithBitmap r = s.getRangeWithBitmap();
                long sp = span(r.getStart(), r.getEnd(), context);
                long n = 0;
                ByteString bits = r.getBitmap();
                if (bits.size() * 8L < sp) {
                    throw new CorruptTableException(context + ": range-with-bitmap segment spans " + sp
                            + " values but its bitmap has only " + bits.size() + " bytes");
                }
                for (long i = 0; i < sp; i++) {
                    n += (bits.byteAt((int) (i >>> 3)) >>> (i & 7)) & 1;
                }
                yield n;
            }
            case SORTED_ARRAY -> EncodedU64ArrayCodec.length(s.getSortedArray(), context);
            case ARRAY -> EncodedU64ArrayCodec.length(s.getArray(), context);
            case SEGMENT_NOT_SET -> throw new CorruptTableException(context + ": row id segment has no content");
        };
    }

    private static long span(long start, long end, String context) throws CorruptTableException {
        if (Long.compareUnsigned(end, start) < 0) {
            throw new CorruptTableException(context + ": row id range [" + Long.toUnsignedString(start) + ", "
                    + Long.toUnsignedString(end) + ") ends before it starts");
        }
        return end - start;
    }

    private static int decodeSegment(U64Segment s, long[] out, int at, String context) throws CorruptTableException {
        switch (s.getSegmentCase()) {
            case RANGE -> {
                long start = s.getRange().getStart();
                int n = (int) (s.getRange().getEnd() - start);
                for (int i = 0; i < n; i++) {
                    out[at + i] = start + i;
                }
                return n;
            }
            case RANGE_WITH_HOLES -> {
                U64Segment.RangeWithHoles r = s.getRangeWithHoles();
                long[] holes = EncodedU64ArrayCodec.decode(r.getHoles(), context);
                int h = 0;
                int k = at;
                for (long v = r.getStart(); v != r.getEnd(); v++) {
                    if (h < holes.length && holes[h] == v) {
                        h++;
                    } else {
                        out[k++] = v;
                    }
                }
                if (h != holes.length) {
                    throw new CorruptTableException(context + ": range-with-holes segment lists holes that are"
                            + " unsorted or outside [" + r.getStart() + ", " + r.getEnd() + ")");
                }
                return k - at;
            }
            case RANGE_WITH_BITMAP -> {
                U64Segment.RangeWithBitmap r = s.getRangeWithBitmap();
                ByteString bits = r.getBitmap();
                long sp = r.getEnd() - r.getStart();
                int k = at;
                for (long i = 0; i < sp; i++) {
                    if (((bits.byteAt((int) (i >>> 3)) >>> (i & 7)) & 1) != 0) {
                        out[k++] = r.getStart() + i;
                    }
                }
                return k - at;
            }
            case SORTED_ARRAY -> {
                return EncodedU64ArrayCodec.decodeInto(s.getSortedArray(), out, at, context);
            }
            case ARRAY -> {
                return EncodedU64ArrayCodec.decodeInto(s.getArray(), out, at, context);
            }
            default -> throw new CorruptTableException(context + ": row id segment has no content");
        }
    }
}
