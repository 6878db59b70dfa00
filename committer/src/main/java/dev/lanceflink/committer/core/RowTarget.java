package dev.lanceflink.committer.core;

import dev.lanceflink.table.Fragment;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;

/**
 * The fragment an overlay or a deletion applies to: a committed fragment (by id), or a fragment
 * this sink wrote whose commit may still be pending (by the file id in its data file's name, see
 * {@link PendingFiles}). The committer resolves pending targets once the fragment is committed.
 *
 * @param fragmentId the fragment id when {@code pendingFileId} is 0
 * @param pendingFileId the file id of an uncommitted fragment, or 0
 */
public record RowTarget(long fragmentId, long pendingFileId) {
    public RowTarget {
        if (fragmentId < 0) {
            throw new IllegalArgumentException("fragmentId must not be negative, got " + fragmentId);
        }
        if (pendingFileId != 0 && fragmentId != 0) {
            throw new IllegalArgumentException("A target is either committed or pending, got fragment " + fragmentId
                    + " and pending file " + Long.toHexString(pendingFileId));
        }
    }

    public static RowTarget committed(long fragmentId) {
        return new RowTarget(fragmentId, 0);
    }

    public static RowTarget pending(long fileId) {
        return new RowTarget(0, fileId);
    }

    public boolean isPending() {
        return pendingFileId != 0;
    }

    /**
     * The fragment of the table version described by {@code fragments} (id → fragment) and
     * {@code pendingIndex} ({@link PendingFiles#index}); empty if the table has no such fragment
     * (anymore).
     */
    public Optional<Fragment> resolve(Map<Long, Fragment> fragments, Map<Long, Fragment> pendingIndex) {
        return Optional.ofNullable(isPending() ? pendingIndex.get(pendingFileId) : fragments.get(fragmentId));
    }

    // Written out: the upsert writer looks its buffer up by target for every change, and the
    // record's generated equals (through method handles) showed in its profile.
    @Override
    public boolean equals(Object o) {
        return o instanceof RowTarget t && t.fragmentId == fragmentId && t.pendingFileId == pendingFileId;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(fragmentId * 31 + pendingFileId);
    }

    @Override
    public String toString() {
        return isPending() ? "uncommitted file " + HexFormat.of().toHexDigits(pendingFileId) : "fragment " + fragmentId;
    }
}
