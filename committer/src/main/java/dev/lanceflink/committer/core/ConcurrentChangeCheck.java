package dev.lanceflink.committer.core;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.deletion.DeletionFiles;
import dev.lanceflink.deletion.DeletionVector;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.schema.LanceField;
import dev.lanceflink.table.CorruptTableException;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.TableSnapshot;
import dev.lanceflink.txn.Operation;
import dev.lanceflink.txn.TableHistory;
import dev.lanceflink.txn.Transaction;
import java.io.IOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;
import org.roaringbitmap.IntIterator;
import org.roaringbitmap.RoaringBitmap;

/**
 * Fails the commit of a row-level statement ({@code UPDATE}, row-level {@code DELETE}) when
 * another writer changed the rows it read after it read them.
 *
 * <p>Such a statement computes its changes from one pinned version (the read version): new
 * values from old ones ({@code SET age = age + 1}) at row addresses taken from that version.
 * Lance's own conflict rules let a {@code DataOverlay} commit on top of any concurrent overlay,
 * and its deletion rebase merges concurrent deletions; that is right for blind writes, but here
 * it would lose an update (two statements increment the same cell, one increment survives) or
 * put values at addresses whose rows were moved. So before every commit attempt of a checkpoint,
 * the transactions of the versions after the read version are checked, and the commit fails on:
 * <ul>
 *   <li>{@code Overwrite} or {@code Restore}: the rows read are not the table's rows any more;
 *   <li>{@code Rewrite} (compaction), {@code Update}, {@code DataReplacement} of a fragment the
 *       checkpoint changes, and any {@code Merge}: the rows moved, or their stored values changed
 *       (except the overlay compactions, which keep both; see {@link #preservesValuesAndAddresses});
 *   <li>for overlays, a concurrent {@code DataOverlay} that covers one of the same
 *       (fragment, offset, field) cells: one of the two new values would be lost. Overlays of
 *       other cells, or other fields of the same rows, are fine.
 * </ul>
 * Concurrent deletions never conflict: a deletion wins over an overlay, and two deletions of the
 * same rows merge. A rewrite-rows statement ({@link CheckpointCommit#rewriteRows()}) is stricter:
 * it copies whole rows as it read them into new rows, so a concurrent overlay of any field of
 * those rows (the other writer's value would be lost) or a concurrent deletion of one of them (the
 * row would come back) fails it. Versions committed by this sink (same commit user, e.g. the statement's own
 * earlier steps) are not conflicts. A version in the range whose transaction cannot be read
 * (removed by cleanup) is treated as a conflict: nothing proves it harmless.
 *
 * <p>The check and the commit must see the same latest version, or a commit landing between the
 * two would slip through Lance's more lenient rebase: the commit loop ({@link
 * dev.lanceflink.txn.TableCommitter} with a {@link dev.lanceflink.txn.CommitPlan}) runs this check
 * on every version after the read version and publishes exactly the version after the checked
 * one; another writer getting there first makes it check the new versions too.
 *
 * <p>Committed versions never change, so each transaction is read once ({@link TableHistory}).
 */
public final class ConcurrentChangeCheck {
    private final ObjectStore store;
    private final TableHistory history;
    private final long readVersion;
    /** The targets of the last (commit, steps) checked: every version is checked with the same ones. */
    private StepTargets targets;

    private CheckpointCommit targetsCommit;
    private Set<CommitStep> targetsSteps;

    /** @param readVersion the version the statement's scan read (at least 1) */
    public ConcurrentChangeCheck(ObjectStore store, long readVersion) {
        this(new TableHistory(requireNonNull(store, "store is null")), readVersion);
    }

    /** A check reading the transactions through {@code history} (shared with the commit loop). */
    public ConcurrentChangeCheck(TableHistory history, long readVersion) {
        this.history = requireNonNull(history, "history is null");
        this.store = history.store();
        if (readVersion < 1) {
            throw new IllegalArgumentException("readVersion must be at least 1, got " + readVersion);
        }
        this.readVersion = readVersion;
    }

    public long readVersion() {
        return readVersion;
    }

    /**
     * Checks the versions after the read version up to {@code latest} against what {@code steps}
     * of {@code commit} change.
     *
     * @throws CheckpointCommitException naming the conflicting version, its operation and the
     *     fragment (and field) both touch, if one of them conflicts
     */
    public void check(CheckpointCommit commit, Set<CommitStep> steps, Manifest latest) throws IOException {
        for (long v = readVersion + 1; v <= latest.version(); v++) {
            check(commit, steps, v, latest);
        }
        if (latest.version() < readVersion) {
            check(commit, steps, readVersion, latest); // fails, unless nothing depends on what was read
        }
    }

    /**
     * Checks version {@code version}, committed after the read version, against what {@code steps}
     * of {@code commit} change (the commit loop calls this for every concurrent version).
     *
     * @throws CheckpointCommitException naming the version, its operation and the fragment (and
     *     field) both touch, if it conflicts
     */
    public void check(CheckpointCommit commit, Set<CommitStep> steps, long version, Manifest latest)
            throws IOException {
        if (steps.stream()
                .allMatch(s -> s == CommitStep.APPEND && commit.deletionsOf(s).isEmpty())) {
            return; // new rows do not depend on what the statement read
        }
        if (latest.version() < readVersion) {
            throw failure(
                    commit,
                    steps,
                    latest.version(),
                    "the latest version is older than the version the statement"
                            + " read (was the table deleted and created again?)");
        }
        Transaction theirs = transaction(commit, steps, version);
        if (isOwnCommit(theirs, commit.commitUser(), version)) {
            return;
        }
        if (theirs.operation() instanceof Operation.Unknown u) {
            // It may have changed any row: never treat it as compatible.
            throw failure(
                    commit,
                    steps,
                    version,
                    u.refusal(
                            version,
                            store.rootUri(),
                            "it cannot be checked for changes to the rows the statement read"));
        }
        if (preservesValuesAndAddresses(theirs)) {
            return;
        }
        Optional<String> reason = conflict(targets(commit, steps), theirs.operation(), latest, store);
        if (reason.isPresent()) {
            throw failure(
                    commit,
                    steps,
                    version,
                    "version " + version + " (" + theirs.operation().name() + ", committed by " + committer(theirs)
                            + ") " + reason.get());
        }
    }

    private StepTargets targets(CheckpointCommit commit, Set<CommitStep> steps) throws IOException {
        if (targets == null || targetsCommit != commit || !targetsSteps.equals(steps)) {
            targets = StepTargets.of(commit, steps);
            targetsCommit = commit;
            targetsSteps = Set.copyOf(steps);
        }
        return targets;
    }

    private Transaction transaction(CheckpointCommit commit, Set<CommitStep> steps, long version) throws IOException {
        Optional<TableHistory.Committed> committed;
        try {
            committed = history.version(version);
        } catch (CorruptTableException e) {
            throw CheckpointCommitException.permanent(
                    message(
                            commit,
                            steps,
                            version,
                            "the transaction of version "
                                    + version + " cannot be read (" + e.getMessage()
                                    + "), so it cannot be checked for changes to the"
                                    + " rows the statement read"),
                    e);
        }
        if (committed.isEmpty()) {
            throw failure(
                    commit,
                    steps,
                    version,
                    "version " + version + " no longer exists (removed by a version"
                            + " cleanup), so it cannot be checked for changes to the rows the statement read");
        }
        return committed
                .get()
                .transaction()
                .orElseThrow(
                        () -> failure(
                                commit,
                                steps,
                                version,
                                "version " + version
                                        + " records no transaction, so it cannot be checked for changes to the rows the statement read"));
    }

    private static boolean isOwnCommit(Transaction txn, String commitUser, long version) {
        return marker(txn, version).map(m -> m.commitUser().equals(commitUser)).orElse(false);
    }

    private static Optional<CommitMarker> marker(Transaction txn, long version) {
        try {
            return CommitMarker.fromProperties(txn.properties(), "version " + version);
        } catch (IllegalStateException malformed) {
            return Optional.empty(); // not provably ours: checked like any other writer's
        }
    }

    /**
     * The overlay compactions ({@code overlay-merge} commits a Merge, {@code overlay-fold} an
     * Update) leave every row at its address with the same values: what the statement read is
     * still what the table holds, so they are not conflicts. The {@code fragments} compaction
     * moves rows (a Rewrite) and is checked like any other writer's change.
     */
    private static boolean preservesValuesAndAddresses(Transaction txn) {
        String mode = txn.properties().get(Transaction.COMPACTION_MODE_PROPERTY);
        return (Transaction.COMPACTION_OVERLAY_MERGE.equals(mode) && txn.operation() instanceof Operation.Merge)
                || (Transaction.COMPACTION_OVERLAY_FOLD.equals(mode) && txn.operation() instanceof Operation.Update);
    }

    private static String committer(Transaction txn) {
        return marker(txn, 0)
                .map(m -> "Flink sink " + m.commitUser() + (m.jobId().isEmpty() ? "" : " of job " + m.jobId()))
                .orElse("another writer");
    }

    /** Why {@code theirs} conflicts with the checkpoint's changes, or empty if it does not. */
    private static Optional<String> conflict(StepTargets mine, Operation theirs, Manifest latest, ObjectStore store)
            throws IOException {
        if (theirs instanceof Operation.Overwrite) {
            return Optional.of("replaced the table's whole content");
        }
        if (theirs instanceof Operation.Restore r) {
            return Optional.of("restored the table to version " + r.version());
        }
        if (theirs instanceof Operation.Merge) {
            return Optional.of("replaced the fragments' data files or overlays (a Merge, e.g. adding columns)");
        }
        if (theirs instanceof Operation.Project p) {
            // A rename keeps the field id, and the overlays land in the renamed column; a dropped
            // column's overlays would be committed and never read (see TableSnapshot.firstDropped).
            OptionalInt dropped = TableSnapshot.firstDropped(p.schema(), mine.overlaidFields());
            if (dropped.isPresent()) {
                return Optional.of("dropped the column with field id " + dropped.getAsInt()
                        + ", which the statement writes (its values would be lost)");
            }
            return Optional.empty();
        }
        if (theirs instanceof Operation.Rewrite r) {
            return mine.touched(r.oldFragmentIds())
                    .map(ids -> "rewrote (compacted) fragment(s) " + ids
                            + ", moving the rows the statement read to new addresses");
        }
        if (theirs instanceof Operation.Update u) {
            Set<Long> ids = new HashSet<>(u.removedFragmentIds());
            for (Fragment f : u.updatedFragments()) {
                ids.add(f.id());
            }
            return mine.touched(ids).map(t -> "updated rows of fragment(s) " + t + " (" + u.mode() + ")");
        }
        if (theirs instanceof Operation.DataReplacement d) {
            Set<Long> ids = new HashSet<>();
            for (Operation.DataReplacementGroup g : d.replacements()) {
                ids.add(g.fragmentId());
            }
            return mine.touched(ids).map(t -> "replaced column data of fragment(s) " + t);
        }
        if (theirs instanceof Operation.DataOverlay o) {
            return mine.rewritten().isEmpty()
                    ? mine.overlappingCells(o, latest)
                    : mine.overlaidRewrittenRows(o, latest);
        }
        if (theirs instanceof Operation.Delete d && !mine.rewritten().isEmpty()) {
            return mine.deletedRewrittenRows(d, store);
        }
        return Optional.empty();
    }

    private CheckpointCommitException failure(
            CheckpointCommit commit, Set<CommitStep> steps, long version, String why) {
        return CheckpointCommitException.permanent(message(commit, steps, version, why));
    }

    private String message(CheckpointCommit commit, Set<CommitStep> steps, long version, String why) {
        return "The changes of " + commit.describe() + " are not committed to " + store.rootUri() + ": the"
                + " statement read version " + readVersion + ", and " + why + ". Committing would "
                + (steps.contains(CommitStep.OVERLAY) && !commit.overlays().isEmpty()
                        ? "lose an update or write values to the wrong rows"
                        : commit.rewriteRows()
                                ? "lose the other writer's change of the rows it rewrites, or bring deleted rows back"
                                : "delete the wrong rows or miss moved ones")
                + ". The table keeps the other writer's change; rerun the statement, which then reads the current"
                + " version";
    }

    /**
     * The fragments (and, for overlays, the cells) the checkpoint changes; pending targets are the
     * sink's own rows. {@code rewritten}: per fragment, the rows a rewrite-rows checkpoint moves (their values
     * as the statement read them go into the new rows, so any later change of them conflicts).
     */
    private record StepTargets(
            Set<Long> fragments, Map<Long, Map<Integer, RoaringBitmap>> cells, Map<Long, RoaringBitmap> rewritten) {
        static StepTargets of(CheckpointCommit commit, Set<CommitStep> steps) throws IOException {
            Set<Long> fragments = new TreeSet<>();
            Map<Long, Map<Integer, RoaringBitmap>> cells = new HashMap<>();
            Map<Long, RoaringBitmap> rewritten = new HashMap<>();
            for (CommitStep step : steps) {
                add(commit, step, fragments, cells, rewritten);
            }
            return new StepTargets(fragments, cells, rewritten);
        }

        private static void add(
                CheckpointCommit commit,
                CommitStep step,
                Set<Long> fragments,
                Map<Long, Map<Integer, RoaringBitmap>> cells,
                Map<Long, RoaringBitmap> rewritten)
                throws IOException {
            if (step == CommitStep.DELETE || step == CommitStep.APPEND) {
                boolean rewrites = commit.rewriteRows() && step == CommitStep.APPEND;
                for (TargetedDeletion d : commit.deletionsOf(step)) {
                    if (!d.target().isPending()) {
                        fragments.add(d.target().fragmentId());
                        if (rewrites) {
                            rewritten
                                    .computeIfAbsent(d.target().fragmentId(), k -> new RoaringBitmap())
                                    .or(d.offsets());
                        }
                    }
                }
            } else {
                for (TargetedOverlay o : commit.overlays()) {
                    if (o.target().isPending()) {
                        continue;
                    }
                    fragments.add(o.target().fragmentId());
                    Map<Integer, RoaringBitmap> byField =
                            cells.computeIfAbsent(o.target().fragmentId(), k -> new HashMap<>());
                    DataFile file = o.overlay().dataFile();
                    for (int i = 0; i < file.fieldCount(); i++) {
                        if (file.fieldId(i) != DataFile.TOMBSTONE) {
                            byField.computeIfAbsent(file.fieldId(i), k -> new RoaringBitmap())
                                    .or(o.overlay().coverage().bitmap(i));
                        }
                    }
                }
            }
        }

        Optional<Set<Long>> touched(Set<Long> ids) {
            Set<Long> shared = new TreeSet<>(fragments);
            shared.retainAll(ids);
            return shared.isEmpty() ? Optional.empty() : Optional.of(shared);
        }

        /** The first rewritten row {@code theirs} overlays (any field), described; empty if none. */
        Optional<String> overlaidRewrittenRows(Operation.DataOverlay theirs, Manifest latest) throws IOException {
            for (Operation.OverlayGroup g : theirs.groups()) {
                RoaringBitmap mine = rewritten.get(g.fragmentId());
                if (mine == null) {
                    continue;
                }
                for (DataOverlayFile f : g.overlays()) {
                    RoaringBitmap both = RoaringBitmap.and(mine, f.coverage().union());
                    if (!both.isEmpty()) {
                        return Optional.of("overlaid " + both.getLongCardinality() + " of the rows of fragment "
                                + g.fragmentId() + " this statement rewrites (first offset "
                                + Integer.toUnsignedLong(both.first()) + ")");
                    }
                }
            }
            return Optional.empty();
        }

        /**
         * The first rewritten row {@code theirs} deleted (or whose fragment it removed), described;
         * empty if none. The rows were live in the version the statement read, so any of them in a
         * later deletion vector was deleted since.
         */
        Optional<String> deletedRewrittenRows(Operation.Delete theirs, ObjectStore store) throws IOException {
            for (long id : theirs.deletedFragmentIds()) {
                if (rewritten.containsKey(id)) {
                    return Optional.of("deleted every row of fragment " + id + ", whose rows this statement rewrites");
                }
            }
            for (Fragment f : theirs.updatedFragments()) {
                RoaringBitmap mine = rewritten.get(f.id());
                if (mine == null || f.deletionFile() == null) {
                    continue;
                }
                DeletionVector dv = DeletionFiles.read(store, f.id(), f.deletionFile());
                for (IntIterator it = mine.getIntIterator(); it.hasNext(); ) {
                    int offset = it.next();
                    if (dv.contains(offset)) {
                        return Optional.of("deleted row " + Integer.toUnsignedLong(offset) + " of fragment " + f.id()
                                + ", which this statement rewrites (it would come back as a new row)");
                    }
                }
            }
            return Optional.empty();
        }

        /** The field ids the checkpoint's overlays write, in any fragment. */
        Set<Integer> overlaidFields() {
            Set<Integer> ids = new TreeSet<>();
            for (Map<Integer, RoaringBitmap> fields : cells.values()) {
                ids.addAll(fields.keySet());
            }
            return ids;
        }

        /** The first cell both the checkpoint's overlays and {@code theirs} cover, described; empty if none. */
        Optional<String> overlappingCells(Operation.DataOverlay theirs, Manifest latest) throws IOException {
            for (Operation.OverlayGroup g : theirs.groups()) {
                Map<Integer, RoaringBitmap> mine = cells.get(g.fragmentId());
                if (mine == null) {
                    continue;
                }
                for (DataOverlayFile f : g.overlays()) {
                    DataFile file = f.dataFile();
                    for (int i = 0; i < file.fieldCount(); i++) {
                        RoaringBitmap ours = mine.get(file.fieldId(i));
                        if (ours == null) {
                            continue;
                        }
                        RoaringBitmap both =
                                RoaringBitmap.and(ours, f.coverage().bitmap(i));
                        if (!both.isEmpty()) {
                            int fieldId = file.fieldId(i);
                            String name = latest.schema()
                                    .fieldById(fieldId)
                                    .map(LanceField::name)
                                    .map(n -> "'" + n + "' (id " + fieldId + ")")
                                    .orElse("id " + fieldId);
                            return Optional.of("overlaid field " + name + " of fragment " + g.fragmentId() + " at "
                                    + both.getLongCardinality() + " of the rows this statement updates (first offset "
                                    + Integer.toUnsignedLong(both.first()) + ")");
                        }
                    }
                }
            }
            return Optional.empty();
        }
    }
}
