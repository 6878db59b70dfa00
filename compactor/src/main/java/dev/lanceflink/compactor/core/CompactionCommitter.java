package dev.lanceflink.compactor.core;

import dev.lanceflink.compact.OverlayCompactor;
import dev.lanceflink.compact.RewriteRebase;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.overlay.StagedWrite;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.ManifestIO;
import dev.lanceflink.table.VersionResolver;
import dev.lanceflink.txn.CommitConflictException;
import dev.lanceflink.txn.CommitOptions;
import dev.lanceflink.txn.CommitOutcomeUnknownException;
import dev.lanceflink.txn.CommitPlan;
import dev.lanceflink.txn.Operation;
import dev.lanceflink.txn.TableCommitter;
import dev.lanceflink.txn.TableHistory;
import dev.lanceflink.txn.Transaction;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * Commits the staged results of a compaction run in as few versions as the table format allows:
 * all merges in one {@code Merge}; folds in one {@code Update} (REWRITE_COLUMNS) per distinct set
 * of folded fields; all fragment rewrites in one {@code Rewrite} (one group per task). Folds with
 * different field sets are not combined because an {@code Update} drops the coverage of every
 * index on any of its {@code fields_modified} for every fragment it touches, so a union would
 * needlessly un-index fragments.
 *
 * <p>The same guard as {@link dev.lanceflink.compact.OverlayCompactor#commit}, for many fragments
 * at once: each attempt reads the latest version (the schema must be as planned) and carries every
 * overlay result over to it with {@link OverlayCompactor#rebase}. A streaming sink that deletes
 * rows or appends overlays every checkpoint thus does not starve the compactor: its newer deletion
 * files and overlays are kept as they are (a fold only when the newer overlays leave the folded
 * fields alone, since its {@code Update} tombstones those fields in every overlay). A rewrite,
 * when asked to ({@link CompactionRun} asks by default), carries the sink's newer deletions and
 * overlays of its old fragments over to its
 * new fragments ({@link RewriteRebase}, on every attempt, so nothing committed meanwhile is lost),
 * and thus lands under continuous updates too. A result whose fragment changed in any other way
 * (a rewrite: without the carry, at all) is dropped: its
 * staged files are deleted and it is reported stale, to be planned again on the newer version.
 * Each group is one {@link CommitPlan} of the commit loop, so the manifest is published as exactly
 * the version after the one checked; another writer getting there first makes the loop check again.
 */
public final class CompactionCommitter {
    /** Transaction property naming the compaction mode of a commit. */
    public static final String MODE_PROPERTY = Transaction.COMPACTION_MODE_PROPERTY;
    /** Transaction property naming the version the committed tasks were computed on. */
    public static final String READ_VERSION_PROPERTY = Transaction.COMPACTION_READ_VERSION_PROPERTY;

    private CompactionCommitter() {}

    /**
     * Commits {@code results}, which must all have been computed on the same version.
     *
     * @throws CommitConflictException if other writers won the race {@code maxAttempts} times in a
     *     row, or a conflict is not retryable; the staged files of uncommitted results are deleted
     * @throws IOException on storage failures; staged files are then kept (the outcome of a
     *     publish may be unknown; unreferenced files are garbage for cleanup)
     */
    public static CommitReport commit(
            ObjectStore store, List<TaskResult> results, Map<String, String> properties, CommitOptions options)
            throws IOException {
        return commit(store, results, properties, options, false);
    }

    /**
     * As {@link #commit(ObjectStore, List, Map, CommitOptions)}; with {@code carryConcurrentChanges}
     * a rewrite whose old fragments only grew deletions and overlays since the compaction read
     * them is not stale: those changes are carried to its new fragments ({@link RewriteRebase}).
     * Any compaction beside a streaming sink needs it (the in-job maintenance and, by default, the
     * standalone job), as the sink changes every fragment every checkpoint.
     */
    public static CommitReport commit(
            ObjectStore store,
            List<TaskResult> results,
            Map<String, String> properties,
            CommitOptions options,
            boolean carryConcurrentChanges)
            throws IOException {
        if (results.isEmpty()) {
            return new CommitReport(List.of(), List.of(), List.of());
        }
        long readVersion = results.get(0).readVersion();
        Manifest planned = ManifestIO.read(store, VersionResolver.version(store, readVersion));
        return commit(store, planned, results, properties, options, carryConcurrentChanges);
    }

    /**
     * As {@link #commit(ObjectStore, List, Map, CommitOptions, boolean)}, with the manifest of the
     * results' read version, which the caller already read (saves reading and decoding it again:
     * tens of MB on a table with many overlays).
     *
     * @param planned the manifest of the version every result was computed on
     */
    public static CommitReport commit(
            ObjectStore store,
            Manifest planned,
            List<TaskResult> results,
            Map<String, String> properties,
            CommitOptions options,
            boolean carryConcurrentChanges)
            throws IOException {
        if (results.isEmpty()) {
            return new CommitReport(List.of(), List.of(), List.of());
        }
        long readVersion = planned.version();
        for (TaskResult r : results) {
            if (r.readVersion() != readVersion) {
                throw new IllegalArgumentException("Results of one commit must share their read version, but fragment "
                        + r.task().fragmentId() + " was compacted on version " + r.readVersion() + " and fragment "
                        + results.get(0).task().fragmentId() + " on version "
                        + results.get(0).readVersion()
                        + " (the manifest given is version " + readVersion + ")");
            }
        }
        List<TaskResult> committed = new ArrayList<>();
        List<Long> versions = new ArrayList<>();
        List<Long> stale = new ArrayList<>();
        List<List<Staged>> groups = group(results);
        long[] carried = new long[2]; // deletions and overlays the committed rewrites carried
        for (int g = 0; g < groups.size(); g++) {
            try {
                Manifest m = commitGroup(
                        store, planned, groups.get(g), properties, options, stale, carryConcurrentChanges, carried);
                if (m != null) {
                    versions.add(m.version());
                    groups.get(g).forEach(s -> committed.add(s.result));
                }
            } catch (CommitConflictException e) {
                for (int rest = g; rest < groups.size(); rest++) {
                    groups.get(rest).forEach(s -> s.staged.discard(store));
                }
                throw e;
            }
        }
        return new CommitReport(committed, versions, stale, carried[0], carried[1]);
    }

    /** A result with its decoded operation. */
    private record Staged(TaskResult result, StagedWrite staged) {
        long fragmentId() {
            return result.task().fragmentId();
        }

        List<Long> fragmentIds() {
            return result.task().fragmentIds();
        }
    }

    private static List<List<Staged>> group(List<TaskResult> results) throws IOException {
        Map<String, List<Staged>> groups = new LinkedHashMap<>();
        for (TaskResult r : results) {
            StagedWrite s = r.staged();
            String key;
            if (s.operation() instanceof Operation.Merge) {
                key = "merge";
            } else if (s.operation() instanceof Operation.Rewrite rw
                    && rw.rewrittenIndices().isEmpty()) {
                key = "rewrite";
            } else if (s.operation() instanceof Operation.Update u
                    && u.mode() == Operation.UpdateMode.REWRITE_COLUMNS
                    && u.updatedFragments().size() == 1) {
                key = "fold " + Arrays.toString(sorted(u.fieldsModified()));
            } else {
                throw new IllegalArgumentException("Fragment " + r.task().fragmentId() + ": a compaction task staged"
                        + " a " + s.operation().name() + ", which is not an overlay merge or fold or a rewrite");
            }
            groups.computeIfAbsent(key, k -> new ArrayList<>()).add(new Staged(r, s));
        }
        return new ArrayList<>(groups.values());
    }

    /**
     * Commits one group; returns the new manifest, or null if every fragment of it went stale. Adds
     * the deletions and overlays the committed attempt carried to {@code carried[0]} and {@code
     * carried[1]}.
     */
    private static Manifest commitGroup(
            ObjectStore store,
            Manifest planned,
            List<Staged> group,
            Map<String, String> properties,
            CommitOptions options,
            List<Long> stale,
            boolean carry,
            long[] carried)
            throws IOException {
        List<Staged> pending = new ArrayList<>(group);
        // What the latest attempt carried: the published one is the last attempt built.
        long[] attemptCarried = new long[2];
        // Files the current attempt wrote to carry concurrent changes over (rewrites only).
        List<String> attemptFiles = new ArrayList<>();
        Map<String, String> props = new LinkedHashMap<>(properties);
        props.put(MODE_PROPERTY, pending.get(0).result.task().mode().cliName());
        props.put(READ_VERSION_PROPERTY, Long.toString(planned.version()));
        CommitPlan plan = new CommitPlan() {
            @Override
            public long readVersion() {
                return planned.version();
            }

            @Override
            public Map<String, String> properties() {
                return props;
            }

            @Override
            public Optional<Operation> build(Manifest latest) throws IOException {
                Map<Long, Fragment> rebased = dropStale(store, planned, latest, pending, stale, carry);
                group.retainAll(pending);
                if (pending.isEmpty()) {
                    return Optional.empty();
                }
                Operation op = combine(pending, latest, rebased);
                if (carry && op instanceof Operation.Rewrite rw) {
                    // Deletions and overlays the sink committed on the old fragments since the
                    // compaction read them move to the new fragments: the rewrite lands instead of
                    // losing to a writer that changes every fragment every checkpoint.
                    Optional<RewriteRebase.Rebased> r;
                    try (BufferAllocator allocator = new RootAllocator()) {
                        r = RewriteRebase.rebase(store, latest, rw, allocator);
                    }
                    // dropStale kept only rewrites whose fragments can be carried
                    RewriteRebase.Rebased done = r.orElseThrow();
                    attemptFiles.addAll(done.writtenPaths());
                    attemptCarried[0] = done.carriedDeletions();
                    attemptCarried[1] = done.carriedOverlays();
                    return Optional.of(done.operation());
                }
                return Optional.of(op);
            }

            @Override
            public void lost(Operation op) {
                discardAttemptFiles();
            }

            @Override
            public int holdsGateAfterLostRaces() {
                // A carrying rewrite rebuilds itself at every attempt; beside a sink committing
                // every second it can lose every race (CommitGate). After two, the sink's
                // commits in this JVM wait for it.
                return 2;
            }

            @Override
            public void retrying(int failedAttempts, IOException failure, Operation op, boolean mayBePublished) {
                if (mayBePublished) {
                    attemptFiles.clear(); // a version may reference them: garbage for cleanup at worst
                } else {
                    discardAttemptFiles();
                }
            }

            private void discardAttemptFiles() {
                StagedWrite.discard(store, attemptFiles);
                attemptFiles.clear();
            }
        };
        try {
            Manifest m = TableCommitter.commit(store, plan, new TableHistory(store), options)
                    .orElse(null);
            if (m != null) {
                carried[0] += attemptCarried[0];
                carried[1] += attemptCarried[1];
            }
            return m;
        } catch (CommitOutcomeUnknownException e) {
            throw e; // the files of the attempt may be referenced
        } catch (IOException | RuntimeException e) {
            StagedWrite.discard(store, attemptFiles);
            throw e;
        }
    }

    /**
     * Moves results that cannot be committed on {@code latest} out of {@code pending} and returns,
     * for the overlay results that stay, the fragment each must commit ({@link
     * OverlayCompactor#rebase}: the latest fragment with the compacted overlays replaced, keeping
     * concurrent deletions and newer overlays). A rewrite needs its old fragments exactly
     * unchanged: a concurrent overlay or delete on one of them would be lost by materializing the
     * planned version (transactions.md §5.4: retryable), unless {@code carry} is set and they only
     * grew deletions and appended overlays, which {@link RewriteRebase} carries to the new
     * fragments. Any result needs the planned schema.
     */
    private static Map<Long, Fragment> dropStale(
            ObjectStore store,
            Manifest planned,
            Manifest latest,
            List<Staged> pending,
            List<Long> stale,
            boolean carry) {
        boolean schemaSame = latest.schema().equals(planned.schema());
        Map<Long, Fragment> rebased = new LinkedHashMap<>();
        for (var it = pending.iterator(); it.hasNext(); ) {
            Staged s = it.next();
            boolean same = schemaSame;
            if (s.staged.operation() instanceof Operation.Rewrite rw) {
                if (carry) {
                    same &= RewriteRebase.carriable(latest, rw);
                } else {
                    for (long id : s.fragmentIds()) {
                        same &= latest.fragment(id)
                                .map(now -> now.equals(planned.fragment(id).orElseThrow()))
                                .orElse(false);
                    }
                }
            } else if (same) {
                long id = s.fragmentId();
                Optional<Fragment> r = OverlayCompactor.rebase(
                        s.staged.operation(),
                        planned.fragment(id).orElseThrow(),
                        latest.fragment(id).orElse(null));
                r.ifPresent(f -> rebased.put(id, f));
                same = r.isPresent();
            }
            if (!same) {
                it.remove();
                stale.addAll(s.fragmentIds());
                // An earlier attempt whose publish outcome was unknown may have landed after all;
                // never delete files a version references.
                if (!referencedAnywhere(latest, s.staged.writtenPaths())) {
                    s.staged.discard(store);
                }
            }
        }
        return rebased;
    }

    private static boolean referencedAnywhere(Manifest m, List<String> paths) {
        Set<String> referenced = new HashSet<>();
        for (Fragment f : m.fragments()) {
            for (DataFile d : f.files()) {
                referenced.add(d.rootRelativePath());
            }
            for (DataOverlayFile o : f.overlays()) {
                referenced.add(o.dataFile().rootRelativePath());
            }
        }
        return paths.stream().anyMatch(referenced::contains);
    }

    /**
     * One operation for the group, aimed at {@code latest}; overlay results commit their
     * {@code rebased} fragments.
     */
    private static Operation combine(List<Staged> pending, Manifest latest, Map<Long, Fragment> rebased) {
        if (pending.get(0).staged.operation() instanceof Operation.Rewrite) {
            // The old fragments of every group equal the latest ones, or differ only by what the
            // carry moves to the new fragments (checked by dropStale). Groups
            // go in table order, whatever order the tasks finished in: new fragment ids are handed
            // out in group order and scans follow ids, so the rows keep their insertion order.
            List<Staged> ordered = new ArrayList<>(pending);
            ordered.sort(Comparator.comparingLong(Staged::fragmentId));
            List<Operation.RewriteGroup> groups = new ArrayList<>();
            for (Staged s : ordered) {
                groups.addAll(((Operation.Rewrite) s.staged.operation()).groups());
            }
            return new Operation.Rewrite(groups);
        }
        if (pending.get(0).staged.operation() instanceof Operation.Merge) {
            // A Merge replaces the whole fragment list: the latest list, with each merged fragment
            // swapped for its rebased version (latest deletion file and newer overlays kept).
            List<Fragment> fragments = new ArrayList<>();
            for (Fragment f : latest.fragments()) {
                fragments.add(rebased.getOrDefault(f.id(), f));
            }
            return new Operation.Merge(fragments, latest.schema());
        }
        List<Fragment> updated = new ArrayList<>();
        int[] modified = null;
        for (Staged s : pending) {
            Operation.Update u = (Operation.Update) s.staged.operation();
            updated.add(rebased.get(s.fragmentId()));
            modified = u.fieldsModified();
        }
        return new Operation.Update(
                List.of(),
                updated,
                List.of(),
                modified,
                new int[0],
                Operation.UpdateMode.REWRITE_COLUMNS,
                false,
                false,
                new byte[0]);
    }

    private static int[] sorted(int[] a) {
        int[] c = a.clone();
        Arrays.sort(c);
        return c;
    }
}
