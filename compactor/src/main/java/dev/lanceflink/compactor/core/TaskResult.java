package dev.lanceflink.compactor.core;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.overlay.StagedWrite;
import dev.lanceflink.table.CorruptTableException;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.txn.Operation;
import dev.lanceflink.txn.Transaction;
import dev.lanceflink.txn.TransactionCodec;
import java.io.Serializable;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The staged output of one {@link CompactionTask}, in a form that crosses process boundaries (a
 * Flink task ships it to the committing client): the operation is kept in Lance's own transaction
 * encoding, so the committed bytes are exactly what the task produced.
 *
 * @param task the task that produced it
 * @param readVersion the version the task ran against
 * @param encodedTransaction the staged operation, as an encoded {@code Transaction} at readVersion (a
 *     merge's {@code Merge} with the task's fragment only, see {@link #of})
 * @param writtenPaths files the task wrote (relative to the table root), deleted if not committed
 */
public record TaskResult(CompactionTask task, long readVersion, byte[] encodedTransaction, List<String> writtenPaths)
        implements Serializable {
    private static final long serialVersionUID = 1L;

    public TaskResult {
        requireNonNull(task, "task is null");
        encodedTransaction = encodedTransaction.clone();
        writtenPaths = List.copyOf(writtenPaths);
    }

    /**
     * Wraps a staged write of {@code task} computed on {@code readVersion}.
     *
     * <p>An overlay merge is staged as a {@code Merge}, which lists every fragment of the table
     * (a Merge replaces the whole list). Only the task's own fragment of it is kept: the committer
     * takes just that fragment from a staged merge ({@code OverlayCompactor.rebase}) and builds the
     * Merge it commits from the latest fragment list on every attempt. Keeping the whole list made
     * every merge task encode, and the run decode twice, a copy of the entire table's fragments and
     * overlays: on a table of hundreds of fragments with hundreds of overlays each (a manifest of
     * tens of MB) that cost seconds per fragment, ten times the merge itself (issue #15), and held
     * one manifest-sized array per result until the commit.
     */
    public static TaskResult of(CompactionTask task, long readVersion, StagedWrite staged) {
        Operation op = staged.operation();
        if (op instanceof Operation.Merge m) {
            Set<Long> own = Set.copyOf(task.fragmentIds());
            op = new Operation.Merge(
                    m.fragments().stream().filter(f -> own.contains(f.id())).toList(), m.schema());
        }
        byte[] bytes = TransactionCodec.encode(Transaction.of(readVersion, op, Map.of()));
        return new TaskResult(task, readVersion, bytes, staged.writtenPaths());
    }

    @Override
    public byte[] encodedTransaction() {
        return encodedTransaction.clone();
    }

    /**
     * What the staged operation adds to the table.
     *
     * @param bytes size of the files the task wrote (new data, overlay and base files)
     * @param newFragments fragments a rewrite creates (0 in the overlay modes)
     * @param rowsWritten rows of those new fragments
     */
    public record Output(long bytes, int newFragments, long rowsWritten) implements Serializable {
        private static final long serialVersionUID = 1L;
    }

    /** Sizes and counts of what the task wrote, read from its staged operation. */
    public Output output() throws CorruptTableException {
        Operation op = staged().operation();
        Set<String> written = new HashSet<>(writtenPaths);
        List<Fragment> fragments = List.of();
        if (op instanceof Operation.Merge m) {
            fragments = m.fragments();
        } else if (op instanceof Operation.Update u) {
            fragments = u.updatedFragments();
        } else if (op instanceof Operation.Rewrite r) {
            fragments =
                    r.groups().stream().flatMap(g -> g.newFragments().stream()).toList();
        }
        long bytes = 0;
        for (Fragment f : fragments) {
            for (DataFile d : f.files()) {
                bytes += written.contains(d.rootRelativePath()) ? d.fileSizeBytes() : 0;
            }
            for (DataOverlayFile o : f.overlays()) {
                bytes += written.contains(o.dataFile().rootRelativePath())
                        ? o.dataFile().fileSizeBytes()
                        : 0;
            }
        }
        if (op instanceof Operation.Rewrite) {
            return new Output(
                    bytes,
                    fragments.size(),
                    fragments.stream().mapToLong(Fragment::physicalRows).sum());
        }
        return new Output(bytes, 0, 0);
    }

    /** The staged write again. */
    public StagedWrite staged() throws CorruptTableException {
        Operation op = TransactionCodec.decode(encodedTransaction, "staged compaction of fragment " + task.fragmentId())
                .operation();
        return new StagedWrite(op, writtenPaths);
    }
}
