package dev.lanceflink.txn;

import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.PutOutcomeUnknownException;
import dev.lanceflink.table.FeatureFlags;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.ManifestIO;
import dev.lanceflink.table.ManifestLocation;
import dev.lanceflink.table.ManifestNamingScheme;
import dev.lanceflink.table.VersionNotFoundException;
import dev.lanceflink.table.VersionResolver;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The commit loop. Commits a transaction with optimistic concurrency (transactions.md §4.2):
 * load the latest version, check every transaction committed since the read version for conflicts
 * (rebasing deletion vectors where two deletes touched the same fragment), write the {@code .txn}
 * file, build the manifest, publish it create-only, and on a lost race start over after a
 * {@link Backoff}. A failed commit leaves nothing referenced behind: its transaction file and
 * rebased deletion files are deleted (best effort; unreferenced files are garbage either way).
 *
 * <p>A writer that re-targets its change at the latest version on every attempt, with its own
 * rules for what other writers may have committed since it read the table, gives a
 * {@link CommitPlan} instead of a transaction: the same loop then runs the plan's check against
 * every concurrent transaction, builds the operation on the latest version and publishes it as
 * exactly the next one.
 *
 * <p>This is the only retry loop of a commit. Besides lost races it retries, when the options allow
 * ({@link CommitOptions#failureRetries()}), attempts that failed on a store error or a retryable
 * conflict, keeping the transaction: a publication whose response was lost is then recognised by
 * its uuid as this commit's own version (directly at its version number, or among the concurrent
 * versions if it landed late), never published again as another version.
 *
 * <p>A publication whose outcome the store could not tell, and that was not there when looked for,
 * stays in doubt until its version is seen taken by another writer: until then nothing it
 * references is deleted or rewritten (a rebuilt transaction gets a {@code .txn} file of its own),
 * and a commit that stops meanwhile, for whatever reason, ends in {@link
 * CommitOutcomeUnknownException} rather than a conflict, so that no caller deletes what it staged
 * for a version that may still appear.
 */
public final class TableCommitter {
    private static final Logger LOG = LoggerFactory.getLogger(TableCommitter.class);

    private TableCommitter() {}

    /**
     * Commits {@code txn} and returns the new manifest.
     *
     * @throws CommitConflictException if a concurrent commit conflicts (see {@link
     *     CommitConflictException#isRetryable()}) or other writers kept winning for
     *     {@code maxAttempts} attempts
     * @throws dev.lanceflink.table.UnsupportedTableFeatureException if the table's writer flags
     *     contain a feature this library does not implement
     */
    public static Manifest commit(ObjectStore store, Transaction txn, CommitOptions options) throws IOException {
        return new Attempts(store, txn, txn.readVersion(), options).run();
    }

    /**
     * Commits {@code txn}, whose operation was built on version {@code builtOn} although the
     * statement or task behind it read the older {@code txn.readVersion()} (e.g. a row-level
     * statement whose checkpoint is committed later, or a compaction re-targeted at the latest
     * version): the transaction keeps that read version, as Lance does, and only the versions
     * after {@code builtOn} are checked for conflicts and rebased over.
     */
    public static Manifest commit(ObjectStore store, Transaction txn, long builtOn, CommitOptions options)
            throws IOException {
        if (Long.compareUnsigned(builtOn, txn.readVersion()) < 0) {
            throw new IllegalArgumentException("Transaction " + txn.uuid() + " read version " + txn.readVersion()
                    + ", so its operation cannot have been built on the older version " + builtOn);
        }
        return new Attempts(store, txn, builtOn, options).run();
    }

    /**
     * Commits the change {@code plan} builds (see {@link CommitPlan}) and returns the new manifest,
     * or empty if the plan found nothing left to commit. {@code history} caches the transactions
     * the checks read; share it between the commits of one writer.
     *
     * @throws CommitConflictException if other writers kept winning for {@code maxAttempts}
     *     attempts; whatever the plan's check or build throws fails the commit as it is, unless the
     *     options' failure retries allow another attempt and {@link CommitPlan#mayRetry} agrees
     */
    public static Optional<Manifest> commit(
            ObjectStore store, CommitPlan plan, TableHistory history, CommitOptions options) throws IOException {
        Attempts a = new Attempts(
                store,
                Transaction.of(plan.readVersion(), new Operation.ReserveFragments(0), plan.properties()),
                plan.readVersion(),
                options);
        a.plan = plan;
        a.history = history;
        Manifest m = a.run();
        return a.nothingToCommit ? Optional.empty() : Optional.of(m);
    }

    /**
     * Whether a commit whose attempt failed with {@code failure} may try again when its options
     * allow ({@link CommitOptions#failureRetries()}): a store error or a retryable conflict, not a
     * conflict that is not retryable.
     */
    static boolean retryableFailure(IOException failure) {
        return !(failure instanceof CommitConflictException c) || c.isRetryable();
    }

    /** The state of one commit across its attempts. */
    private static final class Attempts {
        private final ObjectStore store;
        private final CommitOptions options;
        /** Set for a commit whose operation every attempt builds on the latest version, else null. */
        private CommitPlan plan;

        private TableHistory history;
        /** The operation the current attempt of a plan built, while it may still lose the race. */
        private Operation built;

        private boolean nothingToCommit;
        /** Whether a publication of this commit had an unknown outcome: its versions may appear late. */
        private boolean publishedInDoubt;

        private final List<String> writtenFiles = new ArrayList<>();
        private Transaction current;
        /**
         * The version {@code current}'s operation is up to date with: its build version, then the
         * latest version each attempt checked and rebased over. The transaction's read version stays
         * what the writer read (Lance keeps it too; a DataReplacement supersedes only the overlays
         * committed up to it).
         */
        private long checkedThrough;

        private String txnFilePath;
        /** The transaction whose {@code .txn} file is at {@link #txnFilePath}. */
        private Transaction txnFileOf;
        /**
         * {@link #encodedOf}'s last result and its transaction: the {@code .txn} file and the
         * manifest's inline copy take the same bytes, encoded once per changed transaction (an
         * overlay merge's {@code Merge} lists the whole table: tens of MB to encode).
         */
        private byte[] encoded;

        private Transaction encodedOf;
        /** Every {@code .txn} file this commit wrote and has not deleted (paths under the root). */
        private final List<String> txnFiles = new ArrayList<>();

        /**
         * The version a publication of ours went to whose outcome the store could not tell and that
         * was not found there afterwards, or -1. Such a publication may still land (its request
         * still in flight), so it stays in doubt until that version is seen holding another
         * writer's transaction (ours can then never land there) or ours (then that is the commit).
         */
        private long inDoubtVersion = -1;
        /**
         * What that publication references (its {@code .txn} file, rebased deletion files): while
         * it is in doubt these are neither deleted nor rewritten, whatever becomes of the commit.
         */
        private final Set<String> inDoubtFiles = new HashSet<>();

        private long uncertainVersion = -1;
        /** The last version a publish of ours went to with an unknown outcome that is unresolved, or -1. */
        private long doubtfulVersion = -1;

        Attempts(ObjectStore store, Transaction txn, long builtOn, CommitOptions options) {
            this.store = store;
            this.current = txn;
            this.checkedThrough = builtOn;
            this.options = options;
            this.history = new TableHistory(store);
        }

        Manifest run() throws IOException {
            boolean done = false;
            CommitGate gate = plan == null ? null : CommitGate.of(store.rootUri());
            boolean holding = false;
            try {
                int races = 0; // lost races since the commit started or last failed
                int failures = 0;
                while (true) {
                    if (gate != null && !holding) {
                        int holdAfter = plan.holdsGateAfterLostRaces();
                        if (holdAfter > 0 && races >= holdAfter) {
                            holding = gate.hold(this, CommitGate.MAX_WAIT);
                            LOG.debug(
                                    "Commit of {} to {} lost {} races in a row; {} the table's commit gate",
                                    current.operation().name(),
                                    store.rootUri(),
                                    races,
                                    holding ? "holding" : "could not take");
                        } else if (plan.yieldsToSlowCommits()) {
                            gate.awaitOpen(this, CommitGate.MAX_WAIT);
                        }
                    }
                    Optional<Manifest> result = Optional.empty();
                    IOException failure = null;
                    try {
                        result = attempt();
                    } catch (IOException e) {
                        failure = e;
                    }
                    if (failure == null) {
                        if (result.isPresent()) {
                            done = true;
                            return result.get();
                        }
                        if (built != null) {
                            Operation lost = built;
                            built = null;
                            plan.lost(lost);
                        }
                        if (++races < options.maxAttempts()) {
                            Backoff.sleep(races, options.initialBackoff(), options.maxBackoff());
                            continue;
                        }
                        failure = doubtfulVersion >= 0 ? outcomeUnknown(null) : gaveUp();
                    }
                    if (failures + 1 >= options.failureRetries().attempts()
                            || !(plan == null ? retryableFailure(failure) : plan.mayRetry(failure))) {
                        throw failure;
                    }
                    failures++;
                    races = 0;
                    retryAfter(failures, failure);
                }
            } catch (CommitOutcomeUnknownException e) {
                done = true; // files may be referenced by a published version: keep them
                throw e;
            } catch (IOException | RuntimeException e) {
                if (doubtfulVersion >= 0 && !(e instanceof CommitConflictException)) {
                    // An earlier publish of ours may have landed and the check failed: deleting
                    // the files it references would corrupt that version.
                    done = true;
                    throw outcomeUnknown(e);
                }
                if (inDoubtVersion >= 0) {
                    // Whatever ended the commit (a conflict, giving up on lost races, a refusal of
                    // the plan), a publication of it may still land: look once more.
                    Optional<Manifest> ours;
                    try {
                        ours = landed(inDoubtVersion);
                    } catch (IOException | RuntimeException checkFailed) {
                        e.addSuppressed(checkFailed);
                        ours = Optional.empty();
                    }
                    if (ours.isPresent()) {
                        done = true;
                        return finish(ours.get()).orElseThrow();
                    }
                    if (inDoubtVersion >= 0) {
                        // Reported as unknown, not as the failure: a caller that deletes what it
                        // staged after a conflict, or commits the change again, would corrupt or
                        // duplicate the version should it land. Its files are kept.
                        done = true;
                        throw stillInDoubt(e);
                    }
                }
                throw e;
            } finally {
                if (holding) {
                    gate.release(this);
                }
                if (!done) {
                    cleanup(null);
                }
            }
        }

        private CommitConflictException gaveUp() {
            return new CommitConflictException(
                    "Commit of " + current.operation().name() + " (transaction "
                            + current.uuid() + ") to " + store.rootUri() + " gave up after " + options.maxAttempts()
                            + " attempts: other writers committed first every time. Retry later or reduce the number of"
                            + " concurrent writers",
                    true,
                    -1);
        }

        /**
         * Prepares the next attempt after the {@code failures}-th failed one. The commit keeps its
         * transaction: a publication whose outcome the failure left unknown is looked for first
         * and, should it land later, recognised by its uuid among the concurrent versions.
         */
        private void retryAfter(int failures, IOException failure) throws IOException {
            if (doubtfulVersion >= 0) {
                uncertainVersion = doubtfulVersion;
                publishedInDoubt = true;
            }
            Operation op = built;
            built = null; // not lost to another writer: the plan is told below, not through lost()
            LOG.debug(
                    "Attempt {} of {}'s commit (transaction {}) to {} failed ({}); trying again",
                    failures,
                    current.operation().name(),
                    current.uuid(),
                    store.rootUri(),
                    failure.toString());
            if (plan != null) {
                plan.retrying(failures, failure, op, publishedInDoubt);
            }
            CommitOptions.FailureRetries retries = options.failureRetries();
            Backoff.sleep(failures, retries.initialBackoff(), retries.maxBackoff());
        }

        private CommitOutcomeUnknownException outcomeUnknown(Throwable cause) {
            return new CommitOutcomeUnknownException(
                    "Commit of " + current.operation().name() + " (transaction "
                            + current.uuid() + ") to " + store.rootUri() + " may have been published as version "
                            + doubtfulVersion + ": the store lost the response and the check afterwards failed"
                            + (cause == null ? "" : " (" + cause.getMessage() + ")")
                            + ". Look for a version whose transaction"
                            + " has uuid " + current.uuid() + " before committing the change again",
                    current.uuid(),
                    doubtfulVersion,
                    cause);
        }

        private CommitOutcomeUnknownException stillInDoubt(Throwable cause) {
            return new CommitOutcomeUnknownException(
                    "Commit of " + current.operation().name() + " (transaction "
                            + current.uuid() + ") to " + store.rootUri() + " may still be published as version "
                            + inDoubtVersion + ": the store could not tell whether that publication applied, and"
                            + " the version was not there when the commit stopped (" + cause.getMessage()
                            + "). Its files are kept. Look for a version whose transaction has uuid "
                            + current.uuid() + " before committing the change again",
                    current.uuid(),
                    inDoubtVersion,
                    cause);
        }

        /** Notes that the publication to {@code version} is in doubt, with everything it references. */
        private void markInDoubt(long version) {
            inDoubtVersion = version;
            if (txnFilePath != null) {
                inDoubtFiles.add(txnFilePath);
            }
            inDoubtFiles.addAll(writtenFiles);
        }

        /** The encoding of {@code t}, kept while {@code t} stays the transaction being committed. */
        private byte[] encodedOf(Transaction t) {
            if (encodedOf != t) {
                encoded = TransactionCodec.encode(t);
                encodedOf = t;
            }
            return encoded;
        }

        /** One attempt: the committed manifest, or empty if another writer won the race. */
        private Optional<Manifest> attempt() throws IOException {
            ManifestLocation latestLoc = latestOrNull();
            Manifest latest = latestLoc == null ? null : ManifestIO.read(store, latestLoc);
            if (uncertainVersion >= 0) {
                Optional<Manifest> ours = landed(uncertainVersion);
                if (ours.isPresent()) {
                    return finish(ours.get());
                }
                uncertainVersion = -1;
                doubtfulVersion = -1; // checked: that version is not ours (the next publish may retry it)
            }
            if (inDoubtVersion >= 0 && latest != null && Long.compareUnsigned(latest.version(), inDoubtVersion) >= 0) {
                Optional<Manifest> ours = landed(inDoubtVersion); // another writer's: no longer in doubt
                if (ours.isPresent()) {
                    return finish(ours.get());
                }
            }
            if (plan != null) {
                if (latest == null) {
                    throw new VersionNotFoundException(
                            "Table " + store.rootUri() + " has no versions; create it" + " before committing to it");
                }
                FeatureFlags.checkWritable(latest.writerFeatureFlags(), store.rootUri() + "/" + latestLoc.path());
                Optional<Manifest> already = checkPlan(latest);
                if (already.isPresent()) {
                    return finish(already.get());
                }
                Optional<Operation> op = plan.build(latest);
                if (op.isEmpty()) {
                    nothingToCommit = true;
                    cleanup(null); // an earlier attempt's transaction file
                    return Optional.of(latest);
                }
                built = op.get();
                current = current.withOperation(op.get());
                checkedThrough = latest.version();
            } else if (latest == null) {
                if (current.readVersion() != 0) {
                    throw new VersionNotFoundException("Table " + store.rootUri() + " has no versions, but transaction "
                            + current.uuid() + " was computed against version " + current.readVersion());
                }
            } else {
                FeatureFlags.checkWritable(latest.writerFeatureFlags(), store.rootUri() + "/" + latestLoc.path());
                if (Long.compareUnsigned(latest.version(), checkedThrough) < 0) {
                    throw new VersionNotFoundException(
                            "Transaction " + current.uuid() + " was computed against version "
                                    + checkedThrough + " of " + store.rootUri() + ", but the latest version is "
                                    + latest.version());
                }
                Optional<Manifest> already = checkConcurrent(latest);
                if (already.isPresent()) {
                    return finish(already.get());
                }
            }
            ManifestNamingScheme scheme = latestLoc == null ? options.namingScheme() : latestLoc.scheme();
            long newVersion = latest == null ? 1 : latest.version() + 1;
            String txnFileName = "";
            if (options.writeTransactionFile()) {
                // The file name holds the read version, which never changes: write it again only
                // when a rebase changed the transaction.
                if (txnFileOf != current) {
                    String name;
                    if (txnFilePath != null && inDoubtFiles.contains(txnFilePath)) {
                        // A publication that may still land names that file: it must go on saying
                        // what that publication committed. The changed transaction gets a new name.
                        name = Long.toUnsignedString(current.readVersion()) + "-" + current.uuid() + "-"
                                + txnFiles.size() + ".txn";
                    } else {
                        name = txnFilePath == null
                                ? current.fileName()
                                : txnFilePath.substring(Transaction.TRANSACTIONS_DIR.length() + 1);
                        deleteQuietly(txnFilePath);
                        txnFiles.remove(txnFilePath);
                    }
                    TransactionStore.writeFile(store, encodedOf(current), name);
                    txnFilePath = Transaction.TRANSACTIONS_DIR + "/" + name;
                    txnFiles.add(txnFilePath);
                    txnFileOf = current;
                }
                txnFileName = txnFilePath.substring(Transaction.TRANSACTIONS_DIR.length() + 1);
            }
            ManifestBuilder.Options buildOptions = new ManifestBuilder.Options(
                    options.clock().instant(),
                    txnFileName,
                    options.inlineTransaction(),
                    options.dataFormat(),
                    options.stableRowIds(),
                    options.inlineTransaction() ? encodedOf(current) : null);
            Manifest manifest;
            if (current.operation() instanceof Operation.Restore r && latest != null) {
                Manifest restored = history.manifest(r.version());
                manifest = ManifestBuilder.buildRestore(latest, restored, current, buildOptions);
            } else {
                manifest = ManifestBuilder.build(latest, current, buildOptions);
            }
            String path = scheme.path(newVersion);
            boolean created;
            try {
                created = options.commitHandler().publish(store, path, ManifestIO.serialize(manifest));
            } catch (PutOutcomeUnknownException e) {
                LOG.warn("Outcome of publishing {} is unknown ({}); checking whether it landed", path, e.getMessage());
                doubtfulVersion = newVersion; // until a check says otherwise, version newVersion may be ours
                built = null; // it may land later: keep what it references
                publishedInDoubt = true;
                markInDoubt(newVersion); // until that version is seen to be another writer's
                Optional<Manifest> ours = landed(newVersion);
                if (ours.isPresent()) {
                    return finish(ours.get());
                }
                // Checked: not there now. A late landing is still caught by the next attempt's
                // check and by the uuid scan of concurrent versions.
                doubtfulVersion = -1;
                uncertainVersion = newVersion;
                return Optional.empty();
            } catch (IOException | RuntimeException e) {
                // Any other failure of the publish may also have happened after the store applied
                // it: look before letting the cleanup delete files that version would reference.
                doubtfulVersion = newVersion;
                Optional<Manifest> ours;
                try {
                    ours = landed(newVersion);
                } catch (IOException | RuntimeException checkFailed) {
                    markInDoubt(newVersion);
                    throw checkFailed;
                }
                if (ours.isPresent()) {
                    return finish(ours.get());
                }
                doubtfulVersion = -1;
                throw e;
            }
            if (created) {
                return finish(manifest);
            }
            Optional<Manifest> ours = landed(newVersion); // an earlier uncertain put may have landed after all
            if (ours.isPresent()) {
                return finish(ours.get());
            }
            LOG.debug("Lost the race for version {} of {}; retrying", newVersion, store.rootUri());
            return Optional.empty();
        }

        private ManifestLocation latestOrNull() throws IOException {
            try {
                return VersionResolver.latest(store);
            } catch (VersionNotFoundException e) {
                return null;
            }
        }

        /**
         * Checks the transactions of versions {@code (checkedThrough, latest]} against ours, rebasing
         * deletion vectors when needed; afterwards our operation is up to date with {@code latest}.
         * Returns the manifest if one of those versions is our own transaction (an uncertain put
         * that landed).
         */
        private Optional<Manifest> checkConcurrent(Manifest latest) throws IOException {
            long from = checkedThrough;
            if (latest.version() == from) {
                return Optional.empty();
            }
            Set<Long> rebase = new HashSet<>();
            for (long w = from + 1; w <= latest.version(); w++) {
                Optional<Transaction> known = history.transaction(w);
                // Missing, or without a transaction: read it directly for the precise error.
                Transaction theirs = known.isPresent() ? known.get() : TransactionStore.readForVersion(store, w);
                if (theirs.uuid().equals(current.uuid())) {
                    return Optional.of(history.manifest(w));
                }
                if (theirs.operation() instanceof Operation.Unknown u) {
                    throw new CommitConflictException(
                            "Commit of " + current.operation().name() + " (transaction "
                                    + current.uuid() + ") to " + store.rootUri() + " refused: "
                                    + u.refusal(
                                            w,
                                            store.rootUri(),
                                            "this commit cannot be checked for conflicts against it"),
                            false,
                            w);
                }
                ConflictOutcome outcome = ConflictResolver.check(current, theirs);
                if (outcome instanceof ConflictOutcome.Retryable r) {
                    throw conflict(r.reason(), true, w, theirs);
                } else if (outcome instanceof ConflictOutcome.Incompatible i) {
                    throw conflict(i.reason(), false, w, theirs);
                } else if (outcome instanceof ConflictOutcome.Rebase rb) {
                    rebase.addAll(rb.fragmentIds());
                }
            }
            requireFreePinnedIds(latest);
            if (!rebase.isEmpty()) {
                Manifest base = history.manifest(from);
                current = DeletionRebaser.rebase(store, current, base, latest, rebase, writtenFiles);
            }
            checkedThrough = latest.version();
            return Optional.empty();
        }

        /**
         * Runs the plan's check on every version after its read version up to {@code latest}.
         * After a publication of this commit with an unknown outcome, returns the manifest of the
         * version among them that is this commit's own, if one is.
         */
        private Optional<Manifest> checkPlan(Manifest latest) throws IOException {
            if (Long.compareUnsigned(latest.version(), plan.readVersion()) < 0) {
                throw new VersionNotFoundException("Commit of transaction " + current.uuid() + " read version "
                        + plan.readVersion() + " of " + store.rootUri() + ", but the latest version is "
                        + latest.version() + " (was the table deleted and created again?)");
            }
            for (long v = plan.readVersion() + 1; v <= latest.version(); v++) {
                if (publishedInDoubt) {
                    Optional<TableHistory.Committed> c = history.version(v);
                    if (c.isPresent()
                            && c.get()
                                    .transaction()
                                    .map(t -> t.uuid().equals(current.uuid()))
                                    .orElse(false)) {
                        return Optional.of(history.manifest(c.get()));
                    }
                }
                plan.check(v, history, latest);
            }
            return Optional.empty();
        }

        /**
         * New fragments whose ids were chosen before the commit (a new fragment with a deletion
         * file: the file is named after its fragment id) cannot be renumbered when the commit is
         * rebased. If a concurrent commit has used those ids, committing would duplicate them: a
         * retryable conflict, so the writer builds its change again against the newer version.
         */
        private void requireFreePinnedIds(Manifest latest) throws CommitConflictException {
            List<Fragment> fresh = current.operation() instanceof Operation.Update u
                    ? u.newFragments()
                    : current.operation() instanceof Operation.Append a ? a.fragments() : List.of();
            long next = latest.nextFragmentId();
            for (Fragment f : fresh) {
                if ((f.id() != 0 || f.deletionFile() != null) && f.id() < next) {
                    throw new CommitConflictException(
                            "Commit of " + current.operation().name() + " (transaction "
                                    + current.uuid() + ", read version " + current.readVersion() + ") to "
                                    + store.rootUri()
                                    + " failed: its new fragment " + f.id()
                                    + " has an id chosen before the commit (its deletion"
                                    + " file is named after it), and version " + latest.version()
                                    + " already uses ids up to "
                                    + (next - 1) + ". Re-read the table, redo the change and commit again.",
                            true,
                            latest.version());
                }
            }
        }

        private CommitConflictException conflict(String reason, boolean retryable, long version, Transaction theirs) {
            return new CommitConflictException(
                    "Commit of " + current.operation().name() + " (transaction "
                            + current.uuid() + ", read version " + current.readVersion() + ") to " + store.rootUri()
                            + " failed: " + reason + " (transaction " + theirs.uuid() + ", committed as version "
                            + version
                            + "). "
                            + (retryable
                                    ? "Re-read the table, redo the change and commit again."
                                    : "The operations contradict each other; do not retry blindly."),
                    retryable,
                    version);
        }

        /**
         * The manifest at {@code version} if it exists and was produced by our transaction. A
         * version found holding another writer's transaction ends the doubt about a publication of
         * ours to it: ours can never land there.
         */
        private Optional<Manifest> landed(long version) throws IOException {
            Optional<ManifestLocation> loc = VersionResolver.find(store, version);
            if (loc.isEmpty()) {
                return Optional.empty();
            }
            Manifest m = ManifestIO.read(store, loc.get());
            Optional<Transaction> t = TransactionStore.read(store, m);
            if (t.isPresent() && t.get().uuid().equals(current.uuid())) {
                return Optional.of(m);
            }
            if (version == inDoubtVersion) {
                inDoubtVersion = -1;
                inDoubtFiles.clear();
            }
            return Optional.empty();
        }

        private Optional<Manifest> finish(Manifest committed) {
            built = null; // published (or an earlier attempt's operation was): its files are referenced
            cleanup(committed);
            if (options.writeVersionHint()) {
                VersionResolver.writeHint(store, committed.version());
            }
            return Optional.of(committed);
        }

        /**
         * Deletes files this commit wrote that {@code committed} (null = nothing) does not
         * reference. Without a committed version, those of a publication still in doubt stay: it
         * may land. (Once a version is committed, no earlier publication can: each went to a
         * version that is now taken.)
         */
        private void cleanup(Manifest committed) {
            Set<String> referenced = new HashSet<>();
            if (committed != null) {
                if (!committed.transactionFile().isEmpty()) {
                    referenced.add(Transaction.TRANSACTIONS_DIR + "/" + committed.transactionFile());
                }
                committed.fragments().forEach(f -> {
                    // Only files under the root can be this commit's own (those under base paths are kept ones).
                    if (f.deletionFile() != null && f.deletionFile().baseId().isEmpty()) {
                        referenced.add(f.deletionFile().rootRelativePath(f.id()));
                    }
                });
            }
            if (committed == null && inDoubtVersion >= 0) {
                referenced.addAll(inDoubtFiles);
            }
            for (String p : txnFiles) {
                if (!referenced.contains(p)) {
                    deleteQuietly(p);
                }
            }
            for (String p : writtenFiles) {
                if (!referenced.contains(p)) {
                    deleteQuietly(p);
                }
            }
        }

        private void deleteQuietly(String path) {
            if (path == null) {
                return;
            }
            try {
                store.delete(path);
            } catch (IOException | RuntimeException e) {
                LOG.debug("Could not delete unreferenced file {}: {}", path, e.getMessage());
            }
        }
    }
}
