package dev.lanceflink.flink.sink.upsert;

import dev.lanceflink.committer.core.PendingFiles;
import dev.lanceflink.committer.core.RewriteLog;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;

/**
 * The delta log of the upsert key map (design of issue #17, §3(b)): this subtask's changes that
 * moved a key — a new row (insert), a row moved to a new place (update mode rewrite-rows), a
 * deleted row — in one segment per checkpoint, until the table shows the checkpoint committed.
 * Cell updates (overlays) are not logged: they leave the key's row where it is.
 *
 * <p>Why: the key map is rebuilt from the table on restore (a scan at a pinned version V), but the
 * checkpoints the restored state covers may not be committed yet — Flink re-commits them from
 * another task, in no order with the scan. Replaying the log's uncommitted segments over the scan
 * ({@link #applyTo}) gives the map every change up to the restored checkpoint either way (I1).
 *
 * <p>{@link #prune} drops segments by evidence in the latest manifest, with no commit user: a
 * checkpoint commits as one version, in checkpoint order (I2), so a segment whose new data file is
 * in the table proves itself and every older segment committed. A segment of deletes only has no
 * file; it is dropped alone once all its deleted rows show deleted, and proves nothing about older
 * ones: another writer may have deleted those rows, so it is no evidence of our commit (an older
 * segment dropped on it could be missing from the table at the next restore).
 *
 * <p>Keys are kept as their binary rows (the keyBy key), so that a restore keeps exactly the
 * entries of its own key groups ({@code KeyGroupRangeAssignment}), rescaled or not; locations as
 * {fileId, position} ({0, row address} for a committed row), independent of any map's
 * {@link PendingFileTable}. Entries live in byte arrays, the form they are snapshot in.
 */
final class UncommittedKeyChanges {
    /** Written first in every state entry; {@link #restore} refuses any other. */
    static final byte FORMAT_VERSION = 1;
    /** State entry kind: one checkpoint's segment. */
    static final byte SEGMENT = 1;

    /** Entry kinds. */
    private static final byte INSERT = 1;

    private static final byte MOVE = 2;
    private static final byte DELETE = 3;

    /** Whether a row is deleted in a version: {@link DeletedRowCheck} against that version. */
    @FunctionalInterface
    interface RowDeletions {
        /** @param fileId 0 for a committed row, whose row address {@code position} is */
        boolean isDeleted(long fileId, long position) throws IOException;
    }

    private final TreeMap<Long, Segment> sealed = new TreeMap<>();
    private Segment open = new Segment(-1);
    /** {@link RewriteLog#lastReplacement()} when the log was last cleared for it. */
    private long replacementSeen;

    /** A new row for {@code key} at {@code offset} of data file {@code fileId}, which this sink writes. */
    void inserted(BinaryRowData key, long fileId, long offset) {
        open.add(INSERT, key, 0, 0, fileId, offset);
    }

    /** {@code key}'s row moved from {fromFileId, fromPosition} to {@code offset} of new file {@code fileId}. */
    void moved(BinaryRowData key, long fromFileId, long fromPosition, long fileId, long offset) {
        open.add(MOVE, key, fromFileId, fromPosition, fileId, offset);
    }

    /** {@code key}'s row at {fromFileId, fromPosition} was deleted: the key has no row. */
    void deleted(BinaryRowData key, long fromFileId, long fromPosition) {
        open.add(DELETE, key, fromFileId, fromPosition, 0, 0);
    }

    /** Closes the changes added since the last call as the segment of checkpoint {@code checkpointId}. */
    void seal(long checkpointId) {
        if (open.entries > 0) {
            Segment s = sealed.computeIfAbsent(checkpointId, Segment::new);
            s.addAll(open);
        }
        open = new Segment(-1);
    }

    /** Sealed segments. */
    int segments() {
        return sealed.size();
    }

    /** Entries in all segments, sealed or not. */
    long entries() {
        long n = open.entries;
        for (Segment s : sealed.values()) {
            n += s.entries;
        }
        return n;
    }

    /** The checkpoint ids of the sealed segments, oldest first. */
    List<Long> checkpointIds() {
        return new ArrayList<>(sealed.keySet());
    }

    void clear() {
        sealed.clear();
        open = new Segment(-1);
    }

    /**
     * The sealed segments as union operator state entries, one per segment (so every subtask
     * reads them all after a rescale, and keeps its key groups' entries).
     *
     * @throws IllegalStateException if changes were added after the last {@link #seal}
     */
    List<byte[]> snapshot() {
        if (open.entries > 0) {
            throw new IllegalStateException(
                    open.entries + " key changes were not sealed into a checkpoint's segment before the snapshot");
        }
        List<byte[]> out = new ArrayList<>(sealed.size());
        for (Segment s : sealed.values()) {
            out.add(s.toBytes());
        }
        return out;
    }

    /**
     * The log from the entries of {@link #snapshot} of any number of subtasks, keeping the changes
     * of keys in {@code ownGroups}, and each segment's file ids whichever subtask wrote them (a
     * checkpoint is one version, so any of its files proves it).
     */
    static UncommittedKeyChanges restore(Iterable<byte[]> entries, KeyGroupRange ownGroups, int maxParallelism)
            throws IOException {
        UncommittedKeyChanges log = new UncommittedKeyChanges();
        for (byte[] e : entries) {
            Segment read = Segment.fromBytes(e);
            Segment s = log.sealed.computeIfAbsent(read.checkpointId, Segment::new);
            s.addFiles(read);
            read.forEach((kind, key, from, fromPosition, to, offset) -> {
                if (ownGroups.contains(KeyGroupRangeAssignment.assignToKeyGroup(key, maxParallelism))) {
                    s.add(kind, key, from, fromPosition, to, offset);
                }
            });
        }
        log.sealed.values().removeIf(s -> s.entries == 0 && s.fileCount == 0);
        return log;
    }

    /**
     * Drops the segments {@code latest} shows committed: walking from the newest down, the first
     * one with a new data file in {@code latest} (or compacted away by a Rewrite in {@code
     * rewrites}) and all older ones; then each segment of deletes only whose rows {@code deleted}
     * all shows deleted. An {@code Overwrite} or {@code Restore} that {@code rewrites} learned since
     * the last call clears the log: every fragment was replaced, like the rewrite log's own.
     *
     * @param deleted deletions as of {@code latest}
     * @return how many segments were dropped
     */
    int prune(Manifest latest, RewriteLog rewrites, RowDeletions deleted) throws IOException {
        return prune(latest, rewrites, deleted, true);
    }

    /**
     * @param deletesAlone whether a segment of deletes only may be dropped on its own rows' evidence;
     *     not while the log extends an authoritative base (a v1 key map, see {@code
     *     ChangelogKeyResolver}) that a restore replays it over without a scan: the base still holds
     *     those keys, and only a newer segment's file proves the base's own checkpoint committed
     */
    int prune(Manifest latest, RewriteLog rewrites, RowDeletions deleted, boolean deletesAlone) throws IOException {
        int before = sealed.size();
        if (rewrites.lastReplacement() > replacementSeen) {
            replacementSeen = rewrites.lastReplacement();
            clear();
            return before;
        }
        Map<Long, Fragment> files = PendingFiles.index(latest);
        OptionalLong proven = newestWithFileIn(latest, files, rewrites);
        if (proven.isPresent()) {
            sealed.headMap(proven.getAsLong(), true).clear();
        }
        for (Iterator<Segment> it = sealed.values().iterator(); deletesAlone && it.hasNext(); ) {
            Segment s = it.next();
            if (s.fileCount == 0 && s.allDeleted(deleted)) {
                it.remove();
            }
        }
        return before - sealed.size();
    }

    /**
     * Replays the segments not committed at {@code v} over {@code map}, a scan of the table at
     * {@code v}, in checkpoint order: a segment committed at {@code v} (by the evidence of {@link
     * #prune}, or older than one that is) keeps what the scan found; otherwise a new or moved row
     * puts its pending location, and a delete removes the key unless {@code v} already shows the
     * row deleted (the scan is right then, also if another writer inserted the key since).
     *
     * @param files where the map's pending locations get their slots
     * @param deletedAtV deletions as of {@code v}
     */
    void applyTo(KeyLocations map, PendingFileTable files, Manifest v, RewriteLog rewrites, RowDeletions deletedAtV)
            throws IOException {
        OptionalLong committed = newestWithFileIn(v, PendingFiles.index(v), rewrites);
        Map<Long, Segment> replay = committed.isPresent() ? sealed.tailMap(committed.getAsLong(), false) : sealed;
        for (Segment s : replay.values()) {
            IOException[] failure = new IOException[1];
            s.forEach((kind, key, from, fromPosition, to, offset) -> {
                if (failure[0] != null) {
                    return;
                }
                int hash = key.hashCode();
                if (kind == DELETE) {
                    try {
                        if (!deletedAtV.isDeleted(from, fromPosition)) {
                            map.remove(key, hash);
                        }
                    } catch (IOException e) {
                        failure[0] = e;
                    }
                } else {
                    map.put(key, hash, files.pack(to, offset));
                }
            });
            if (failure[0] != null) {
                throw failure[0];
            }
        }
    }

    /**
     * Whether {@code latest} proves a checkpoint of this log committed: one of a segment's new data
     * files is in it (or was compacted by a Rewrite {@code rewrites} knows, by then), so that
     * segment's checkpoint and every older one are committed (one version per checkpoint, in
     * order); or an {@code Overwrite}/{@code Restore} since the last {@link #prune} replaced every
     * fragment, which {@link #prune} answers by clearing the log. A segment of deletes only proves
     * nothing (another writer may have deleted its rows).
     */
    boolean provesCommitted(Manifest latest, RewriteLog rewrites) {
        return rewrites.lastReplacement() > replacementSeen
                || newestWithFileIn(latest, PendingFiles.index(latest), rewrites)
                        .isPresent();
    }

    /**
     * Replays every segment over {@code map} in checkpoint order, whatever the table shows: for a
     * map that is not a scan of the table but a full map as of the checkpoint before the oldest
     * segment (the keyed-state map a v1 migration starts from), so that the result is the map as
     * of the newest segment, exactly. A new or moved row puts its pending location (turned into a
     * row address by {@link PendingFileTable#resolve} once its file shows committed), a delete
     * removes the key.
     */
    void applyAll(KeyLocations map, PendingFileTable files) {
        for (Segment s : sealed.values()) {
            s.forEach((kind, key, from, fromPosition, to, offset) -> {
                int hash = key.hashCode();
                if (kind == DELETE) {
                    map.remove(key, hash);
                } else {
                    map.put(key, hash, files.pack(to, offset));
                }
            });
        }
    }

    /** The newest segment one of whose new data files {@code m} has committed, if any. */
    private OptionalLong newestWithFileIn(Manifest m, Map<Long, Fragment> files, RewriteLog rewrites) {
        for (Segment s : sealed.descendingMap().values()) {
            for (int i = 0; i < s.fileCount; i++) {
                long f = s.fileIds[i];
                OptionalLong rewrittenAt = rewrites.rewriteOfFile(f);
                if (files.containsKey(f) || (rewrittenAt.isPresent() && rewrittenAt.getAsLong() <= m.version())) {
                    return OptionalLong.of(s.checkpointId);
                }
            }
        }
        return OptionalLong.empty();
    }

    @FunctionalInterface
    private interface EntryVisitor {
        void visit(byte kind, BinaryRowData key, long fromFileId, long fromPosition, long toFileId, long toOffset);
    }

    /**
     * One checkpoint's changes: entries back to back in a byte array, {@code kind, key arity, key
     * length, key bytes} then the old location (MOVE, DELETE: fileId, position) and the new one
     * (INSERT, MOVE: fileId, offset as an int); plus the distinct new file ids, the evidence.
     */
    private static final class Segment {
        final long checkpointId;
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private final DataOutputStream out = new DataOutputStream(bytes);
        int entries;
        long[] fileIds = new long[4];
        int fileCount;
        private byte[] scratch = new byte[64];

        Segment(long checkpointId) {
            this.checkpointId = checkpointId;
        }

        void add(byte kind, BinaryRowData key, long from, long fromPosition, long to, long offset) {
            int length = key.getSizeInBytes();
            try {
                out.writeByte(kind);
                out.writeShort(key.getArity());
                out.writeInt(length);
                if (scratch.length < length) {
                    scratch = new byte[Math.max(length, 2 * scratch.length)];
                }
                BinarySegmentUtils.copyToBytes(key.getSegments(), key.getOffset(), scratch, 0, length);
                out.write(scratch, 0, length);
                if (kind != INSERT) {
                    out.writeLong(from);
                    out.writeLong(fromPosition);
                }
                if (kind != DELETE) {
                    out.writeLong(to);
                    out.writeInt((int) offset);
                    addFile(to);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e); // in memory: cannot happen
            }
            entries++;
        }

        void addFile(long fileId) {
            for (int i = 0; i < fileCount; i++) {
                if (fileIds[i] == fileId) {
                    return;
                }
            }
            if (fileCount == fileIds.length) {
                fileIds = Arrays.copyOf(fileIds, fileCount * 2);
            }
            fileIds[fileCount++] = fileId;
        }

        void addFiles(Segment other) {
            for (int i = 0; i < other.fileCount; i++) {
                addFile(other.fileIds[i]);
            }
        }

        void addAll(Segment other) {
            other.forEach(this::add);
            addFiles(other);
        }

        /** Visits the entries; the key row is reused between calls. */
        void forEach(EntryVisitor visitor) {
            byte[] b = bytes.toByteArray();
            MemorySegment segment = MemorySegmentFactory.wrap(b);
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(b));
            BinaryRowData key = null;
            try {
                for (int i = 0; i < entries; i++) {
                    byte kind = in.readByte();
                    int arity = in.readShort();
                    int length = in.readInt();
                    int keyOffset = b.length - in.available();
                    in.skipNBytes(length);
                    if (key == null || key.getArity() != arity) {
                        key = new BinaryRowData(arity);
                    }
                    key.pointTo(segment, keyOffset, length);
                    long from = kind == INSERT ? 0 : in.readLong();
                    long fromPosition = kind == INSERT ? 0 : in.readLong();
                    long to = kind == DELETE ? 0 : in.readLong();
                    long offset = kind == DELETE ? 0 : Integer.toUnsignedLong(in.readInt());
                    visitor.visit(kind, key, from, fromPosition, to, offset);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e); // in memory: cannot happen
            }
        }

        /** Whether every deleted row of this segment shows deleted. */
        boolean allDeleted(RowDeletions deleted) throws IOException {
            IOException[] failure = new IOException[1];
            boolean[] all = {true};
            forEach((kind, key, from, fromPosition, to, offset) -> {
                if (!all[0] || failure[0] != null) {
                    return;
                }
                try {
                    all[0] = kind == DELETE && deleted.isDeleted(from, fromPosition);
                } catch (IOException e) {
                    failure[0] = e;
                }
            });
            if (failure[0] != null) {
                throw failure[0];
            }
            return all[0];
        }

        byte[] toBytes() {
            ByteArrayOutputStream b = new ByteArrayOutputStream(bytes.size() + 32 + 8 * fileCount);
            try (DataOutputStream d = new DataOutputStream(b)) {
                d.writeByte(FORMAT_VERSION);
                d.writeByte(SEGMENT);
                d.writeLong(checkpointId);
                d.writeInt(fileCount);
                for (int i = 0; i < fileCount; i++) {
                    d.writeLong(fileIds[i]);
                }
                d.writeInt(entries);
                bytes.writeTo(d);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return b.toByteArray();
        }

        static Segment fromBytes(byte[] e) throws IOException {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(e));
            byte version = in.readByte();
            if (version != FORMAT_VERSION) {
                throw new IOException("An uncommitted key change entry has format version " + version + "; this"
                        + " version of the sink reads version " + FORMAT_VERSION + " only: the state was written by"
                        + " a newer version of the sink");
            }
            byte kind = in.readByte();
            if (kind != SEGMENT) {
                throw new IOException("An uncommitted key change entry is of kind " + kind + "; this version of the"
                        + " sink reads kind " + SEGMENT + " (a checkpoint's segment) only: the state was written by a"
                        + " newer version of the sink");
            }
            Segment s = new Segment(in.readLong());
            int files = in.readInt();
            for (int i = 0; i < files; i++) {
                s.addFile(in.readLong());
            }
            s.entries = in.readInt();
            in.transferTo(s.bytes);
            return s;
        }
    }
}
