package dev.lanceflink.txn;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.table.DataStorageFormat;
import dev.lanceflink.table.ManifestNamingScheme;
import java.time.Clock;
import java.time.Duration;

/**
 * Settings of {@link TableCommitter#commit}.
 *
 * @param maxAttempts attempts before giving up when other writers keep winning (Lance: 20)
 * @param initialBackoff upper bound of the first random wait after a lost race
 * @param maxBackoff upper bound of any wait (the bound doubles per attempt up to this)
 * @param writeTransactionFile write {@code _transactions/*.txn} (if false, only inline; sets writer flag 32)
 * @param inlineTransaction embed the transaction in the manifest file
 * @param namingScheme manifest naming of a table being created (existing tables keep theirs)
 * @param dataFormat data format of a table being created
 * @param stableRowIds whether a table being created uses stable row ids
 * @param writeVersionHint refresh {@code _versions/latest_version_hint.json} after a commit
 */
public record CommitOptions(int maxAttempts, Duration initialBackoff, Duration maxBackoff,
        boolean writeTransactionFile, boolean inlineTransaction, ManifestNamingScheme namingScheme,
        DataStorageFormat dataFormat, boolean stableRowIds, boolean writeVersionHint, CommitHandler commitHandler,
        Clock clock) {

    public CommitOptions {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1, got " + maxAttempts);
        }
        requireNonNull(initialBackoff, "initialBackoff is null");
        requireNonNull(maxBackoff, "maxBackoff is null");
        requireNonNull(namingScheme, "namingScheme is null");
        requireNonNull(dataFormat, "dataFormat is null");
        requireNonNull(commitHandler, "commitHandler is null");
        requireNonNull(clock, "clock is null");
        if (!writeTransactionFile && !inlineTransaction) {
            throw new IllegalArgumentException("A commit must record its transaction in a .txn file, inline, or both");
        }
    }

    /** Lance's defaults: 20 attempts, both transaction copies, V2 names, format 2.1, hint on. */
    public static CommitOptions defaults() {
        return new CommitOptions(20, Duration.ofMillis(50), Duration.ofSeconds(2), true, true,
                ManifestNamingScheme.V2, DataStorageFormat.lance("2.1"), false, true, CommitHandler.PUT_IF_ABSENT,
                Clock.systemUTC());
    }

    public CommitOptions withMaxAttempts(int n) {
        return new CommitOptions(n, initialBackoff, maxBackoff, writeTransactionFile, inlineTransaction, namingScheme,
                dataFormat, stableRowIds, writeVersionHint, commitHandler, clock);
    }

    public CommitOptions withBackoff(Duration initial, Duration max) {
        return new CommitOptions(maxAttempts, initial, max, writeTransactionFile, inlineTransaction, namingScheme,
                dataFormat, stableRowIds, writeVersionHint, commitHandler, clock);
    }

    public CommitOptions withNewTable(ManifestNamingScheme scheme, DataStorageFormat format, boolean stableIds) {
        return new CommitOptions(maxAttempts, initialBackoff, maxBackoff, writeTransactionFile, inlineTransaction,
                scheme, format, stableIds, writeVersionHint, commitHandler, clock);
    }

    public CommitOptions withTransactionStorage(boolean file, boolean inline) {
        return new CommitOptions(maxAttempts, initialBackoff, maxBackoff, file, inline, namingScheme, dataFormat,
                stableRowIds, writeVersionHint, commitHandler, clock);
    }

    public CommitOptions withCommitHandler(CommitHandler handler) {
        return new CommitOptions(maxAttempts, initialBackoff, maxBackoff, writeTransactionFile, inlineTransaction,
                namingScheme, dataFormat, stableRowIds, writeVersionHint, handler, clock);
    }

    public CommitOptions withClock(Clock c) {
        return new CommitOptions(maxAttempts, initialBackoff, maxBackoff, writeTransactionFile, inlineTransaction,
                namingScheme, dataFormat, stableRowIds, writeVersionHint, commitHandler, c);
    }
}
