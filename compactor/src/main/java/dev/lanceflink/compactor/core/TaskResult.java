package dev.lanceflink.compactor.core;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.overlay.StagedWrite;
import dev.lanceflink.table.CorruptTableException;
import dev.lanceflink.txn.Operation;
import dev.lanceflink.txn.Transaction;
import dev.lanceflink.txn.TransactionCodec;
import java.io.Serializable;
import java.util.List;
import java.util.Map;

/**
 * The staged output of one {@link CompactionTask}, in a form that crosses process boundaries (a
 * Flink task ships it to the committing client): the operation is kept in Lance's own transaction
 * encoding, so the committed bytes are exactly what the task produced.
 *
 * @param task the task that produced it
 * @param readVersion the version the task ran against
 * @param encodedTransaction the staged operation, as an encoded {@code Transaction} at readVersion
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

    /** Wraps a staged write of {@code task} computed on {@code readVersion}. */
    public static TaskResult of(CompactionTask task, long readVersion, StagedWrite staged) {
        byte[] bytes = TransactionCodec.encode(Transaction.of(readVersion, staged.operation(), Map.of()));
        return new TaskResult(task, readVersion, bytes, staged.writtenPaths());
    }

    @Override
    public byte[] encodedTransaction() {
        return encodedTransaction.clone();
    }

    /** The staged write again. */
    public StagedWrite staged() throws CorruptTableException {
        Operation op = TransactionCodec.decode(encodedTransaction,
                "staged compaction of fragment " + task.fragmentId()).operation();
        return new StagedWrite(op, writtenPaths);
    }
}
