package dev.lanceflink.maintenance;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.io.ObjectInfo;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.table.DeletionFile;
import dev.lanceflink.table.FeatureFlags;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.ManifestIO;
import dev.lanceflink.table.ManifestLocation;
import dev.lanceflink.table.ManifestNamingScheme;
import dev.lanceflink.table.UnsupportedTableFeatureException;
import dev.lanceflink.txn.Transaction;
import dev.lanceflink.txn.TransactionStore;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.channels.ClosedByInterruptException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes old versions of a table and the files no remaining version needs, in two steps: a
 * read-only {@link #plan} (print it for a dry run) and {@link #execute}.
 *
 * <p><b>What is kept</b> (see {@link CleanupPolicy}): the latest {@code retainLastVersions}
 * versions, versions committed within {@code retainVersionsNewerThan}, tagged versions, and for
 * each writer marker (e.g. a Flink sink's commit user) the newest version carrying it, so a
 * restoring sink still finds its last commit. A version whose age is unknown (no timestamp in the
 * manifest, no modification time in the listing) is kept.
 *
 * <p><b>What is deleted</b>: the manifests of all other versions, then every file under
 * {@code data/}, {@code _deletions/}, {@code _transactions/} and {@code _indices/} that no
 * retained version references and that either a removed version references (so it is committed
 * history, not a write in flight) or no manifest references and is older than the grace period
 * (an aborted write or a checkpoint that never committed). These are the rules of Lance's
 * {@code cleanup_old_versions}; only Lance's fixed 7-day threshold for unreferenced files is a
 * parameter here. Files elsewhere (other base paths, unknown directories or extensions,
 * {@code _versions/} temp and detached files) are never touched.
 *
 * <p><b>Safety</b>: planning reads every manifest and stops on the first it cannot read or does
 * not fully understand (unknown feature flags), and on unreadable tags or transactions, because a
 * skipped manifest could hide references. Tables with branches are refused. Execution deletes the
 * manifests first (so a crash leaves at worst unreferenced files, never a version whose files are
 * gone), re-reads every version committed after planning just before deleting files, and leaves
 * any file such a version references. Concurrent readers of a removed version may fail, as with
 * Lance: keep versions at least as long as the longest read.
 */
public final class TableCleanup {
    private static final Logger LOG = LoggerFactory.getLogger(TableCleanup.class);
    static final String DATA_DIR = "data";

    private TableCleanup() {}

    /** Decides what to delete; reads the table, deletes nothing. */
    public static CleanupPlan plan(ObjectStore store, CleanupPolicy policy) throws IOException {
        requireNonNull(store, "store is null");
        requireNonNull(policy, "policy is null");
        TableRefs.refuseBranches(store);
        Map<Long, List<String>> tagsByVersion = new HashMap<>();
        TableRefs.tags(store)
                .forEach((name, v) ->
                        tagsByVersion.computeIfAbsent(v, k -> new ArrayList<>()).add(name));

        List<ListedVersion> versions = listVersions(store);
        if (versions.isEmpty()) {
            throw new CleanupAbortedException("No Lance table at " + store.rootUri() + ": "
                    + ManifestNamingScheme.VERSIONS_DIR + "/ contains no manifest. Check the path");
        }
        ReferencedFiles retainedRefs = new ReferencedFiles(store.rootUri());
        ReferencedFiles removedRefs = new ReferencedFiles(store.rootUri());
        List<RetainedVersion> retained = new ArrayList<>();
        List<RemovedVersion> removed = new ArrayList<>();
        Map<String, Long> markerVersions = new TreeMap<>();
        Set<String> markersSeen = new HashSet<>();
        Instant versionCutoff = policy.versionCutoff();

        // Newest first: the first version seen with a marker value is the newest carrying it.
        for (int i = versions.size() - 1; i >= 0; i--) {
            ListedVersion lv = versions.get(i);
            int rank = versions.size() - 1 - i;
            String where = store.rootUri() + "/" + lv.location().path();
            Manifest m = readManifest(store, lv.location(), "nothing was deleted");
            checkUnderstood(m, where, "nothing was deleted");

            List<String> reasons = new ArrayList<>();
            if (rank == 0) {
                reasons.add("latest");
            } else if (rank < policy.retainLastVersions()) {
                reasons.add("last-" + policy.retainLastVersions());
            }
            Instant committed = m.timestamp() != null
                    ? m.timestamp()
                    : lv.lastModifiedMillis() > 0 ? Instant.ofEpochMilli(lv.lastModifiedMillis()) : null;
            if (committed == null) {
                reasons.add("unknown-age");
            } else if (committed.isAfter(versionCutoff)) {
                reasons.add("newer-than " + versionCutoff);
            }
            for (String tag : tagsByVersion.getOrDefault(m.version(), List.of())) {
                reasons.add("tag " + tag);
            }
            if (policy.markerPropertyKey() != null) {
                String value = markerValue(store, m, policy.markerPropertyKey(), where);
                if (value != null
                        && markersSeen.add(value)
                        && !policy.releasedMarkerValues().contains(value)) {
                    reasons.add("marker " + policy.markerPropertyKey() + "=" + value);
                    markerVersions.put(value, m.version());
                }
            }
            if (reasons.isEmpty()) {
                removed.add(new RemovedVersion(
                        m.version(), lv.location().path(), lv.location().size(), m.timestamp()));
                removedRefs.addManifest(m, where);
            } else {
                retained.add(new RetainedVersion(m.version(), reasons));
                retainedRefs.addManifest(m, where);
                addRewriteSources(store, m, retainedRefs, where);
            }
        }
        Collections.reverse(retained);
        Collections.reverse(removed);
        List<CleanupCandidate> files = candidates(store, policy, retainedRefs, removedRefs);
        long latest = versions.get(versions.size() - 1).location().version();
        return new CleanupPlan(store.rootUri(), policy, latest, retained, markerVersions, removed, files);
    }

    /**
     * Deletes what {@code plan} lists, except files that a version committed after planning
     * references. Manifests go first; if one cannot be deleted, nothing else is deleted.
     *
     * @throws CleanupAbortedException if a tag now points at a version the plan removes, a branch
     *     appeared, a manifest committed after planning cannot be read, or a manifest delete failed
     * @throws IllegalArgumentException if the plan was made for another table
     */
    public static CleanupResult execute(ObjectStore store, CleanupPlan plan) throws IOException {
        requireNonNull(store, "store is null");
        requireNonNull(plan, "plan is null");
        if (!plan.tableUri().equals(store.rootUri())) {
            throw new IllegalArgumentException(
                    "The cleanup plan is for table " + plan.tableUri() + ", not for " + store.rootUri());
        }
        Set<Long> removing = new HashSet<>();
        plan.versionsToRemove().forEach(v -> removing.add(v.version()));
        TableRefs.refuseBranches(store);
        for (Map.Entry<String, Long> tag : TableRefs.tags(store).entrySet()) {
            if (removing.contains(tag.getValue())) {
                throw new CleanupAbortedException("Tag '" + tag.getKey() + "' of " + store.rootUri()
                        + " now points at version " + tag.getValue() + ", which the cleanup plan removes (the tag"
                        + " was created after planning). Nothing was deleted; plan again");
            }
        }
        ReferencedFiles newer = new ReferencedFiles(store.rootUri());
        long checked = addVersionsAfter(store, plan.latestVersion(), newer, "nothing was deleted");

        long bytes = 0;
        int versionsRemoved = 0;
        for (RemovedVersion v : plan.versionsToRemove()) {
            try {
                store.delete(v.manifestPath());
            } catch (IOException | RuntimeException e) {
                throw new CleanupAbortedException(
                        "Could not delete manifest " + store.rootUri() + "/"
                                + v.manifestPath() + " of version " + v.version() + ": " + e.getMessage() + ". "
                                + versionsRemoved + " of "
                                + plan.versionsToRemove().size() + " old versions were removed and"
                                + " no other file was deleted, so every remaining version is intact. Run cleanup again",
                        e);
            }
            versionsRemoved++;
            bytes += v.sizeBytes();
        }
        // Closest possible to the deletes: anything committed meanwhile protects its files.
        checked = addVersionsAfter(
                store,
                checked,
                newer,
                "cleanup stopped after deleting " + versionsRemoved + " old manifests and no other file");

        Map<CleanupFileKind, Integer> counts = new EnumMap<>(CleanupFileKind.class);
        counts.put(CleanupFileKind.MANIFEST, versionsRemoved);
        List<String> kept = new ArrayList<>();
        List<CleanupResult.FailedDelete> failed = new ArrayList<>();
        List<CleanupCandidate> deleting = new ArrayList<>();
        for (CleanupCandidate c : plan.filesToDelete()) {
            if (newer.contains(c.path())) {
                kept.add(c.path());
            } else {
                deleting.add(c);
            }
        }
        List<String> errors = deleteAll(store, deleting);
        for (int i = 0; i < deleting.size(); i++) {
            CleanupCandidate c = deleting.get(i);
            if (errors.get(i) != null) {
                // One failed delete must not stop a sweep: the file stays and the next run finds it.
                failed.add(new CleanupResult.FailedDelete(c.path(), errors.get(i)));
                continue;
            }
            counts.merge(c.kind(), 1, Integer::sum);
            bytes += c.sizeBytes();
        }
        if (!kept.isEmpty()) {
            LOG.info(
                    "Cleanup of {} kept {} planned files that versions committed after planning reference",
                    store.rootUri(),
                    kept.size());
        }
        if (!failed.isEmpty()) {
            LOG.warn(
                    "Cleanup of {} could not delete {} files, first: {} ({})",
                    store.rootUri(),
                    failed.size(),
                    failed.get(0).path(),
                    failed.get(0).error());
        }
        return new CleanupResult(store.rootUri(), checked, versionsRemoved, counts, bytes, kept, failed);
    }

    /** From this many files on, deletes run {@link #DELETE_THREADS} at a time. */
    static final int PARALLEL_DELETES_FROM = 16;

    static final int DELETE_THREADS = 8;

    /**
     * Deletes the files, several at a time when there are many: an object store answers each
     * delete after a round trip, and a sink's maintenance deleting a few hundred files one after
     * the other (the files of tens of checkpoints) held its other steps up for many seconds (S3
     * soak: 165 files in about 10 s) while the sink kept adding overlays.
     *
     * @return per file, in order, null if deleted, else the error
     */
    private static List<String> deleteAll(ObjectStore store, List<CleanupCandidate> files) {
        List<String> errors = new ArrayList<>(Collections.nCopies(files.size(), null));
        if (files.size() < PARALLEL_DELETES_FROM) {
            for (int i = 0; i < files.size(); i++) {
                errors.set(i, deleteOne(store, files.get(i).path()));
            }
            return errors;
        }
        ExecutorService pool = Executors.newFixedThreadPool(DELETE_THREADS, r -> {
            Thread t = new Thread(r, "lance-cleanup-delete");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<String>> done = new ArrayList<>(files.size());
            for (CleanupCandidate c : files) {
                done.add(pool.submit(() -> deleteOne(store, c.path())));
            }
            for (int i = 0; i < done.size(); i++) {
                try {
                    errors.set(i, done.get(i).get());
                } catch (ExecutionException e) {
                    errors.set(i, e.getCause().toString());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    pool.shutdownNow();
                    for (int j = i; j < done.size(); j++) {
                        Future<String> f = done.get(j);
                        errors.set(
                                j, f.isDone() && !f.isCancelled() ? resultOrError(f) : "interrupted before the delete");
                    }
                    return errors;
                }
            }
            return errors;
        } finally {
            pool.shutdownNow();
        }
    }

    private static String resultOrError(Future<String> f) {
        try {
            return f.get();
        } catch (ExecutionException e) {
            return e.getCause().toString();
        } catch (InterruptedException | CancellationException e) {
            return "interrupted before the delete";
        }
    }

    /** Null if deleted, else the error. */
    private static String deleteOne(ObjectStore store, String path) {
        try {
            store.delete(path);
            return null;
        } catch (IOException | RuntimeException e) {
            return e.toString();
        }
    }

    /** {@link ReferencedFiles#addRewriteSources} for a kept version whose transaction is readable. */
    private static void addRewriteSources(ObjectStore store, Manifest m, ReferencedFiles into, String where)
            throws IOException {
        Optional<Transaction> txn;
        try {
            txn = TransactionStore.read(store, m);
        } catch (IOException e) {
            // No readable transaction, no rewrite to interpret (whether a version without one may
            // be removed is decided where markers are read).
            return;
        }
        if (txn.isPresent()) {
            into.addRewriteSources(m, txn.get(), where);
        }
    }

    // ---- planning helpers -----------------------------------------------------------------------

    /** A manifest from the listing, with the modification time the listing reported. */
    private record ListedVersion(ManifestLocation location, long lastModifiedMillis) {}

    /** Every attached manifest, oldest first; detached, staging and temp files are not versions. */
    private static List<ListedVersion> listVersions(ObjectStore store) throws IOException {
        List<ListedVersion> out = new ArrayList<>();
        Iterator<ObjectInfo> it = store.list(ManifestNamingScheme.VERSIONS_DIR);
        while (it.hasNext()) {
            ObjectInfo info = it.next();
            Optional<ManifestLocation> loc = ManifestNamingScheme.parse(info.name(), info.size());
            if (loc.isEmpty()) {
                continue;
            }
            if (!out.isEmpty() && out.get(0).location().scheme() != loc.get().scheme()) {
                throw new CleanupAbortedException("Table " + store.rootUri() + " mixes manifest naming schemes ("
                        + out.get(0).location().path() + " is "
                        + out.get(0).location().scheme() + ", "
                        + loc.get().path() + " is " + loc.get().scheme() + "); cleanup cannot tell its versions"
                        + " apart reliably, so it deletes nothing. Migrate the V1 manifests to V2 names with Lance");
            }
            out.add(new ListedVersion(loc.get(), info.lastModifiedMillis()));
        }
        out.sort(Comparator.comparing(v -> v.location().version(), Long::compareUnsigned));
        return out;
    }

    private static Manifest readManifest(ObjectStore store, ManifestLocation loc, String consequence)
            throws CleanupAbortedException {
        String where = store.rootUri() + "/" + loc.path();
        try {
            return ManifestIO.read(store, loc);
        } catch (FileNotFoundException e) {
            throw new CleanupAbortedException(
                    "Manifest " + where + " of version " + loc.version()
                            + " disappeared while cleanup was reading it (is another cleanup running?); " + consequence
                            + ". Run cleanup again when no other cleanup runs",
                    e);
        } catch (ClosedByInterruptException | InterruptedIOException e) {
            // Not a damaged manifest: the cleanup's thread was stopped (a job cancelled mid-check).
            throw new CleanupAbortedException(
                    "Cleanup was interrupted while reading manifest " + where + " of version " + loc.version() + "; "
                            + consequence + ". Run cleanup again",
                    e);
        } catch (IOException | RuntimeException e) {
            throw new CleanupAbortedException(
                    "Cannot read manifest " + where + " of version " + loc.version() + ": "
                            + e.getMessage() + ". Cleanup must know every file each version references, so "
                            + consequence + ". Repair or restore this manifest, then run cleanup again",
                    e);
        }
    }

    /** Refuses manifests with features whose file references this code may not know. */
    private static void checkUnderstood(Manifest m, String where, String consequence) throws CleanupAbortedException {
        try {
            FeatureFlags.checkReadable(m.readerFeatureFlags(), where);
            FeatureFlags.checkWritable(m.writerFeatureFlags(), where);
        } catch (UnsupportedTableFeatureException e) {
            throw new CleanupAbortedException(
                    e.getMessage() + " Such a feature may reference files cleanup does" + " not know about, so "
                            + consequence,
                    e);
        }
    }

    /** The value of the marker property in the version's transaction, or null. */
    private static String markerValue(ObjectStore store, Manifest m, String key, String where)
            throws CleanupAbortedException {
        Optional<Transaction> txn;
        try {
            txn = TransactionStore.read(store, m);
        } catch (IOException | RuntimeException e) {
            throw new CleanupAbortedException(
                    "Cannot read the transaction of version " + m.version() + " ("
                            + where + "): " + e.getMessage() + ". It may carry the writer marker '" + key
                            + "' whose last"
                            + " commit must be kept, so nothing was deleted. Repair the transaction file, or run cleanup"
                            + " without marker retention if no writer needs it",
                    e);
        }
        return txn.map(t -> t.properties().get(key)).orElse(null);
    }

    /** Lists the managed directories and picks what may go. */
    private static List<CleanupCandidate> candidates(
            ObjectStore store, CleanupPolicy policy, ReferencedFiles retained, ReferencedFiles removed)
            throws IOException {
        long cutoffMillis = policy.fileCutoff().toEpochMilli();
        List<CleanupCandidate> out = new ArrayList<>();
        for (ObjectInfo f : listed(store.list(DATA_DIR))) {
            if (f.name().endsWith(".lance")) {
                decide(f, CleanupFileKind.DATA, retained, removed, cutoffMillis, out);
            }
        }
        for (ObjectInfo f : listed(store.list(DeletionFile.DELETIONS_DIR))) {
            if (f.name().endsWith(".arrow") || f.name().endsWith(".bin")) {
                decide(f, CleanupFileKind.DELETION, retained, removed, cutoffMillis, out);
            }
        }
        for (ObjectInfo f : listed(store.list(Transaction.TRANSACTIONS_DIR))) {
            if (f.name().endsWith(".txn")) {
                decide(f, CleanupFileKind.TRANSACTION, retained, removed, cutoffMillis, out);
            }
        }
        List<ObjectInfo> indexFiles = listed(store.listRecursive(ReferencedFiles.INDICES_DIR + "/"));
        indexFiles.sort(Comparator.comparing(ObjectInfo::path));
        for (ObjectInfo f : indexFiles) {
            // Only files inside an index directory: _indices/<uuid>/<file>.
            String rest = f.path().substring(ReferencedFiles.INDICES_DIR.length() + 1);
            if (rest.indexOf('/') > 0) {
                decide(f, CleanupFileKind.INDEX, retained, removed, cutoffMillis, out);
            }
        }
        return out;
    }

    private static List<ObjectInfo> listed(Iterator<ObjectInfo> it) {
        List<ObjectInfo> out = new ArrayList<>();
        it.forEachRemaining(out::add);
        return out;
    }

    private static void decide(
            ObjectInfo f,
            CleanupFileKind kind,
            ReferencedFiles retained,
            ReferencedFiles removed,
            long cutoffMillis,
            List<CleanupCandidate> out) {
        if (retained.contains(f.path())) {
            return;
        }
        CleanupReason reason;
        if (removed.contains(f.path())) {
            reason = CleanupReason.ONLY_REMOVED_VERSIONS;
        } else if (f.lastModifiedMillis() > 0 && f.lastModifiedMillis() < cutoffMillis) {
            reason = CleanupReason.UNREFERENCED_PAST_GRACE;
        } else {
            return; // young or of unknown age: may belong to a commit in flight
        }
        out.add(new CleanupCandidate(f.path(), kind, reason, f.size(), f.lastModifiedMillis()));
    }

    // ---- execution helpers ----------------------------------------------------------------------

    /**
     * Adds the references of every version newer than {@code after} to {@code into} and returns the
     * newest version seen ({@code after} if there is none).
     */
    private static long addVersionsAfter(ObjectStore store, long after, ReferencedFiles into, String consequence)
            throws IOException {
        long newest = after;
        for (ListedVersion lv : listVersions(store)) {
            long v = lv.location().version();
            if (Long.compareUnsigned(v, after) <= 0) {
                continue;
            }
            String where = store.rootUri() + "/" + lv.location().path();
            Manifest m = readManifest(store, lv.location(), consequence);
            checkUnderstood(m, where, consequence);
            into.addManifest(m, where);
            addRewriteSources(store, m, into, where);
            if (Long.compareUnsigned(v, newest) > 0) {
                newest = v;
            }
        }
        return newest;
    }
}
