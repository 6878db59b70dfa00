package dev.lanceflink.rowid;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.lanceflink.table.CorruptTableException;
import lance.table.RowDatasetVersionRun;
import lance.table.RowDatasetVersionSequence;
import lance.table.U64Segment;

/**
 * Codec of {@code RowDatasetVersionSequence}: per physical row, the table version that created or
 * last updated it, as runs over row <em>positions</em> within the fragment.
 */
public final class RowVersionSequenceCodec {
    private RowVersionSequenceCodec() {}

    /** All {@code rows} rows have {@code version} (a fragment written by one commit). */
    public static byte[] encodeSingleRun(long rows, long version) {
        return RowDatasetVersionSequence.newBuilder()
                .addRuns(RowDatasetVersionRun.newBuilder()
                        .setSpan(RowIdSequenceCodec.rangeSegment(0, rows))
                        .setVersion(version))
                .build()
                .toByteArray();
    }

    /**
     * Encodes one version per row position as runs of equal consecutive versions, each spanning a
     * {@code Range} of positions, so a fragment whose rows share a version stays a single run.
     */
    public static byte[] encode(long[] versions) {
        RowDatasetVersionSequence.Builder seq = RowDatasetVersionSequence.newBuilder();
        int start = 0;
        for (int i = 1; i <= versions.length; i++) {
            if (i == versions.length || versions[i] != versions[start]) {
                seq.addRuns(RowDatasetVersionRun.newBuilder()
                        .setSpan(RowIdSequenceCodec.rangeSegment(start, i))
                        .setVersion(versions[start]));
                start = i;
            }
        }
        return seq.build().toByteArray();
    }

    /** The version of each row position; positions no run covers are reported as an error. */
    public static long[] decode(byte[] bytes, long rows, String context) throws CorruptTableException {
        RowDatasetVersionSequence seq;
        try {
            seq = RowDatasetVersionSequence.parseFrom(bytes);
        } catch (InvalidProtocolBufferException e) {
            throw new CorruptTableException(
                    context + ": row version sequence is not a valid" + " RowDatasetVersionSequence protobuf: "
                            + e.getMessage(),
                    e);
        }
        long[] out = new long[(int) rows];
        boolean[] seen = new boolean[(int) rows];
        for (RowDatasetVersionRun run : seq.getRunsList()) {
            U64Segment span = run.getSpan();
            for (long pos : RowIdSequenceCodec.decodeSegment(span, context)) {
                if (pos < 0 || pos >= rows) {
                    throw new CorruptTableException(context + ": row version run covers position " + pos
                            + " of a fragment with " + rows + " rows");
                }
                out[(int) pos] = run.getVersion();
                seen[(int) pos] = true;
            }
        }
        for (int i = 0; i < rows; i++) {
            if (!seen[i]) {
                throw new CorruptTableException(context + ": row version sequence does not cover row position " + i);
            }
        }
        return out;
    }
}
