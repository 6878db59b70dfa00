package dev.lanceflink.txn;

import dev.lanceflink.table.CorruptTableException;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.IndexEntry;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The conflict matrix of transactions.md §5.2: may {@code mine} be committed on top of a version
 * whose transaction was {@code theirs}? Rows are the operation being committed, columns the one
 * already committed. Where Lance needs information only its own writer keeps in memory
 * ({@code affected_rows}, key filters), the answer here is the conservative one Lance gives
 * without it (retryable), except for Delete/Update deletion vectors, which are rebased from the
 * deletion files themselves (see {@link DeletionRebaser}).
 *
 * <p>Reasons name what the concurrent commit did to the fragments this one changes. A concurrent
 * {@code Merge} is described by its transaction properties and fragment list: it may be a column
 * addition or this library's overlay-merge compaction, and only the fragment list tells which of
 * the fragments this commit changes it replaced.
 */
public final class ConflictResolver {
    private ConflictResolver() {}

    /** {@link #check(Transaction, Transaction)} for bare operations (messages then cannot name compactions). */
    public static ConflictOutcome check(Operation mine, Operation theirs) throws CorruptTableException {
        return check(mine, Map.of(), theirs, Map.of());
    }

    /**
     * May {@code mine} be committed on top of the version {@code theirs} produced? The outcome
     * depends on the operations only; the transactions' properties make the messages say what a
     * concurrent commit was (e.g. an overlay-merge compaction, committed as a {@code Merge}).
     */
    public static ConflictOutcome check(Transaction mine, Transaction theirs) throws CorruptTableException {
        return check(mine.operation(), mine.properties(), theirs.operation(), theirs.properties());
    }

    private static ConflictOutcome check(
            Operation mine, Map<String, String> mineProps, Operation theirs, Map<String, String> theirProps)
            throws CorruptTableException {
        // An operation of a newer Lance may have changed anything: never call it compatible.
        if (theirs instanceof Operation.Unknown || mine instanceof Operation.Unknown) {
            return incompatible(
                    mine,
                    theirs,
                    "an operation of a newer Lance cannot be checked for conflicts by this" + " library; upgrade it");
        }
        // Column rules that hold for (almost) every row.
        if (theirs instanceof Operation.Restore
                && !(mine instanceof Operation.Restore)
                && !(mine instanceof Operation.Overwrite)
                && !(mine instanceof Operation.UpdateConfig)
                && !(mine instanceof Operation.UpdateBases)) {
            return incompatible(mine, theirs, "the table was restored to an older version");
        }
        if (theirs instanceof Operation.Overwrite
                && !(mine instanceof Operation.Overwrite)
                && !(mine instanceof Operation.Restore)
                && !(mine instanceof Operation.UpdateConfig)
                && !(mine instanceof Operation.UpdateBases)) {
            return incompatible(mine, theirs, "the table's content was replaced");
        }
        if (mine instanceof Operation.Append) {
            return appendRow((Operation.Append) mine, theirs);
        } else if (mine instanceof Operation.Delete d) {
            return deleteOrUpdateRow(mine, modifiedBy(d), removedBy(d), theirs, theirProps);
        } else if (mine instanceof Operation.Update u) {
            return updateRow(u, theirs, theirProps);
        } else if (mine instanceof Operation.Overwrite o) {
            return overwriteRow(o, theirs);
        } else if (mine instanceof Operation.CreateIndex c) {
            return createIndexRow(c, theirs);
        } else if (mine instanceof Operation.Rewrite r) {
            return rewriteRow(r, theirs, theirProps);
        } else if (mine instanceof Operation.Merge) {
            return mergeRow(mine, mineProps, theirs);
        } else if (mine instanceof Operation.Project) {
            if (theirs instanceof Operation.Merge) {
                return retryable(
                        mine,
                        theirs,
                        "the schema may have changed concurrently: it was " + MergeConflictText.kind(theirProps));
            }
            if (theirs instanceof Operation.Project) {
                return retryable(mine, theirs, "the schema changed concurrently");
            }
            return memWalIncompatible(mine, theirs);
        } else if (mine instanceof Operation.Restore) {
            return memWalIncompatible(mine, theirs);
        } else if (mine instanceof Operation.ReserveFragments) {
            return ConflictOutcome.COMPATIBLE;
        } else if (mine instanceof Operation.UpdateConfig uc) {
            return updateConfigRow(uc, theirs);
        } else if (mine instanceof Operation.DataReplacement dr) {
            return dataReplacementRow(dr, theirs, theirProps);
        } else if (mine instanceof Operation.DataOverlay ov) {
            return dataOverlayRow(ov, theirs, theirProps);
        } else if (mine instanceof Operation.UpdateBases ub) {
            if (theirs instanceof Operation.UpdateBases other) {
                for (var a : ub.newBases()) {
                    for (var b : other.newBases()) {
                        if ((a.id() != 0 && a.id() == b.id())
                                || a.path().equals(b.path())
                                || (a.name() != null && a.name().equals(b.name()))) {
                            return incompatible(mine, theirs, "both register base path " + a.path());
                        }
                    }
                }
            }
            return ConflictOutcome.COMPATIBLE;
        } else if (mine instanceof Operation.Clone) {
            return ConflictOutcome.COMPATIBLE;
        }
        // UpdateMemWalState: conservative, it is never committed by this library.
        return incompatible(mine, theirs, "MemWAL state updates are not rebased by this library");
    }

    private static ConflictOutcome appendRow(Operation.Append mine, Operation theirs) {
        return memWalIncompatible(mine, theirs);
    }

    private static ConflictOutcome memWalIncompatible(Operation mine, Operation theirs) {
        if (theirs instanceof Operation.UpdateMemWalState) {
            return incompatible(mine, theirs, "the MemWAL state changed");
        }
        return ConflictOutcome.COMPATIBLE;
    }

    /** Delete (and Update when it does not need its own rules) against every column. */
    private static ConflictOutcome deleteOrUpdateRow(
            Operation mine,
            Set<Long> myModified,
            Set<Long> myRemoved,
            Operation theirs,
            Map<String, String> theirProps) {
        if (theirs instanceof Operation.Delete || theirs instanceof Operation.Update) {
            Set<Long> theirModified = modifiedBy(theirs);
            Set<Long> theirRemoved = removedBy(theirs);
            Set<Long> mineAll = union(myModified, myRemoved);
            Set<Long> shared = intersection(mineAll, union(theirModified, theirRemoved));
            if (shared.isEmpty()) {
                return ConflictOutcome.COMPATIBLE;
            }
            for (long id : shared) {
                if (theirRemoved.contains(id)) {
                    return retryable(
                            mine, theirs, "it removed fragment " + id + ", which this transaction also changes");
                }
                if (myRemoved.contains(id)) {
                    return retryable(mine, theirs, "it changed fragment " + id + ", which this transaction removes");
                }
                if (theirs instanceof Operation.Update u && u.mode() == Operation.UpdateMode.REWRITE_COLUMNS) {
                    return retryable(mine, theirs, "it rewrote data files of fragment " + id);
                }
            }
            if (mine instanceof Operation.Update u && u.mode() == Operation.UpdateMode.REWRITE_COLUMNS) {
                // Columns rewritten in place keep the current deletion vector (the applier takes it
                // from the newer manifest), so concurrent row deletions simply stay in effect.
                return ConflictOutcome.COMPATIBLE;
            }
            return new ConflictOutcome.Rebase(shared);
        }
        if (theirs instanceof Operation.Rewrite r) {
            Set<Long> overlap = intersection(union(myModified, myRemoved), r.oldFragmentIds());
            return overlap.isEmpty()
                    ? ConflictOutcome.COMPATIBLE
                    : retryable(mine, theirs, "it rewrote fragment(s) " + overlap + " that this transaction changes");
        }
        if (theirs instanceof Operation.DataReplacement dr) {
            for (Operation.DataReplacementGroup g : dr.replacements()) {
                if (myModified.contains(g.fragmentId()) || myRemoved.contains(g.fragmentId())) {
                    return retryable(mine, theirs, "it replaced data of fragment " + g.fragmentId());
                }
            }
            return ConflictOutcome.COMPATIBLE;
        }
        if (theirs instanceof Operation.Merge m) {
            return retryable(
                    mine,
                    theirs,
                    MergeConflictText.reason(m, theirProps, mine.name(), asRead(mine), union(myModified, myRemoved)));
        }
        return memWalIncompatible(mine, theirs);
    }

    /** Fragments of a Delete or row-moving Update whose data files and overlays are as the operation read them. */
    private static List<Fragment> asRead(Operation op) {
        if (op instanceof Operation.Delete d) {
            return d.updatedFragments();
        }
        if (op instanceof Operation.Update u && u.mode() == Operation.UpdateMode.REWRITE_ROWS) {
            return u.updatedFragments();
        }
        return List.of(); // REWRITE_COLUMNS updated fragments carry their new data files
    }

    private static ConflictOutcome updateRow(Operation.Update mine, Operation theirs, Map<String, String> theirProps) {
        if (theirs instanceof Operation.Append && mine.hasInsertedRowsFilter()) {
            return retryable(mine, theirs, "it appended rows that may duplicate keys this merge-insert inserted");
        }
        if (theirs instanceof Operation.Update u && mine.hasInsertedRowsFilter()) {
            return retryable(
                    mine,
                    theirs,
                    "both inserted rows by primary key and their key sets cannot be compared"
                            + (u.hasInsertedRowsFilter() ? "" : " (it recorded no key filter)"));
        }
        // Rows this update moves were copied as it read them: an overlay of one of them since would
        // be lost. An update of new rows only deletes rows, and a deletion wins over an overlay.
        if (theirs instanceof Operation.DataOverlay ov && mine.movesRows() && !mine.newRowsOnly()) {
            Set<Long> overlap = intersection(modifiedBy(mine), ov.fragmentIds());
            if (!overlap.isEmpty()) {
                return retryable(
                        mine,
                        theirs,
                        "it attached overlays to fragment(s) " + overlap + " whose rows this update moves");
            }
            return ConflictOutcome.COMPATIBLE;
        }
        if (theirs instanceof Operation.UpdateMemWalState) {
            return mine.hasCompactedSsTables()
                    ? retryable(mine, theirs, "the MemWAL state changed")
                    : ConflictOutcome.COMPATIBLE;
        }
        return deleteOrUpdateRow(mine, modifiedBy(mine), removedBy(mine), theirs, theirProps);
    }

    private static ConflictOutcome overwriteRow(Operation.Overwrite mine, Operation theirs) {
        if (theirs instanceof Operation.Overwrite o) {
            for (String k : mine.configUpsertValues().keySet()) {
                if (o.configUpsertValues().containsKey(k)) {
                    return incompatible(mine, theirs, "both set config key '" + k + "'");
                }
            }
            return retryable(mine, theirs, "the table was overwritten concurrently");
        }
        if (theirs instanceof Operation.UpdateConfig uc) {
            for (String k : mine.configUpsertValues().keySet()) {
                if (uc.configKeys().contains(k)) {
                    return incompatible(mine, theirs, "both change config key '" + k + "'");
                }
            }
            return ConflictOutcome.COMPATIBLE;
        }
        return memWalIncompatible(mine, theirs);
    }

    private static ConflictOutcome createIndexRow(Operation.CreateIndex mine, Operation theirs)
            throws CorruptTableException {
        if (theirs instanceof Operation.CreateIndex other) {
            for (IndexEntry a : mine.newIndices()) {
                for (IndexEntry b : other.newIndices()) {
                    if (a.name().equals(b.name())) {
                        return retryable(mine, theirs, "it also created index '" + a.name() + "'");
                    }
                }
            }
            return ConflictOutcome.COMPATIBLE;
        }
        if (theirs instanceof Operation.Rewrite r) {
            for (IndexEntry e : mine.newIndices()) {
                for (long id : r.oldFragmentIds()) {
                    if (e.coversFragment(id)) {
                        return retryable(
                                mine,
                                theirs,
                                "it rewrote fragment " + id + ", which new index '" + e.name() + "' covers");
                    }
                }
            }
            return ConflictOutcome.COMPATIBLE;
        }
        if (theirs instanceof Operation.DataReplacement dr) {
            Set<Integer> indexed = new HashSet<>();
            mine.newIndices().forEach(e -> {
                for (int f : e.fields()) {
                    indexed.add(f);
                }
            });
            for (Operation.DataReplacementGroup g : dr.replacements()) {
                for (int i = 0; i < g.newFile().fieldCount(); i++) {
                    if (indexed.contains(g.newFile().fieldId(i))) {
                        return retryable(
                                mine,
                                theirs,
                                "it replaced indexed field " + g.newFile().fieldId(i));
                    }
                }
            }
            return ConflictOutcome.COMPATIBLE;
        }
        return memWalIncompatible(mine, theirs);
    }

    private static ConflictOutcome rewriteRow(Operation.Rewrite mine, Operation theirs, Map<String, String> theirProps)
            throws CorruptTableException {
        Set<Long> mineOld = mine.oldFragmentIds();
        if (theirs instanceof Operation.Merge m) {
            List<Fragment> old = new ArrayList<>();
            mine.groups().forEach(g -> old.addAll(g.oldFragments()));
            return retryable(mine, theirs, MergeConflictText.reason(m, theirProps, mine.name(), old, mineOld));
        }
        if (theirs instanceof Operation.CreateIndex c) {
            for (IndexEntry e : c.newIndices()) {
                for (long id : mineOld) {
                    if (e.coversFragment(id)) {
                        return retryable(
                                mine,
                                theirs,
                                "its new index '" + e.name() + "' covers fragment " + id
                                        + ", which this rewrite replaces");
                    }
                }
            }
            return ConflictOutcome.COMPATIBLE;
        }
        Set<Long> theirTouched = union(
                union(modifiedBy(theirs), removedBy(theirs)),
                theirs instanceof Operation.Rewrite r ? r.oldFragmentIds() : Set.of());
        if (theirs instanceof Operation.DataReplacement dr) {
            dr.replacements().forEach(g -> theirTouched.add(g.fragmentId()));
        }
        if (theirs instanceof Operation.DataOverlay ov) {
            theirTouched.addAll(ov.fragmentIds());
        }
        Set<Long> overlap = intersection(mineOld, theirTouched);
        if (!overlap.isEmpty()) {
            return retryable(mine, theirs, "it changed fragment(s) " + overlap + " that this rewrite replaces");
        }
        return ConflictOutcome.COMPATIBLE;
    }

    private static ConflictOutcome mergeRow(Operation mine, Map<String, String> mineProps, Operation theirs) {
        if (theirs instanceof Operation.Project) {
            return incompatible(mine, theirs, "the schema was changed by a projection");
        }
        if (theirs instanceof Operation.UpdateMemWalState) {
            return incompatible(mine, theirs, "the MemWAL state changed");
        }
        if (theirs instanceof Operation.Append
                || theirs instanceof Operation.Delete
                || theirs instanceof Operation.Update
                || theirs instanceof Operation.Rewrite
                || theirs instanceof Operation.Merge
                || theirs instanceof Operation.DataReplacement
                || theirs instanceof Operation.DataOverlay) {
            String mode = mineProps.get(Transaction.COMPACTION_MODE_PROPERTY);
            return retryable(
                    mine,
                    theirs,
                    mode == null
                            ? "the fragments changed while columns were being added"
                            : "the fragments changed while this " + mode
                                    + " compaction (committed as a Merge of the complete"
                                    + " fragment list) was pending; plan the compaction again on the newer version");
        }
        return ConflictOutcome.COMPATIBLE;
    }

    private static ConflictOutcome updateConfigRow(Operation.UpdateConfig mine, Operation theirs) {
        if (theirs instanceof Operation.Overwrite o) {
            if (mine.touchesSchemaMetadata()) {
                return incompatible(mine, theirs, "the schema was replaced while its metadata was being changed");
            }
            for (String k : mine.configKeys()) {
                if (o.configUpsertValues().containsKey(k)) {
                    return incompatible(mine, theirs, "both change config key '" + k + "'");
                }
            }
        }
        if (theirs instanceof Operation.UpdateConfig o) {
            if (!intersection(mine.configKeys(), o.configKeys()).isEmpty()
                    || !intersection(mine.tableMetadataKeys(), o.tableMetadataKeys())
                            .isEmpty()
                    || (mine.touchesSchemaMetadata() && o.touchesSchemaMetadata())) {
                return incompatible(mine, theirs, "both change the same configuration or metadata keys");
            }
        }
        return ConflictOutcome.COMPATIBLE;
    }

    private static ConflictOutcome dataReplacementRow(
            Operation.DataReplacement mine, Operation theirs, Map<String, String> theirProps) {
        Set<Long> targets = new HashSet<>();
        Set<Integer> fields = new HashSet<>();
        for (Operation.DataReplacementGroup g : mine.replacements()) {
            targets.add(g.fragmentId());
            for (int i = 0; i < g.newFile().fieldCount(); i++) {
                fields.add(g.newFile().fieldId(i));
            }
        }
        Set<Long> removed = intersection(targets, removedBy(theirs));
        if (!removed.isEmpty()) {
            return incompatible(mine, theirs, "it removed target fragment(s) " + removed);
        }
        if (theirs instanceof Operation.Update u) {
            Set<Long> touched = intersection(targets, modifiedBy(u));
            if (!touched.isEmpty()) {
                if (u.movesRows()) {
                    return retryable(mine, theirs, "it moved rows out of fragment(s) " + touched);
                }
                for (int f : u.fieldsModified()) {
                    if (fields.contains(f)) {
                        return retryable(mine, theirs, "it rewrote replaced field " + f);
                    }
                }
            }
            return ConflictOutcome.COMPATIBLE;
        }
        if (theirs instanceof Operation.Rewrite r) {
            Set<Long> overlap = intersection(targets, r.oldFragmentIds());
            return overlap.isEmpty()
                    ? ConflictOutcome.COMPATIBLE
                    : retryable(mine, theirs, "it rewrote fragment(s) " + overlap);
        }
        if (theirs instanceof Operation.DataReplacement other) {
            for (Operation.DataReplacementGroup g : other.replacements()) {
                if (targets.contains(g.fragmentId())) {
                    for (int i = 0; i < g.newFile().fieldCount(); i++) {
                        if (fields.contains(g.newFile().fieldId(i))) {
                            return retryable(mine, theirs, "it replaced the same field of fragment " + g.fragmentId());
                        }
                    }
                }
            }
            return ConflictOutcome.COMPATIBLE;
        }
        if (theirs instanceof Operation.CreateIndex c) {
            for (IndexEntry e : c.newIndices()) {
                for (int f : e.fields()) {
                    if (fields.contains(f)) {
                        return retryable(mine, theirs, "its new index '" + e.name() + "' covers replaced field " + f);
                    }
                }
            }
            return ConflictOutcome.COMPATIBLE;
        }
        if (theirs instanceof Operation.Merge m) {
            return retryable(mine, theirs, MergeConflictText.reason(m, theirProps, mine.name(), List.of(), targets));
        }
        return memWalIncompatible(mine, theirs);
    }

    /** transactions.md §5.4. */
    private static ConflictOutcome dataOverlayRow(
            Operation.DataOverlay mine, Operation theirs, Map<String, String> theirProps) {
        Set<Long> targets = mine.fragmentIds();
        Set<Long> removed = intersection(targets, removedBy(theirs));
        if (!removed.isEmpty()) {
            return retryable(mine, theirs, "it removed overlaid fragment(s) " + removed);
        }
        if (theirs instanceof Operation.Update u && u.movesRows()) {
            Set<Long> moved = intersection(targets, modifiedBy(u));
            if (!moved.isEmpty()) {
                return retryable(
                        mine,
                        theirs,
                        "it moved rows of overlaid fragment(s) " + moved
                                + " (the moved rows are not known, so the overlay may address rows that no longer exist)");
            }
        }
        if (theirs instanceof Operation.Rewrite r) {
            Set<Long> overlap = intersection(targets, r.oldFragmentIds());
            if (!overlap.isEmpty()) {
                return retryable(mine, theirs, "it rewrote overlaid fragment(s) " + overlap);
            }
        }
        if (theirs instanceof Operation.Merge m) {
            return retryable(mine, theirs, MergeConflictText.reason(m, theirProps, mine.name(), List.of(), targets));
        }
        return memWalIncompatible(mine, theirs);
    }

    /** Fragments an operation rewrote in place (new deletion vector or data files). */
    static Set<Long> modifiedBy(Operation op) {
        Set<Long> ids = new HashSet<>();
        if (op instanceof Operation.Delete d) {
            d.updatedFragments().forEach(f -> ids.add(f.id()));
        } else if (op instanceof Operation.Update u) {
            u.updatedFragments().forEach(f -> ids.add(f.id()));
        }
        return ids;
    }

    /** Fragments an operation removed entirely. */
    static Set<Long> removedBy(Operation op) {
        Set<Long> ids = new HashSet<>();
        if (op instanceof Operation.Delete d) {
            ids.addAll(d.deletedFragmentIds());
        } else if (op instanceof Operation.Update u) {
            ids.addAll(u.removedFragmentIds());
        } else if (op instanceof Operation.Rewrite r) {
            ids.addAll(r.oldFragmentIds());
        }
        return ids;
    }

    private static Set<Long> union(Set<Long> a, Set<Long> b) {
        Set<Long> out = new HashSet<>(a);
        out.addAll(b);
        return out;
    }

    private static <T> Set<T> intersection(Set<T> a, Set<T> b) {
        Set<T> out = new HashSet<>(a);
        out.retainAll(b);
        return out;
    }

    private static ConflictOutcome retryable(Operation mine, Operation theirs, String why) {
        return new ConflictOutcome.Retryable(
                mine.name() + " conflicts with a concurrent " + theirs.name() + ": " + why);
    }

    private static ConflictOutcome incompatible(Operation mine, Operation theirs, String why) {
        return new ConflictOutcome.Incompatible(
                mine.name() + " is incompatible with a concurrent " + theirs.name() + ": " + why);
    }
}
