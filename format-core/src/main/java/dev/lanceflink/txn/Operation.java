package dev.lanceflink.txn;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.schema.LanceSchema;
import dev.lanceflink.table.BasePath;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.IndexEntry;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What one commit does (the {@code operation} oneof of {@code Transaction}). Every upstream
 * operation can be decoded, so the conflict checker understands any concurrent Lance writer;
 * {@link ManifestBuilder} builds manifests for the operations this library commits.
 */
public sealed interface Operation {

    /** Lance's name of the operation, for messages. */
    String name();

    /** Add rows as new fragments (ids 0 = assigned at commit). */
    record Append(List<Fragment> fragments) implements Operation {
        public Append {
            fragments = List.copyOf(fragments);
        }

        @Override
        public String name() {
            return "Append";
        }
    }

    /**
     * Delete rows: {@code updatedFragments} are full new versions of existing fragments (usually
     * only the deletion file changed), {@code deletedFragmentIds} lost every row.
     */
    record Delete(List<Fragment> updatedFragments, List<Long> deletedFragmentIds, String predicate)
            implements Operation {
        public Delete {
            updatedFragments = List.copyOf(updatedFragments);
            deletedFragmentIds = List.copyOf(deletedFragmentIds);
            requireNonNull(predicate, "predicate is null (use \"\")");
        }

        @Override
        public String name() {
            return "Delete";
        }
    }

    /**
     * Create the table or replace all its content and schema; new fragment ids continue after the
     * table's {@code max_fragment_id} (they are never reused).
     */
    record Overwrite(
            List<Fragment> fragments,
            LanceSchema schema,
            Map<String, String> configUpsertValues,
            List<BasePath> initialBases)
            implements Operation {
        public Overwrite {
            fragments = List.copyOf(fragments);
            requireNonNull(schema, "schema is null");
            configUpsertValues = Map.copyOf(configUpsertValues);
            initialBases = List.copyOf(initialBases);
        }

        public Overwrite(List<Fragment> fragments, LanceSchema schema) {
            this(fragments, schema, Map.of(), List.of());
        }

        @Override
        public String name() {
            return "Overwrite";
        }
    }

    /** Add, replace (same uuid) or remove index segments. */
    record CreateIndex(List<IndexEntry> newIndices, List<IndexEntry> removedIndices) implements Operation {
        public CreateIndex {
            newIndices = List.copyOf(newIndices);
            removedIndices = List.copyOf(removedIndices);
        }

        @Override
        public String name() {
            return "CreateIndex";
        }
    }

    /** One compaction group: these existing fragments become those new ones. */
    record RewriteGroup(List<Fragment> oldFragments, List<Fragment> newFragments) {
        public RewriteGroup {
            oldFragments = List.copyOf(oldFragments);
            newFragments = List.copyOf(newFragments);
        }
    }

    /**
     * Rewrite rows without changing values (compaction). {@code rewrittenIndices} are the
     * serialized {@code RewrittenIndex} messages, carried unchanged.
     */
    record Rewrite(List<RewriteGroup> groups, List<byte[]> rewrittenIndices) implements Operation {
        public Rewrite {
            groups = List.copyOf(groups);
            rewrittenIndices = rewrittenIndices.stream().map(byte[]::clone).toList();
        }

        public Rewrite(List<RewriteGroup> groups) {
            this(groups, List.of());
        }

        /** Ids of every fragment this rewrite replaces. */
        public Set<Long> oldFragmentIds() {
            Set<Long> ids = new HashSet<>();
            for (RewriteGroup g : groups) {
                for (Fragment f : g.oldFragments()) {
                    ids.add(f.id());
                }
            }
            return ids;
        }

        @Override
        public String name() {
            return "Rewrite";
        }
    }

    /** Add columns: the complete final fragment list and the new schema. */
    record Merge(List<Fragment> fragments, LanceSchema schema) implements Operation {
        public Merge {
            fragments = List.copyOf(fragments);
            requireNonNull(schema, "schema is null");
        }

        @Override
        public String name() {
            return "Merge";
        }
    }

    /** Drop or rename columns (metadata only). */
    record Project(LanceSchema schema) implements Operation {
        public Project {
            requireNonNull(schema, "schema is null");
        }

        @Override
        public String name() {
            return "Project";
        }
    }

    /** Make an old version current again. */
    record Restore(long version) implements Operation {
        @Override
        public String name() {
            return "Restore";
        }
    }

    /** Reserve fragment ids for a later rewrite. */
    record ReserveFragments(int numFragments) implements Operation {
        @Override
        public String name() {
            return "ReserveFragments";
        }
    }

    /** How an {@link Update} changed rows. */
    enum UpdateMode {
        /** Matched rows were deleted and re-written into new fragments (row addresses change). */
        REWRITE_ROWS,
        /** Modified columns were rewritten in place (row addresses stay). */
        REWRITE_COLUMNS
    }

    /**
     * Change values of existing rows (also merge-insert).
     *
     * @param extras a serialized {@code Transaction.Update} holding the fields this library does
     *     not model (compacted sstables, inserted-rows key filter, per-fragment offsets), carried
     *     through unchanged; empty when none
     * @param newRowsOnly known only to the writer that builds the update, never stored: its new
     *     fragments hold new rows, none copied from the rows it deletes ({@link #rowsAndCells}), so
     *     a concurrent overlay of a row it deletes loses nothing (the deletion wins) and is no
     *     conflict. A decoded update is never taken for one (false).
     */
    record Update(
            List<Long> removedFragmentIds,
            List<Fragment> updatedFragments,
            List<Fragment> newFragments,
            int[] fieldsModified,
            int[] fieldsForPreservingFragBitmap,
            UpdateMode mode,
            boolean hasInsertedRowsFilter,
            boolean hasCompactedSsTables,
            byte[] extras,
            boolean newRowsOnly)
            implements Operation {
        public Update {
            removedFragmentIds = List.copyOf(removedFragmentIds);
            updatedFragments = List.copyOf(updatedFragments);
            newFragments = List.copyOf(newFragments);
            fieldsModified = fieldsModified.clone();
            fieldsForPreservingFragBitmap = fieldsForPreservingFragBitmap.clone();
            requireNonNull(mode, "mode is null");
            extras = extras.clone();
        }

        /** An update as stored (never {@link #newRowsOnly}). */
        public Update(
                List<Long> removedFragmentIds,
                List<Fragment> updatedFragments,
                List<Fragment> newFragments,
                int[] fieldsModified,
                int[] fieldsForPreservingFragBitmap,
                UpdateMode mode,
                boolean hasInsertedRowsFilter,
                boolean hasCompactedSsTables,
                byte[] extras) {
            this(
                    removedFragmentIds,
                    updatedFragments,
                    newFragments,
                    fieldsModified,
                    fieldsForPreservingFragBitmap,
                    mode,
                    hasInsertedRowsFilter,
                    hasCompactedSsTables,
                    extras,
                    false);
        }

        /** A row-rewriting update (delete + re-insert) as this library writes them. */
        public static Update rewriteRows(
                List<Long> removedFragmentIds,
                List<Fragment> updatedFragments,
                List<Fragment> newFragments,
                int[] fieldsModified) {
            return new Update(
                    removedFragmentIds,
                    updatedFragments,
                    newFragments,
                    fieldsModified,
                    new int[0],
                    UpdateMode.REWRITE_ROWS,
                    false,
                    false,
                    new byte[0]);
        }

        /**
         * Rows moved as Lance's merge-insert (upsert) moves them: deleted from
         * {@code updatedFragments} (new deletion files) or with their whole fragment
         * ({@code removedFragmentIds}), and written again, with their new values, into
         * {@code newFragments}. No column is modified in place, so {@code fields_modified} is
         * empty and indices keep covering the old fragments (their moved rows are hidden by the
         * deletion vectors); the new fragments are not indexed until an index is updated.
         * {@code fields_for_preserving_frag_bitmap} lists every top-level field, as Lance's
         * merge-insert does, since each moved row carries all of them.
         *
         * @param topLevelFieldIds the ids of the schema's top-level fields
         */
        public static Update movedRows(
                List<Long> removedFragmentIds,
                List<Fragment> updatedFragments,
                List<Fragment> newFragments,
                int[] topLevelFieldIds) {
            return new Update(
                    removedFragmentIds,
                    updatedFragments,
                    newFragments,
                    new int[0],
                    topLevelFieldIds,
                    UpdateMode.REWRITE_ROWS,
                    false,
                    false,
                    new byte[0]);
        }

        /**
         * New rows, deleted rows and new cell values in one version, as a Flink sink checkpoint
         * commits them: {@code newFragments} hold new rows (not moved ones, so no field preserves
         * index coverage for them), {@code updatedFragments} carry their merged deletion vectors
         * and their new overlays, staged ({@link DataOverlayFile#isStaged()}), which the commit
         * stamps with its version. Nothing is rewritten in place, so {@code fields_modified} is
         * empty: indices keep their fragments and exclude the overlaid cells by version.
         */
        public static Update rowsAndCells(
                List<Long> removedFragmentIds, List<Fragment> updatedFragments, List<Fragment> newFragments) {
            return new Update(
                    removedFragmentIds,
                    updatedFragments,
                    newFragments,
                    new int[0],
                    new int[0],
                    UpdateMode.REWRITE_ROWS,
                    false,
                    false,
                    new byte[0],
                    true);
        }

        @Override
        public int[] fieldsModified() {
            return fieldsModified.clone();
        }

        @Override
        public int[] fieldsForPreservingFragBitmap() {
            return fieldsForPreservingFragBitmap.clone();
        }

        @Override
        public byte[] extras() {
            return extras.clone();
        }

        /** True when rows moved to new fragments (their addresses changed). */
        public boolean movesRows() {
            return mode == UpdateMode.REWRITE_ROWS && !newFragments.isEmpty();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Update u
                    && removedFragmentIds.equals(u.removedFragmentIds)
                    && updatedFragments.equals(u.updatedFragments)
                    && newFragments.equals(u.newFragments)
                    && Arrays.equals(fieldsModified, u.fieldsModified)
                    && Arrays.equals(fieldsForPreservingFragBitmap, u.fieldsForPreservingFragBitmap)
                    && mode == u.mode
                    && hasInsertedRowsFilter == u.hasInsertedRowsFilter
                    && hasCompactedSsTables == u.hasCompactedSsTables
                    && Arrays.equals(extras, u.extras);
        }

        @Override
        public int hashCode() {
            return removedFragmentIds.hashCode() * 31 + updatedFragments.hashCode();
        }

        @Override
        public String toString() {
            return "Update[mode=" + mode + ", removed=" + removedFragmentIds + ", updated="
                    + updatedFragments.stream().map(Fragment::id).toList() + ", new=" + newFragments.size()
                    + ", fieldsModified=" + Arrays.toString(fieldsModified) + "]";
        }

        @Override
        public String name() {
            return "Update";
        }
    }

    /**
     * Change config, table metadata, schema metadata or field metadata.
     *
     * @param configKeys config keys it upserts or deletes
     * @param tableMetadataKeys table-metadata keys it touches
     * @param touchesSchemaMetadata whether it changes schema or field metadata
     * @param raw the serialized {@code Transaction.UpdateConfig}, carried unchanged
     */
    record UpdateConfig(
            Set<String> configKeys, Set<String> tableMetadataKeys, boolean touchesSchemaMetadata, byte[] raw)
            implements Operation {
        public UpdateConfig {
            configKeys = Set.copyOf(configKeys);
            tableMetadataKeys = Set.copyOf(tableMetadataKeys);
            raw = raw.clone();
        }

        /**
         * Upserts and deletes config and table-metadata keys (e.g. mirroring the last committed
         * Flink checkpoint id into table metadata).
         */
        public static UpdateConfig of(
                Map<String, String> configUpserts,
                Set<String> configDeletes,
                Map<String, String> tableMetadataUpserts,
                Set<String> tableMetadataDeletes) {
            lance.table.Transaction.UpdateConfig.Builder b = lance.table.Transaction.UpdateConfig.newBuilder();
            if (!configUpserts.isEmpty() || !configDeletes.isEmpty()) {
                b.setConfigUpdates(updateMap(configUpserts, configDeletes));
            }
            if (!tableMetadataUpserts.isEmpty() || !tableMetadataDeletes.isEmpty()) {
                b.setTableMetadataUpdates(updateMap(tableMetadataUpserts, tableMetadataDeletes));
            }
            Set<String> configKeys = new HashSet<>(configUpserts.keySet());
            configKeys.addAll(configDeletes);
            Set<String> metaKeys = new HashSet<>(tableMetadataUpserts.keySet());
            metaKeys.addAll(tableMetadataDeletes);
            return new UpdateConfig(configKeys, metaKeys, false, b.build().toByteArray());
        }

        private static lance.table.Transaction.UpdateMap updateMap(Map<String, String> upserts, Set<String> deletes) {
            lance.table.Transaction.UpdateMap.Builder m = lance.table.Transaction.UpdateMap.newBuilder();
            new TreeMap<>(upserts)
                    .forEach((k, v) -> m.addUpdateEntries(lance.table.Transaction.UpdateMapEntry.newBuilder()
                            .setKey(k)
                            .setValue(v)));
            new TreeSet<>(deletes)
                    .forEach(k -> m.addUpdateEntries(
                            lance.table.Transaction.UpdateMapEntry.newBuilder().setKey(k)));
            return m.build();
        }

        @Override
        public byte[] raw() {
            return raw.clone();
        }

        @Override
        public String name() {
            return "UpdateConfig";
        }
    }

    /** One replacement: the file holding some columns of a fragment is swapped. */
    record DataReplacementGroup(long fragmentId, DataFile newFile) {}

    /** Replace the files holding some columns, positionally. */
    record DataReplacement(List<DataReplacementGroup> replacements) implements Operation {
        public DataReplacement {
            replacements = List.copyOf(replacements);
        }

        @Override
        public String name() {
            return "DataReplacement";
        }
    }

    /** Overlays to attach to one fragment (appended in order). */
    record OverlayGroup(long fragmentId, List<DataOverlayFile> overlays) {
        public OverlayGroup {
            overlays = List.copyOf(overlays);
        }
    }

    /** Attach data overlay files; their {@code committedVersion} is stamped at commit. */
    record DataOverlay(List<OverlayGroup> groups) implements Operation {
        public DataOverlay {
            groups = List.copyOf(groups);
        }

        /** Ids of the fragments that receive overlays. */
        public Set<Long> fragmentIds() {
            Set<Long> ids = new HashSet<>();
            for (OverlayGroup g : groups) {
                ids.add(g.fragmentId());
            }
            return ids;
        }

        @Override
        public String name() {
            return "DataOverlay";
        }
    }

    /**
     * MemWAL bookkeeping, carried as its serialized message.
     *
     * @param shardGenerations for each shard (hex uuid), the highest compacted generation recorded
     */
    record UpdateMemWalState(Map<String, Long> shardGenerations, byte[] raw) implements Operation {
        public UpdateMemWalState {
            shardGenerations = Map.copyOf(new LinkedHashMap<>(shardGenerations));
            raw = raw.clone();
        }

        @Override
        public byte[] raw() {
            return raw.clone();
        }

        @Override
        public String name() {
            return "UpdateMemWalState";
        }
    }

    /** First commit of a cloned table, carried as its serialized message. */
    record Clone(boolean isShallow, byte[] raw) implements Operation {
        public Clone {
            raw = raw.clone();
        }

        @Override
        public byte[] raw() {
            return raw.clone();
        }

        @Override
        public String name() {
            return "Clone";
        }
    }

    /** Register new base paths. */
    record UpdateBases(List<BasePath> newBases) implements Operation {
        public UpdateBases {
            newBases = List.copyOf(newBases);
        }

        @Override
        public String name() {
            return "UpdateBases";
        }
    }

    /**
     * An operation of a newer Lance: the {@code Transaction} holds an operation field this reader
     * does not know. The rest of the transaction (uuid, read version, properties) is read, so the
     * table stays readable and its history listable; anything that must know what the operation
     * did (a conflict check, a walk of the history) refuses it with {@link #refusal}.
     *
     * @param fieldNumber the protobuf field number of the operation in {@code Transaction}
     */
    record Unknown(int fieldNumber) implements Operation {
        @Override
        public String name() {
            return "unknown operation (Transaction field " + fieldNumber + ")";
        }

        /**
         * Why {@code what} cannot go on, naming the version: "version 5 of s3://b/t was written by
         * a newer Lance (...); <what> ...; upgrade ...".
         *
         * @param what what needed the operation, e.g. "this commit cannot be checked for conflicts
         *     against it"
         */
        public String refusal(long version, String tableUri, String what) {
            return "version " + version + " of " + tableUri + " was written by a newer Lance (operation field "
                    + fieldNumber + " of its transaction, unknown to this reader), so " + what + "; upgrade"
                    + " lance-flink to a release that knows this operation (reading the table needs no upgrade)";
        }
    }
}
