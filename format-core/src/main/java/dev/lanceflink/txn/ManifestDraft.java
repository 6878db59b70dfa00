package dev.lanceflink.txn;

import dev.lanceflink.rowid.RowIdAssigner;
import dev.lanceflink.rowid.RowIdSequenceCodec;
import dev.lanceflink.schema.LanceSchema;
import dev.lanceflink.table.BasePath;
import dev.lanceflink.table.CorruptTableException;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.IndexEntry;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.SequenceSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The mutable state of a manifest under construction, shared by the per-operation appliers. It
 * starts as a copy of the inheritable parts of the current manifest (table-format.md §9 step 2).
 */
final class ManifestDraft {
    final Manifest current; // null when creating the table
    final long newVersion;
    /**
     * The version the transaction's writer read: overlays committed after it are concurrent
     * changes the transaction never saw (a DataReplacement keeps them). Defaults to the current
     * version.
     */
    long readVersion;

    List<Fragment> fragments;
    LanceSchema schema;
    List<IndexEntry> indices;
    boolean writeIndexSection;
    Map<String, String> config;
    Map<String, String> tableMetadata;
    List<BasePath> basePaths;
    /** Next id to hand out to a fragment with id 0. */
    long nextFragmentId;
    /** High-water mark that must survive even if no fragment carries it (-1 = none). */
    long reservedMaxFragmentId;

    long nextRowId;
    boolean stableRowIds;

    ManifestDraft(Manifest current, long newVersion, boolean stableRowIdsForNewTable) {
        this.current = current;
        this.newVersion = newVersion;
        this.readVersion = current == null ? 0 : current.version();
        if (current == null) {
            fragments = new ArrayList<>();
            schema = LanceSchema.of(List.of());
            indices = new ArrayList<>();
            config = new LinkedHashMap<>();
            tableMetadata = new LinkedHashMap<>();
            basePaths = new ArrayList<>();
            nextFragmentId = 0;
            reservedMaxFragmentId = -1;
            stableRowIds = stableRowIdsForNewTable;
        } else {
            fragments = new ArrayList<>(current.fragments());
            schema = current.schema();
            indices = new ArrayList<>(current.indices());
            writeIndexSection = current.hasIndexSection();
            config = new LinkedHashMap<>(current.config());
            tableMetadata = new LinkedHashMap<>(current.tableMetadata());
            basePaths = new ArrayList<>(current.basePaths());
            nextFragmentId = current.nextFragmentId();
            reservedMaxFragmentId = current.maxFragmentId().orElse(-1);
            nextRowId = current.nextRowId();
            stableRowIds = current.usesStableRowIds();
        }
    }

    /** Gives every fragment with id 0 the next free id, keeping other ids. */
    List<Fragment> assignIds(List<Fragment> incoming) {
        List<Fragment> out = new ArrayList<>(incoming.size());
        for (Fragment f : incoming) {
            if (f.id() == 0) {
                Fragment.checkFitsU32(nextFragmentId);
                out.add(f.withId(nextFragmentId++));
            } else {
                for (Fragment existing : fragments) {
                    if (existing.id() == f.id()) {
                        throw new IllegalStateException("A new fragment has id " + f.id() + ", which fragment "
                                + existing.id() + " of version " + (current == null ? 0 : current.version())
                                + " already has; fragment ids must be unique");
                    }
                }
                nextFragmentId = Math.max(nextFragmentId, f.id() + 1);
                out.add(f);
            }
        }
        return out;
    }

    /** Assigns ids and, for stable-row-id tables, row ids to fragments that have none yet. */
    List<Fragment> admitNewFragments(List<Fragment> incoming) throws CorruptTableException {
        List<Fragment> withIds = assignIds(incoming);
        if (!stableRowIds) {
            return withIds;
        }
        List<Fragment> out = new ArrayList<>(withIds.size());
        for (Fragment f : withIds) {
            if (f.rowIdMeta().rowIds() != null) {
                nextRowId = Math.max(nextRowId, rowIdsEnd(f));
                out.add(f); // rows moved by an update keep their stable ids
            } else {
                RowIdAssigner.Result r = RowIdAssigner.assign(List.of(f), nextRowId, newVersion);
                nextRowId = r.nextRowId();
                out.add(r.fragments().get(0));
            }
        }
        return out;
    }

    /**
     * One past the largest row id an incoming fragment carries (inline; an external sequence is
     * not read here and counts as 0: it names rows the table handed out before).
     */
    private static long rowIdsEnd(Fragment f) throws CorruptTableException {
        if (!(f.rowIdMeta().rowIds() instanceof SequenceSource.Inline inline)) {
            return 0;
        }
        long end = 0;
        for (long id : RowIdSequenceCodec.decode(inline.bytes(), "row ids of new fragment " + f.id())) {
            end = Math.max(end, id + 1);
        }
        return end;
    }

    /** The current fragment with {@code id}, or an error naming the operation. */
    Fragment requireFragment(long id, String operation) {
        for (Fragment f : fragments) {
            if (f.id() == id) {
                return f;
            }
        }
        throw new IllegalStateException(operation + " refers to fragment " + id + ", which does not exist in version "
                + (current == null ? 0 : current.version()) + " of the table");
    }

    void replaceFragment(Fragment replacement) {
        for (int i = 0; i < fragments.size(); i++) {
            if (fragments.get(i).id() == replacement.id()) {
                fragments.set(i, replacement);
                return;
            }
        }
        throw new IllegalStateException("fragment " + replacement.id() + " does not exist");
    }

    void removeFragment(long id) {
        fragments.removeIf(f -> f.id() == id);
    }
}
