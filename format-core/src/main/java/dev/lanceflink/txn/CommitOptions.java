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
 * @param failureRetries how often an attempt that failed (store error, retryable conflict) is
 *     tried again; {@link FailureRetries#NONE} by default
 */
public record CommitOptions(
        int maxAttempts,
        Duration initialBackoff,
        Duration maxBackoff,
        boolean writeTransactionFile,
        boolean inlineTransaction,
        ManifestNamingScheme namingScheme,
        DataStorageFormat dataFormat,
        boolean stableRowIds,
        boolean writeVersionHint,
        CommitHandler commitHandler,
        Clock clock,
        FailureRetries failureRetries) {

    /**
     * Attempts of one commit that may fail before the commit fails: a store error (including a
     * publication whose outcome is unknown) or a retryable conflict starts a new attempt of the
     * same commit, after a {@link Backoff} from {@code initialBackoff} up to {@code maxBackoff}.
     * The commit keeps its transaction uuid across these attempts, so a version an earlier attempt
     * published after all is found among the concurrent versions and taken as the commit's own
     * instead of being committed again. Lost races do not count here ({@link #maxAttempts()} bounds
     * them, and a failure starts that count afresh: a failure after a run of lost races gives the
     * next attempt as many races as the first).
     *
     * @param attempts attempts in all, at least 1 (1: the first failure fails the commit)
     */
    public record FailureRetries(int attempts, Duration initialBackoff, Duration maxBackoff) {
        /** Every failure fails the commit. */
        public static final FailureRetries NONE = new FailureRetries(1, Duration.ZERO, Duration.ZERO);

        public FailureRetries {
            if (attempts < 1) {
                throw new IllegalArgumentException("attempts must be at least 1, got " + attempts);
            }
            requireNonNull(initialBackoff, "initialBackoff is null");
            requireNonNull(maxBackoff, "maxBackoff is null");
        }
    }

    /** Options without failure retries ({@link FailureRetries#NONE}). */
    public CommitOptions(
            int maxAttempts,
            Duration initialBackoff,
            Duration maxBackoff,
            boolean writeTransactionFile,
            boolean inlineTransaction,
            ManifestNamingScheme namingScheme,
            DataStorageFormat dataFormat,
            boolean stableRowIds,
            boolean writeVersionHint,
            CommitHandler commitHandler,
            Clock clock) {
        this(
                maxAttempts,
                initialBackoff,
                maxBackoff,
                writeTransactionFile,
                inlineTransaction,
                namingScheme,
                dataFormat,
                stableRowIds,
                writeVersionHint,
                commitHandler,
                clock,
                FailureRetries.NONE);
    }

    public CommitOptions {
        requireNonNull(failureRetries, "failureRetries is null");
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
        return new CommitOptions(
                20,
                Duration.ofMillis(50),
                Duration.ofSeconds(2),
                true,
                true,
                ManifestNamingScheme.V2,
                DataStorageFormat.lance("2.1"),
                false,
                true,
                CommitHandler.PUT_IF_ABSENT,
                Clock.systemUTC(),
                FailureRetries.NONE);
    }

    public CommitOptions withMaxAttempts(int n) {
        return new CommitOptions(
                n,
                initialBackoff,
                maxBackoff,
                writeTransactionFile,
                inlineTransaction,
                namingScheme,
                dataFormat,
                stableRowIds,
                writeVersionHint,
                commitHandler,
                clock,
                failureRetries);
    }

    public CommitOptions withBackoff(Duration initial, Duration max) {
        return new CommitOptions(
                maxAttempts,
                initial,
                max,
                writeTransactionFile,
                inlineTransaction,
                namingScheme,
                dataFormat,
                stableRowIds,
                writeVersionHint,
                commitHandler,
                clock,
                failureRetries);
    }

    public CommitOptions withNewTable(ManifestNamingScheme scheme, DataStorageFormat format, boolean stableIds) {
        return new CommitOptions(
                maxAttempts,
                initialBackoff,
                maxBackoff,
                writeTransactionFile,
                inlineTransaction,
                scheme,
                format,
                stableIds,
                writeVersionHint,
                commitHandler,
                clock,
                failureRetries);
    }

    public CommitOptions withTransactionStorage(boolean file, boolean inline) {
        return new CommitOptions(
                maxAttempts,
                initialBackoff,
                maxBackoff,
                file,
                inline,
                namingScheme,
                dataFormat,
                stableRowIds,
                writeVersionHint,
                commitHandler,
                clock,
                failureRetries);
    }

    public CommitOptions withCommitHandler(CommitHandler handler) {
        return new CommitOptions(
                maxAttempts,
                initialBackoff,
                maxBackoff,
                writeTransactionFile,
                inlineTransaction,
                namingScheme,
                dataFormat,
                stableRowIds,
                writeVersionHint,
                handler,
                clock,
                failureRetries);
    }

    public CommitOptions withClock(Clock c) {
        return new CommitOptions(
                maxAttempts,
                initialBackoff,
                maxBackoff,
                writeTransactionFile,
                inlineTransaction,
                namingScheme,
                dataFormat,
                stableRowIds,
                writeVersionHint,
                commitHandler,
                c,
                failureRetries);
    }

    public CommitOptions withFailureRetries(FailureRetries retries) {
        return new CommitOptions(
                maxAttempts,
                initialBackoff,
                maxBackoff,
                writeTransactionFile,
                inlineTransaction,
                namingScheme,
                dataFormat,
                stableRowIds,
                writeVersionHint,
                commitHandler,
                clock,
                retries);
    }
}
