package dev.lanceflink.it.maintenance;

import java.util.List;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.table.data.RowData;

/**
 * Maps a sequence number {@code i} to change {@code i} of {@link #CHANGES}, sleeping 1 ms every
 * {@code perMilli} records so that the changelog spans many checkpoints (and compaction runs).
 *
 * <p>From change {@code slowFrom} on, until a test sets {@link #RELEASED}, every record sleeps
 * 20 ms (some 15 changes per 300 ms checkpoint). The stream then trickles on, with checkpoints
 * and sink commits continuing, instead of ending before a slow store has let the compactor
 * commit. The compactor never rebases over a fragment the sink changed, so at full speed, where
 * every checkpoint touches nearly every fragment, a run slower than a checkpoint interval (usual
 * on S3) finds all its fragments stale every time. A trickle rather than a stop, because a
 * blocked record would also block the checkpoint barriers and so the sink's commits, which would
 * take the concurrency out of the test.
 *
 * <p>The changelog lives in a static field because the MiniCluster runs in the test JVM and the
 * function is serialized; tests of this package set it before submitting a job and never run
 * concurrently with each other.
 */
final class ChangeEmitter extends RichMapFunction<Long, RowData> {
    private static final long serialVersionUID = 1L;

    /** The changelog the running test streams. */
    static volatile List<RowData> CHANGES = List.of();
    /** Ends the slow phase (see the class comment). */
    static volatile boolean RELEASED = true;

    private final int perMilli;
    private final long slowFrom;
    private transient long seen;

    /** Emits at the pace of {@code perMilli} records per millisecond, never slowing down. */
    ChangeEmitter(int perMilli) {
        this(perMilli, Long.MAX_VALUE);
    }

    ChangeEmitter(int perMilli, long slowFrom) {
        if (perMilli <= 0) {
            throw new IllegalArgumentException("perMilli must be positive, got " + perMilli);
        }
        this.perMilli = perMilli;
        this.slowFrom = slowFrom;
    }

    @Override
    public RowData map(Long i) throws Exception {
        if (i >= slowFrom && !RELEASED) {
            Thread.sleep(20);
        } else if (++seen % perMilli == 0) {
            Thread.sleep(1);
        }
        return CHANGES.get(Math.toIntExact(i));
    }
}
