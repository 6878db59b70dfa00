package dev.lanceflink.committer.core;

import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.ManifestIO;
import dev.lanceflink.table.RowAddress;
import dev.lanceflink.txn.Operation;
import dev.lanceflink.txn.RewriteMoves;
import dev.lanceflink.txn.TableHistory;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;

/**
 * The row moves of the {@code Rewrite}s (fragment compactions) a holder of row locations has seen
 * land, kept by the holder itself so that it can bring a location up to date after the Rewrite's
 * version is gone from the table's history (removed by version cleanup), when {@link MovedRows}
 * can no longer follow it.
 *
 * <p>Per Rewrite it keeps {@link RewriteMoves} (per old fragment its deletion vector and place in
 * its group, per group the new fragments' ids and row counts: no per-row entries), plus the sink
 * file id of each old fragment's first data file, so that a location still naming a file this
 * sink appended ({fileId, offset}) is followed too. Fragment ids are never reused by a table
 * (only replaced wholesale by an {@code Overwrite} or {@code Restore}, after which the log is
 * cleared: locations from before are stale anyway), so a location is translated by its fragment
 * id alone, through as many Rewrites as moved it, whatever version it was taken at.
 *
 * <p>{@link #learn} reads the versions committed since the last call (one small transaction per
 * version); {@link #snapshot} and {@link #restore} keep the log in operator state.
 */
public final class RewriteLog {
    private static final byte HEADER = 0;
    private static final byte REWRITE = 1;

    /** One learned Rewrite. {@code fileIds[i]} is the sink file id of {@code fragmentIds[i]}'s first file (0: none). */
    private record Logged(long version, RewriteMoves moves, long[] fragmentIds, long[] fileIds) {}

    private final TreeMap<Long, Logged> byVersion = new TreeMap<>();
    private final Map<Long, Logged> byOldFragment = new HashMap<>();
    private final Map<Long, Long> oldFragmentOfFile = new HashMap<>();
    /** Every Rewrite committed up to this version that the history still had when learned is in the log. */
    private long through;
    /** The version of the newest Overwrite or Restore {@link #learn} met (0: none). */
    private long lastReplacement;

    /** An empty log that has seen the table up to version {@code through}. */
    public RewriteLog(long through) {
        this.through = through;
    }

    /** The version up to which this log has read the table's history. */
    public long through() {
        return through;
    }

    /**
     * The version of the newest {@code Overwrite} or {@code Restore} that {@link #learn} met since
     * this log was made or restored, 0 if none: whoever keeps locations beside the log drops them
     * when this grows, as the log dropped its Rewrites.
     */
    public long lastReplacement() {
        return lastReplacement;
    }

    /**
     * The version of the logged Rewrite that compacted the fragment whose first data file has the
     * sink file id {@code fileId} (see {@link PendingFiles}), if the log holds one: proof that the
     * file was committed by that version, after the fragment itself is gone from the manifest.
     */
    public OptionalLong rewriteOfFile(long fileId) {
        Long fragment = oldFragmentOfFile.get(fileId);
        return fragment == null
                ? OptionalLong.empty()
                : OptionalLong.of(byOldFragment.get(fragment).version());
    }

    /** How many old fragments the log can translate locations out of. */
    public int movedFragments() {
        return byOldFragment.size();
    }

    /** How many Rewrites the log holds. */
    public int rewrites() {
        return byVersion.size();
    }

    /**
     * Reads the versions after {@link #through()} up to {@code latestVersion} and keeps the moves
     * of every Rewrite among them. A version no longer readable (cleaned up already) is skipped:
     * its moves are unknown here, and a location older than it is left to {@link MovedRows}, which
     * then fails with its message.
     *
     * @return how many Rewrites were learned
     */
    public int learn(TableHistory history, long latestVersion) throws IOException {
        int learned = 0;
        for (long v = through + 1; v <= latestVersion; v++) {
            Optional<TableHistory.Committed> c = history.version(v);
            if (c.isEmpty() || c.get().transaction().isEmpty()) {
                continue;
            }
            Operation op = c.get().transaction().get().operation();
            if (op instanceof Operation.Overwrite || op instanceof Operation.Restore) {
                clear(); // every fragment replaced: no location from before may be translated
                lastReplacement = v;
            } else if (op instanceof Operation.Rewrite r) {
                Manifest committed = ManifestIO.read(history.store(), c.get().location());
                add(v, RewriteMoves.of(history.store(), committed, r), r);
                learned++;
            }
        }
        through = Math.max(through, latestVersion);
        return learned;
    }

    private void add(long version, RewriteMoves moves, Operation.Rewrite rewrite) {
        List<Long> ids = new ArrayList<>();
        List<Long> files = new ArrayList<>();
        for (Operation.RewriteGroup g : rewrite.groups()) {
            for (Fragment f : g.oldFragments()) {
                ids.add(f.id());
                files.add(
                        f.files().isEmpty()
                                ? 0L
                                : PendingFiles.fileIdOf(f.files().get(0).path()));
            }
        }
        add(new Logged(
                version,
                moves,
                ids.stream().mapToLong(Long::longValue).toArray(),
                files.stream().mapToLong(Long::longValue).toArray()));
    }

    private void add(Logged l) {
        if (byVersion.putIfAbsent(l.version(), l) != null) {
            return;
        }
        for (int i = 0; i < l.fragmentIds().length; i++) {
            byOldFragment.put(l.fragmentIds()[i], l);
            if (l.fileIds()[i] != 0) {
                oldFragmentOfFile.put(l.fileIds()[i], l.fragmentIds()[i]);
            }
        }
    }

    private void clear() {
        byVersion.clear();
        byOldFragment.clear();
        oldFragmentOfFile.clear();
    }

    /**
     * Where the row at {@code location} ({fileId, offset} for a file this sink appended, {0, row
     * address} otherwise) is now, following the logged Rewrites that moved it: the same array if
     * none did (or the log does not know), a new {0, row address} if some did, or null if the row
     * was deleted before a Rewrite moved its fragment (the Rewrite dropped it).
     *
     * @param latest the version the location is made current for: a fragment it has is not
     *     followed further
     * @throws LocationMismatchException if {@code location} does not fit a Rewrite that moved it
     */
    public long[] translate(long[] location, Manifest latest) {
        return walk(location, latest, null);
    }

    /**
     * The versions of the logged Rewrites that {@link #translate} passes on its way with {@code
     * location}: those a location that cannot be made current (its row was deleted before a move,
     * so it is kept as it was) still needs, see {@link #dropThrough}.
     */
    public Set<Long> chainOf(long[] location, Manifest latest) {
        Set<Long> versions = new HashSet<>();
        walk(location, latest, versions);
        return versions;
    }

    /**
     * Drops the logged Rewrites up to {@code version} but those in {@code keep}. For a holder that
     * has just made every location it holds current ({@link #translate}) against a version at or
     * after {@code version}: no location then needs a Rewrite that old, but for the ones in {@code
     * keep} ({@link #chainOf} of each location that could not be made current). Without this the
     * log grows with every compaction the holder lives through, and it is written at every
     * checkpoint.
     *
     * @return how many Rewrites were dropped
     */
    public int dropThrough(long version, Set<Long> keep) {
        int dropped = 0;
        for (Iterator<Logged> it = byVersion.headMap(version, true).values().iterator(); it.hasNext(); ) {
            Logged l = it.next();
            if (keep.contains(l.version())) {
                continue;
            }
            it.remove();
            for (int i = 0; i < l.fragmentIds().length; i++) {
                byOldFragment.remove(l.fragmentIds()[i], l);
                if (l.fileIds()[i] != 0) {
                    oldFragmentOfFile.remove(l.fileIds()[i], l.fragmentIds()[i]);
                }
            }
            dropped++;
        }
        return dropped;
    }

    /** {@link #translate}, noting the versions of the Rewrites passed in {@code passed} if not null. */
    private long[] walk(long[] location, Manifest latest, Set<Long> passed) {
        long fragment;
        long offset;
        if (location[0] != 0) {
            Long f = oldFragmentOfFile.get(location[0]);
            if (f == null) {
                return location;
            }
            fragment = f;
            offset = location[1];
        } else {
            fragment = RowAddress.fragmentId(location[1]);
            offset = RowAddress.offset(location[1]);
        }
        boolean moved = false;
        while (latest.fragment(fragment).isEmpty()) {
            Logged l = byOldFragment.get(fragment);
            if (l == null) {
                break;
            }
            if (passed != null) {
                passed.add(l.version());
            }
            OptionalLong to;
            try {
                to = l.moves().newAddress(fragment, (int) offset);
            } catch (IllegalArgumentException e) {
                throw new LocationMismatchException(
                        "A key's row location (fragment " + fragment + ", offset " + offset
                                + ") does not fit the Rewrite of version " + l.version() + " that moved that fragment: "
                                + e.getMessage()
                                + ". The key map does not match the table; restart the sink without state"
                                + " so that it is rebuilt from the table",
                        e);
            }
            if (to.isEmpty()) {
                return null;
            }
            fragment = RowAddress.fragmentId(to.getAsLong());
            offset = RowAddress.offset(to.getAsLong());
            moved = true;
        }
        return moved ? new long[] {0, RowAddress.of(fragment, offset)} : location;
    }

    /**
     * A location that does not fit the logged Rewrite that moved its fragment: the holder's
     * locations do not describe the table. No restart from the same state cures it (the restored
     * locations and log are the same): the Flink sink stops the job on it.
     */
    public static final class LocationMismatchException extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        LocationMismatchException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** The log as operator state entries; {@link #restore} merges the entries of all subtasks. */
    public List<byte[]> snapshot() {
        List<byte[]> out = new ArrayList<>();
        out.add(bytes(d -> {
            d.writeByte(HEADER);
            d.writeLong(through);
        }));
        for (Logged l : byVersion.values()) {
            out.add(bytes(d -> {
                d.writeByte(REWRITE);
                d.writeLong(l.version());
                d.writeInt(l.fragmentIds().length);
                for (int i = 0; i < l.fragmentIds().length; i++) {
                    d.writeLong(l.fragmentIds()[i]);
                    d.writeLong(l.fileIds()[i]);
                }
                l.moves().writeTo(d);
            }));
        }
        return out;
    }

    /**
     * The log from the entries of {@link #snapshot} (of one subtask or, merged, of several: then
     * it has read the history up to the smallest {@link #through()} of them, and keeps every
     * Rewrite any of them knew), or empty if there are none (state from before the log existed).
     */
    public static Optional<RewriteLog> restore(Iterable<byte[]> entries) throws IOException {
        Long through = null;
        List<Logged> logged = new ArrayList<>();
        for (byte[] e : entries) {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(e));
            byte kind = in.readByte();
            if (kind == HEADER) {
                long t = in.readLong();
                through = through == null ? t : Math.min(through, t);
            } else if (kind == REWRITE) {
                long version = in.readLong();
                int n = in.readInt();
                long[] ids = new long[n];
                long[] files = new long[n];
                for (int i = 0; i < n; i++) {
                    ids[i] = in.readLong();
                    files[i] = in.readLong();
                }
                logged.add(new Logged(version, RewriteMoves.readFrom(in), ids, files));
            } else {
                throw new IOException(
                        "A rewrite log entry of kind " + kind + " is not one this version writes (0 or 1);"
                                + " the state was written by a newer version of the sink");
            }
        }
        if (through == null) {
            return Optional.empty();
        }
        RewriteLog log = new RewriteLog(through);
        logged.sort((a, b) -> Long.compare(a.version(), b.version()));
        for (Logged l : logged) {
            log.add(l);
        }
        return Optional.of(log);
    }

    private interface Writing {
        void write(DataOutputStream out) throws IOException;
    }

    private static byte[] bytes(Writing w) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (DataOutputStream d = new DataOutputStream(b)) {
            w.write(d);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // in memory: cannot happen
        }
        return b.toByteArray();
    }
}
