package dev.lanceflink.txn;

import dev.lanceflink.table.CorruptTableException;

/** Applies one kind of operation to a manifest draft (transactions.md §3). */
interface OperationApplier<T extends Operation> {
    void apply(ManifestDraft draft, T operation) throws CorruptTableException;
}
