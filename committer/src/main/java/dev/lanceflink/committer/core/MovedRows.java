package dev.lanceflink.committer.core;

import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.RowAddress;
import dev.lanceflink.txn.Operation;
import dev.lanceflink.txn.RewriteMoves;
import dev.lanceflink.txn.TableHistory;
import dev.lanceflink.txn.Transaction;
import dev.lanceflink.txn.TransactionStore;
import java.io.IOException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.roaringbitmap.RoaringBitmap;

/**
 * Follows rows that a compaction moved while the sink ran. The sink's key map locates rows by
 * fragment (or by the data file of a fragment it appended) and offset; a {@code Rewrite}
 * (fragment compaction, by the standalone job, by pylance's {@code compact_files}, by anyone)
 * moves them to new fragments at new offsets. The moves follow from the committed Rewrite
 * ({@link RewriteMoves}), so the changes aimed at the old addresses are applied at the new ones,
 * through as many compactions as happened since, instead of failing the sink.
 *
 * <p>Committed versions never change: the moves of each Rewrite and the fragment that held each
 * appended file are looked up once per committer.
 */
public final class MovedRows {
    private final ObjectStore store;
    private final Map<Long, RewriteMoves> movesByVersion = new HashMap<>();
    private final Map<Long, Long> fragmentOfFile = new HashMap<>();
    /** Why each fragment looked up so far left the table (committed history never changes). */
    private final Map<Long, FragmentRemoval.Cause> removals = new HashMap<>();
    /** Transactions by version, read once (committed versions never change), shared with the other checks. */
    private final TableHistory history;

    public MovedRows(ObjectStore store) {
        this(new TableHistory(store));
    }

    /** Reading the transactions through {@code history} (shared with the other checks of a committer). */
    public MovedRows(TableHistory history) {
        this.store = history.store();
        this.history = history;
    }

    /** The history this instance reads, shared with the other checks of its committer. */
    public TableHistory history() {
        return history;
    }

    /**
     * Where rows are now: per fragment of the latest version, the rows' offsets there
     * ({@code offsets}) and, in the same order, the offsets they were aimed at in the original
     * fragment ({@code from}; moves keep the rows' order, so both ascend together). {@code gone}
     * counts rows deleted before a compaction moved them, or whose new fragment lost every row.
     */
    public record Destination(Map<Long, RoaringBitmap> offsets, Map<Long, RoaringBitmap> from, long gone) {}

    /**
     * The fragment that held the data file with id {@code fileId} (appended by this sink) in some
     * version before {@code latest}, or empty if none of the versions still readable had it.
     */
    public OptionalLong fragmentThatHeld(long fileId, Manifest latest) throws IOException {
        Long known = fragmentOfFile.get(fileId);
        if (known != null) {
            return OptionalLong.of(known);
        }
        for (long v = latest.version() - 1; v >= 1 && v >= latest.version() - TableHistory.WALK_LIMIT; v--) {
            Optional<Manifest> m = history.presentManifest(v);
            if (m.isEmpty()) {
                return OptionalLong.empty();
            }
            Fragment f = PendingFiles.index(m.get()).get(fileId);
            if (f != null) {
                fragmentOfFile.put(fileId, f.id());
                return OptionalLong.of(f.id());
            }
        }
        return OptionalLong.empty();
    }

    /**
     * Where the rows at {@code offsets} of fragment {@code fragmentId}, which {@code latest} no
     * longer has, are in {@code latest}; empty if the fragment was not removed by compactions or
     * deletions (then {@link FragmentRemoval} tells why).
     */
    public Optional<Destination> follow(long fragmentId, RoaringBitmap offsets, Manifest latest) throws IOException {
        Map<Long, RoaringBitmap> to = new LinkedHashMap<>();
        Map<Long, RoaringBitmap> from = new LinkedHashMap<>();
        long[] gone = {0};
        int[] o = offsets.toArray();
        if (!follow(fragmentId, o, o, latest, to, from, gone)) {
            return Optional.empty();
        }
        return Optional.of(new Destination(to, from, gone[0]));
    }

    private boolean follow(
            long fragmentId,
            int[] origin,
            int[] offsets,
            Manifest latest,
            Map<Long, RoaringBitmap> to,
            Map<Long, RoaringBitmap> from,
            long[] gone)
            throws IOException {
        if (latest.fragment(fragmentId).isPresent()) {
            to.computeIfAbsent(fragmentId, k -> new RoaringBitmap()).add(offsets);
            from.computeIfAbsent(fragmentId, k -> new RoaringBitmap()).add(origin);
            return true;
        }
        Optional<FragmentRemoval.Cause> cause = removal(fragmentId, latest);
        if (cause.isEmpty()) {
            return false;
        }
        if (cause.get().rowsDeleted()) {
            gone[0] += offsets.length;
            return true;
        }
        if (!cause.get().operation().equals("Rewrite")) {
            return false;
        }
        RewriteMoves moves = moves(cause.get().version());
        // Per new fragment, in the order the moves keep: the origins and the new offsets.
        Map<Long, int[][]> next = new LinkedHashMap<>();
        Map<Long, Integer> counts = new HashMap<>();
        long[] addresses = new long[offsets.length];
        for (int i = 0; i < offsets.length; i++) {
            OptionalLong a = moves.newAddress(fragmentId, offsets[i]);
            addresses[i] = a.orElse(-1);
            if (a.isEmpty()) {
                gone[0]++;
            } else {
                counts.merge(RowAddress.fragmentId(a.getAsLong()), 1, Integer::sum);
            }
        }
        counts.forEach((id, n) -> next.put(id, new int[][] {new int[n], new int[n]}));
        Map<Long, Integer> filled = new HashMap<>();
        for (int i = 0; i < offsets.length; i++) {
            if (addresses[i] < 0) {
                continue;
            }
            long id = RowAddress.fragmentId(addresses[i]);
            int k = filled.merge(id, 1, Integer::sum) - 1;
            next.get(id)[0][k] = origin[i];
            next.get(id)[1][k] = RowAddress.offsetBits(addresses[i]);
        }
        for (Map.Entry<Long, int[][]> e : next.entrySet()) {
            if (!follow(e.getKey(), e.getValue()[0], e.getValue()[1], latest, to, from, gone)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Why fragment {@code fragmentId} is not in {@code latest}: the newest transaction that removed
     * it, found by walking the transactions back from the latest version (small objects, each read
     * once per instance, so the fragments one compaction removed cost one walk), or by
     * {@link FragmentRemoval#find} for operations whose removals only the manifests show.
     */
    private Optional<FragmentRemoval.Cause> removal(long fragmentId, Manifest latest) throws IOException {
        FragmentRemoval.Cause known = removals.get(fragmentId);
        if (known != null) {
            return Optional.of(known);
        }
        for (long v = latest.version(); v >= 2 && v > latest.version() - TableHistory.WALK_LIMIT; v--) {
            Optional<Transaction> txn = transactionAt(v);
            if (txn.isEmpty()) {
                break; // history removed by cleanup: the manifests decide
            }
            Operation op = txn.get().operation();
            boolean removed = op instanceof Operation.Rewrite r
                    ? r.oldFragmentIds().contains(fragmentId)
                    : op instanceof Operation.Delete d
                            ? d.deletedFragmentIds().contains(fragmentId)
                            : op instanceof Operation.Update u
                                    && u.removedFragmentIds().contains(fragmentId);
            if (removed) {
                FragmentRemoval.Cause c = new FragmentRemoval.Cause(v, op.name(), op instanceof Operation.Delete);
                removals.put(fragmentId, c);
                return Optional.of(c);
            }
            if (op instanceof Operation.Overwrite
                    || op instanceof Operation.Restore
                    || op instanceof Operation.Merge
                    || op instanceof Operation.Unknown) {
                break; // replaced fragment lists: the manifests decide
            }
        }
        Optional<FragmentRemoval.Cause> found = FragmentRemoval.find(history, fragmentId, latest);
        found.ifPresent(c -> removals.put(fragmentId, c));
        return found;
    }

    private Optional<Transaction> transactionAt(long version) throws IOException {
        return history.transaction(version);
    }

    /** The moves of the Rewrite committed as {@code version}. */
    private RewriteMoves moves(long version) throws IOException {
        RewriteMoves m = movesByVersion.get(version);
        if (m == null) {
            Optional<TableHistory.Committed> c = history.version(version);
            // Missing, or without a transaction: read it directly for the precise error.
            Manifest committed = c.isPresent() ? history.manifest(c.get()) : history.manifest(version);
            Operation op = (c.isPresent() && c.get().transaction().isPresent()
                            ? c.get().transaction().get()
                            : TransactionStore.readForVersion(store, version))
                    .operation();
            m = RewriteMoves.of(store, committed, (Operation.Rewrite) op);
            movesByVersion.put(version, m);
        }
        return m;
    }
}
