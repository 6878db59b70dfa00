package dev.lanceflink.txn;

import java.util.Set;

/** Result of checking one transaction against one concurrently committed transaction. */
public sealed interface ConflictOutcome {

    /** The transactions commute; commit on top of the newer version as is. */
    record Compatible() implements ConflictOutcome {}

    /**
     * Both deleted rows of the same fragments; the deletion vectors of {@code fragmentIds} must be
     * merged (and re-checked for overlap) before committing.
     */
    record Rebase(Set<Long> fragmentIds) implements ConflictOutcome {
        public Rebase {
            fragmentIds = Set.copyOf(fragmentIds);
        }
    }

    /** The commit cannot be rebased automatically; re-read the table, redo the change and retry. */
    record Retryable(String reason) implements ConflictOutcome {}

    /** The transactions contradict each other; retrying would change the meaning. */
    record Incompatible(String reason) implements ConflictOutcome {}

    ConflictOutcome COMPATIBLE = new Compatible();
}
