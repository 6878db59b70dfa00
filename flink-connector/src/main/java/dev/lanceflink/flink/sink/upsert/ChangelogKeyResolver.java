package dev.lanceflink.flink.sink.upsert;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.committer.core.MovedRows;
import dev.lanceflink.committer.core.PendingFiles;
import dev.lanceflink.committer.core.RewriteLog;
import dev.lanceflink.committer.core.TableLocation;
import dev.lanceflink.committer.flink.SinkStoppedException;
import dev.lanceflink.flink.sink.KeyMapMode;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.schema.ColumnSet;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.ManifestIO;
import dev.lanceflink.table.VersionResolver;
import dev.lanceflink.txn.TableHistory;
import java.io.IOException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.heap.HeapKeyedStateBackend;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.sorted.state.BatchExecutionKeyedStateBackend;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The keyed half of the upsert sink: turns a changelog stream keyed by the primary key into
 * {@link LocatedChange}s for the writers, using a key → row location map in Flink keyed state
 * (so it scales with the state backend, RocksDB included).
 *
 * <p>Records are not forwarded as they arrive. Each key's records of a checkpoint are folded, in
 * arrival order, into one net change ({@link KeyedChange}): insert then delete leaves nothing,
 * delete then insert leaves a deletion plus a new row, an update of a row inserted in the same
 * checkpoint changes the new row, an update after a delete inserts a new row instead of reviving
 * the deleted one. At the checkpoint barrier (and at the end of a bounded input) the net changes
 * are emitted, new rows get their location — the next offset of a new data file whose random id
 * this resolver chose — and the map is updated. The writer that receives them (same parallelism,
 * forward-connected) writes the rows at exactly those offsets, so the map is right before the
 * files even exist; the committer later maps file ids to fragment ids (see
 * {@code PendingFiles}).
 *
 * <p>On the very first start (no restored state) the map is bootstrapped from the table: every
 * subtask scans the key columns and keeps the keys of its own key groups. Rows that another
 * writer deleted since are noticed when their key is next updated: the update is dropped (the row
 * stays deleted) and the key is free for a new row.
 *
 * <p>Fragment compactions ({@code Rewrite}s) move rows under the map. At every checkpoint barrier
 * the resolver reads the versions committed since the previous one and keeps each compaction's
 * moves in a {@link RewriteLog} (union operator state, so it survives restores and rescaling);
 * a key's location is brought up to date when the key next changes and written back. So no
 * commit depends on a compaction's version still being in the history once the resolver has seen
 * it; the committer still follows moves from the history for a compaction that lands between a
 * barrier and its commit. State written before the log existed restores with the compactions the
 * history still shows.
 *
 * <p>In update mode rewrite-rows an update of an existing row is a delete plus an insert: the
 * resolver gives the updated row a new location like a new key's row, emits a
 * {@link LocatedChange.Kind#MOVE} from the old location, and points the key map at the new one.
 * The move carries all written columns; when those are not all of the table's, the writer fills
 * in the others from the old row.
 *
 * <p>With {@link KeyMapMode#IN_MEMORY} ({@code 'sink.key-map' = 'in-memory'}) a streaming job keeps
 * the map on the heap too ({@link KeyLocations}, no keyed state): {@link #open} always builds it
 * from the latest version of the table, then replays the restored {@link UncommittedKeyChanges}
 * (union operator state {@value #KEY_DELTA_STATE}: the inserts, deletes and moves of checkpoints
 * the table does not show committed yet) over it. So a checkpoint holds only those changes, not
 * the map, and the restore needs no ordering with the committer's re-commit of the restored
 * checkpoint (design {@code docs/design/upsert-key-map.md}, §3(b)). It is the default. Restored
 * from state written with {@link KeyMapMode#KEYED_STATE}, it migrates: the restored keyed map is
 * the map's base, loaded without a scan (it has no tombstones for the keys its pending checkpoint
 * deleted), until a later checkpoint shows committed ({@link #keyedBase}). Before building the map
 * it checks its estimated size against its budget ({@link #keyMapMaxMemory}).
 *
 * <p>In BATCH execution Flink's keyed state keeps only the current key, so the map lives in a
 * {@link KeyLocationIndex} on the heap instead; and since records then arrive grouped by key, each
 * key's net change is emitted as soon as the next key starts, so memory does not grow with the
 * input.
 */
public final class ChangelogKeyResolver extends AbstractStreamOperator<LocatedChange>
        implements OneInputStreamOperator<RowData, LocatedChange>, BoundedOneInput {
    private static final long serialVersionUID = 1L;
    /** Its own logger, not the inherited one of Flink's operator base class: users configure {@code dev.lanceflink}. */
    private static final Logger LOG = LoggerFactory.getLogger(ChangelogKeyResolver.class);
    /** Keys per subtask from which a key map on heap state is worth a warning (checkpoints of ~40 MB). */
    private static final long LARGE_HEAP_KEY_MAP = 1_000_000;
    /** Operator state name of the {@link RewriteLog}. */
    static final String REWRITE_LOG_STATE = "lance-rewrite-log";
    /** Keyed state name of the map in {@link KeyMapMode#KEYED_STATE}. */
    static final String ROW_LOCATION_STATE = "lance-row-location";
    /** Union operator state name of the {@link UncommittedKeyChanges} in {@link KeyMapMode#IN_MEMORY}. */
    static final String KEY_DELTA_STATE = "lance-key-delta";
    /**
     * Union operator state naming the key map mode that wrote the state, so that the other mode
     * refuses it (an in-memory delta may be empty, and an empty keyed map is no evidence either).
     */
    static final String KEY_MAP_MODE_STATE = "lance-key-map-mode";
    /**
     * Also in {@value #KEY_MAP_MODE_STATE}, from an in-memory subtask whose map still rests on a
     * restored keyed-state map ({@link #keyedBase}): a restore keeps that base (of every subtask,
     * also if its own keyed map is empty).
     */
    static final String KEYED_BASE_MARKER = "in-memory:keyed-base";
    /**
     * Also in {@value #KEY_MAP_MODE_STATE}, from an in-memory subtask that has seen the keyed base's
     * checkpoint committed (by a later checkpoint of its own in the table) and dropped its base.
     * The evidence is the table's, so it holds for every subtask: after a restore, rescaled or not,
     * none keeps a base (their keyed entries are cleared), even where the subtask that owned those
     * key groups had not seen the evidence itself.
     */
    static final String KEYED_BASE_DONE_MARKER = "in-memory:keyed-base-done";
    /**
     * How many versions back a key map restored from state without a rewrite log (written before
     * the log existed) looks for compactions its locations may predate: as far as the committer's
     * history walk goes.
     */
    private static final long MIGRATION_HISTORY = 1000;
    /** See {@link #sweep}: with in-job compaction every few seconds, a pass over the keys every minute or so. */
    static final int SWEEP_AFTER_REWRITES = 16;
    /**
     * A sweep waits at least this many times the last one's duration after it ended, so sweeping
     * takes at most about 1% of the task's time: a pass over every key of a large keyed-state map
     * (RocksDB) takes seconds per million keys, during which the subtask processes nothing, and
     * the maintenance benchmark saw the sink stall for 30 s every 1.5 minutes at 7M keys a subtask
     * when it swept every 16 compactions.
     */
    static final int SWEEP_DUTY_FACTOR = 100;
    /** With this many Rewrites in the log a barrier sweeps whatever the last sweep cost. */
    static final int SWEEP_ALWAYS_AFTER_REWRITES = 1024;

    private final TableLocation table;
    private final RowType rowType;
    private final int[] keyPositions;
    private final ColumnSet writtenColumns;
    private final boolean sparse;
    private final long rowsPerFile;
    private final boolean rewriteRows;
    private final KeyMapMode keyMap;
    /** Budget of the in-memory map per subtask in bytes, 0 for {@link #defaultKeyMapBudget}. */
    private long keyMapMaxBytes;

    private transient ValueState<long[]> locations;
    /**
     * The map on the heap: in BATCH execution (where keyed state holds the current key only) and
     * in streaming with {@link KeyMapMode#IN_MEMORY}; null with keyed state.
     */
    private transient KeyLocations heapLocations;
    /** The data files {@link #heapLocations}' pending locations name. */
    private transient PendingFileTable heapPendingFiles;
    /** BATCH execution: records arrive grouped by key, the map is never checkpointed. */
    private transient boolean batch;
    /** {@link KeyMapMode#IN_MEMORY} in streaming: the changes not yet shown committed; else null. */
    private transient UncommittedKeyChanges delta;

    private transient ListState<byte[]> deltaState;
    private transient ListState<String> keyMapModeState;
    /** The restored {@link #deltaState} entries, read into {@link #delta} in {@link #open}. */
    private transient List<byte[]> restoredDelta;
    /** Whether the restored state holds keyed map entries (v1 layout, or {@link KeyMapMode#KEYED_STATE}). */
    private transient boolean restoredKeyedEntries;
    /**
     * In memory: the restored state was written in {@link KeyMapMode#KEYED_STATE} (or is a
     * migration from it still under way), so its keyed map is the authoritative base of the map.
     */
    private transient boolean restoredKeyedMap;
    /**
     * In memory, migrating from {@link KeyMapMode#KEYED_STATE} state (design §4, "v1 migration"):
     * the restored keyed map entries, left untouched in keyed state, are the authoritative segment
     * under {@link #delta} until a segment of {@link #delta} — a checkpoint newer than the keyed
     * map's — shows committed in the table. Until then a restore loads them plus every segment of
     * the delta, with no scan: the keyed map has no tombstones, so a scan taken before its
     * checkpoint's commit lands would revive the keys that checkpoint deleted.
     */
    private transient boolean keyedBase;
    /** In memory: the keyed base is known obsolete ({@link #KEYED_BASE_DONE_MARKER}). */
    private transient boolean keyedBaseDone;
    /** The modes named by the restored {@link #keyMapModeState}. */
    private transient Set<String> restoredModes;

    private transient DeletedRowCheck batchDeletedRows;
    private transient Map<RowData, KeyedChange> pending;
    private transient RowDataSerializer rowSerializer;
    private transient RowData.FieldGetter[] getters;
    private transient boolean[] notNull;
    private transient ColumnSet keyColumns;
    /** The written columns and the key columns: what a new key's row takes from its record. */
    private transient ColumnSet newRowColumns;
    /** The written columns but the key columns: the cells an update of an existing row may change. */
    private transient ColumnSet updatableColumns;
    /** Every column of the table. */
    private transient ColumnSet allColumns;

    private transient Random random;
    private transient long currentFileId;
    private transient long currentFileRows;
    private transient boolean bootstrap;
    private transient Counter inserts;
    private transient Counter updates;
    private transient Counter deletes;
    private transient Counter droppedUpdates;
    private transient Counter relocated;
    /** How long this subtask's bootstrap of the key map took (0 when restored): what delays its first record. */
    private transient volatile long bootstrapMillis;

    private transient ObjectStore store;
    /** Where compactions moved rows, learned once for the operator's life. */
    private transient MovedRows movedRows;

    private transient TableHistory history;
    /**
     * The moves of the compactions seen since the key map's locations were taken, kept in (union)
     * operator state so that a location is brought up to date when its key is next changed, even
     * after the compaction's version is cleaned up from the table's history.
     */
    private transient RewriteLog rewriteLog;

    private transient ListState<byte[]> rewriteLogState;
    /** In memory: the latest version read at each barrier whose segment is not yet shown committed. */
    private transient TreeMap<Long, Long> barrierVersions;
    /** Rewrites in the log from which a barrier sweeps the key map ({@link #sweep}). */
    private int sweepAfterRewrites = SWEEP_AFTER_REWRITES;
    /** {@link #SWEEP_DUTY_FACTOR}, or 0 in tests that sweep at every barrier. */
    private int sweepDutyFactor = SWEEP_DUTY_FACTOR;
    /** When the last sweep ended and what it took (System.nanoTime), 0 before the first. */
    private transient long lastSweepEndNanos;

    private transient long lastSweepNanos;
    /** Whether the latest version was read (and the compactions learned) since the last barrier. */
    private transient boolean tableRead;

    /**
     * @param rowType the table's row type (the records' layout)
     * @param keyPositions primary key column positions
     * @param writtenColumns the columns the records carry (others are left alone on update, NULL on
     *     insert)
     * @param sparse overlay only the cells that changed when a before-image (UPDATE_BEFORE) is known
     * @param rowsPerFile rows per new data file
     * @param rewriteRows updates move the row (delete + insert) instead of overlaying cells
     */
    public ChangelogKeyResolver(
            TableLocation table,
            RowType rowType,
            int[] keyPositions,
            ColumnSet writtenColumns,
            boolean sparse,
            long rowsPerFile,
            boolean rewriteRows) {
        this(table, rowType, keyPositions, writtenColumns, sparse, rowsPerFile, rewriteRows, KeyMapMode.KEYED_STATE);
    }

    /**
     * @param keyMap where a streaming job keeps the key map ({@code 'sink.key-map'})
     */
    public ChangelogKeyResolver(
            TableLocation table,
            RowType rowType,
            int[] keyPositions,
            ColumnSet writtenColumns,
            boolean sparse,
            long rowsPerFile,
            boolean rewriteRows,
            KeyMapMode keyMap) {
        this.keyMap = requireNonNull(keyMap, "keyMap is null");
        this.table = requireNonNull(table, "table is null");
        this.rowType = requireNonNull(rowType, "rowType is null");
        this.keyPositions = keyPositions.clone();
        this.writtenColumns = requireNonNull(writtenColumns, "writtenColumns is null");
        this.sparse = sparse;
        this.rowsPerFile = rowsPerFile;
        this.rewriteRows = rewriteRows;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        batch = getKeyedStateBackend() instanceof BatchExecutionKeyedStateBackend;
        boolean inMemory = keyMap == KeyMapMode.IN_MEMORY && !batch;
        if (!inMemory || context.isRestored()) {
            // In memory, registered only to see whether restored state holds keyed map entries.
            locations = context.getKeyedStateStore()
                    .getState(new ValueStateDescriptor<>(
                            ROW_LOCATION_STATE, PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO));
        }
        keyMapModeState = context.getOperatorStateStore()
                .getUnionListState(new ListStateDescriptor<>(KEY_MAP_MODE_STATE, Types.STRING));
        if (inMemory) {
            deltaState = context.getOperatorStateStore()
                    .getUnionListState(new ListStateDescriptor<>(
                            KEY_DELTA_STATE, PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
        }
        if (context.isRestored()) {
            restoredModes = new HashSet<>();
            keyMapModeState.get().forEach(restoredModes::add);
            if (inMemory) {
                restoredDelta = new ArrayList<>();
                deltaState.get().forEach(restoredDelta::add);
                try (Stream<Object> keys = getKeyedStateBackend().getKeys(ROW_LOCATION_STATE, VoidNamespace.INSTANCE)) {
                    restoredKeyedEntries = keys.findAny().isPresent();
                }
                // Keyed-state mode always writes its marker, so an empty keyed map is caught too
                // (its pending checkpoint may have deleted every key).
                keyedBaseDone = restoredModes.contains(KEYED_BASE_DONE_MARKER);
                restoredKeyedMap = !keyedBaseDone
                        && (restoredKeyedEntries
                                || restoredModes.contains(KeyMapMode.KEYED_STATE.optionValue())
                                || restoredModes.contains(KEYED_BASE_MARKER));
            }
        }
        bootstrap = !context.isRestored() || (inMemory && !restoredKeyedMap);
        // Union: after a rescale every subtask holds keys that others located, so each gets every
        // subtask's log (the same table history: RewriteLog.restore merges them).
        rewriteLogState = context.getOperatorStateStore()
                .getUnionListState(new ListStateDescriptor<>(
                        REWRITE_LOG_STATE, PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
        if (context.isRestored()) {
            rewriteLog = RewriteLog.restore(rewriteLogState.get()).orElse(null);
        }
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        if (rewriteLog != null) {
            rewriteLogState.update(rewriteLog.snapshot());
        }
        if (!batch) {
            List<String> modes = new ArrayList<>(List.of(keyMap.optionValue()));
            if (keyedBase) {
                modes.add(KEYED_BASE_MARKER);
            }
            if (keyedBaseDone) {
                modes.add(KEYED_BASE_DONE_MARKER);
            }
            keyMapModeState.update(modes);
        }
        if (delta != null) {
            delta.seal(context.getCheckpointId());
            deltaState.update(delta.snapshot());
        }
    }

    @Override
    public void open() throws Exception {
        super.open();
        pending = new LinkedHashMap<>();
        barrierVersions = new TreeMap<>();
        rowSerializer = new RowDataSerializer(rowType);
        int n = rowType.getFieldCount();
        getters = new RowData.FieldGetter[n];
        notNull = new boolean[n];
        for (int i = 0; i < n; i++) {
            getters[i] = RowData.createFieldGetter(rowType.getTypeAt(i), i);
            notNull[i] = !rowType.getTypeAt(i).isNullable();
        }
        keyColumns = ColumnSet.of(keyPositions);
        newRowColumns = writtenColumns.union(keyColumns);
        updatableColumns = writtenColumns.minus(keyColumns);
        allColumns = ColumnSet.firstColumns(n);
        random = new SecureRandom();
        var group = getMetricGroup().addGroup("lance");
        inserts = group.counter("resolvedInserts");
        updates = group.counter("resolvedUpdates");
        deletes = group.counter("resolvedDeletes");
        droppedUpdates = group.counter("updatesOfRowsDeletedElsewhere");
        relocated = group.counter("locationsMovedByCompaction");
        group.gauge("keyMapBootstrapMillis", (Gauge<Long>) () -> bootstrapMillis);
        checkRestoredMode();
        store = table.open();
        history = new TableHistory(store);
        movedRows = new MovedRows(history);
        if (rewriteLog == null) {
            long latest = history.latestVersion();
            // A bootstrapped map's locations are taken at the latest version or later; a map
            // restored from state written before the log existed may predate any compaction the
            // history still shows, so those are learned now, while they are still there.
            rewriteLog = new RewriteLog(bootstrap ? latest : Math.max(0, latest - MIGRATION_HISTORY));
            if (!bootstrap) {
                int learned = rewriteLog.learn(history, latest);
                LOG.info(
                        "Lance upsert sink for {}: restored key map without a rewrite log; learned {} compactions"
                                + " from the table's history up to version {}",
                        table,
                        learned,
                        latest);
            }
        }
        group.gauge("rewriteLogFragments", (Gauge<Integer>) () -> rewriteLog.movedFragments());
        Manifest pinned = null;
        if (batch) {
            heapLocations = new KeyLocationIndex(keyPositions.length);
            heapPendingFiles = new PendingFileTable();
        } else if (keyMap == KeyMapMode.IN_MEMORY) {
            // The scan and the replay of the restored delta are against one version.
            pinned = ManifestIO.read(store, VersionResolver.latest(store));
            RowType keyType = PrimaryKeySelector.keyType(rowType, keyPositions);
            long expectedKeys = expectedOwnKeys(pinned);
            checkKeyMapBudget(keyType, expectedKeys, pinned);
            heapLocations = KeyLocations.forKey(keyType, expectedKeys);
            heapPendingFiles = new PendingFileTable();
            delta = restoredDelta == null
                    ? new UncommittedKeyChanges()
                    : UncommittedKeyChanges.restore(
                            restoredDelta,
                            ownKeyGroups(),
                            getRuntimeContext().getTaskInfo().getMaxNumberOfParallelSubtasks());
            restoredDelta = null;
            if (keyedBaseDone && restoredKeyedEntries) {
                // Another subtask saw the base obsolete before the rescale or failure.
                dropKeyedBase("another subtask had seen a later checkpoint committed");
            } else if (restoredKeyedMap) {
                learn(pinned.version()); // what the delta's files became, for its evidence
                if (delta.provesCommitted(pinned, rewriteLog)) {
                    // A checkpoint newer than the keyed map's is committed, so that one is too: the
                    // table is the base now, as for any in-memory restore.
                    dropKeyedBase("the table shows a later checkpoint committed");
                    bootstrap = true;
                } else {
                    loadKeyedBase(pinned);
                }
            }
        }
        if (bootstrap) {
            long started = System.nanoTime();
            long loaded = KeyMapBootstrap.load(
                    table,
                    rowType,
                    keyPositions,
                    bootstrapTarget(),
                    getRuntimeContext().getTaskInfo(),
                    ownKeyGroups(),
                    heapLocations == null && !(getKeyedStateBackend() instanceof HeapKeyedStateBackend),
                    pinned == null ? -1 : pinned.version());
            int replayed = 0;
            if (delta != null) {
                // The restored delta's files may have been compacted since: known by then.
                learn(pinned.version());
                DeletedRowCheck deletedAtPinned = DeletedRowCheck.of(store, pinned, movedRows);
                // Pruned first: what the pinned version shows committed is left to the scan
                // anyway, and an Overwrite since the checkpoint drops every segment before any
                // is replayed.
                delta.prune(pinned, rewriteLog, deletedAtPinned);
                replayed = delta.segments();
                delta.applyTo(heapLocations, heapPendingFiles, pinned, rewriteLog, deletedAtPinned);
                heapPendingFiles.resolve(PendingFiles.index(pinned));
                heapPendingFiles.compact(heapLocations);
            }
            bootstrapMillis = Math.max(1, (System.nanoTime() - started) / 1_000_000);
            if (delta != null) {
                LOG.info(
                        "Lance upsert sink for {}: in-memory key map of subtask {} built from version {} with {}"
                                + " uncommitted checkpoint segments replayed ({} keys, about {} bytes)",
                        table,
                        getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(),
                        pinned.version(),
                        replayed,
                        heapLocations.size(),
                        heapLocations.heapBytes());
            }
            LOG.info(
                    "Lance upsert sink for {}: key map of subtask {} bootstrapped with {} keys in {} ms",
                    table,
                    getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(),
                    loaded,
                    bootstrapMillis);
            if (loaded >= LARGE_HEAP_KEY_MAP
                    && heapLocations == null
                    && getKeyedStateBackend() instanceof HeapKeyedStateBackend) {
                // Heap keyed state has no incremental checkpoints: each one writes the whole map.
                LOG.warn(
                        "Lance upsert sink for {}: the key map ({} keys in subtask {}) is on heap state, which"
                                + " writes all of it at every checkpoint; for large tables use RocksDB with incremental"
                                + " checkpoints (state.backend.type: rocksdb, execution.checkpointing.incremental: true)",
                        table,
                        loaded,
                        getRuntimeContext().getTaskInfo().getIndexOfThisSubtask());
            }
        }
    }

    /**
     * Loads the restored keyed map into the heap map as its authoritative base and replays every
     * restored delta segment over it (no scan): the map is then exactly the keyed-state map as of
     * the restored checkpoint, whether or not that checkpoint's commit has landed. The keyed
     * entries stay in keyed state, untouched, until {@link #dropKeyedBase}.
     */
    private void loadKeyedBase(Manifest pinned) throws Exception {
        long started = System.nanoTime();
        long[] loaded = {0};
        getKeyedStateBackend()
                .applyToAllKeys(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        new ValueStateDescriptor<>(
                                ROW_LOCATION_STATE, PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO),
                        (key, state) -> {
                            long[] location = state.value();
                            if (location != null) {
                                BinaryRowData k = (BinaryRowData) key;
                                heapLocations.put(k, heapHash(k), heapPendingFiles.pack(location));
                                loaded[0]++;
                            }
                        });
        int replayed = delta.segments();
        delta.applyAll(heapLocations, heapPendingFiles);
        heapPendingFiles.resolve(PendingFiles.index(pinned));
        heapPendingFiles.compact(heapLocations);
        keyedBase = true;
        bootstrapMillis = Math.max(1, (System.nanoTime() - started) / 1_000_000);
        LOG.info(
                "Lance upsert sink for {}: subtask {} restored state written with 'sink.key-map' = '{}' and runs"
                        + " with '{}': its {} keyed map entries and {} later checkpoint segments are the in-memory map"
                        + " ({} keys, no scan of the table) in {} ms; the keyed entries stay in state until the table"
                        + " shows a later checkpoint of this sink committed, then the map is rebuilt from the table"
                        + " on restores",
                table,
                getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(),
                KeyMapMode.KEYED_STATE.optionValue(),
                KeyMapMode.IN_MEMORY.optionValue(),
                loaded[0],
                replayed,
                heapLocations.size(),
                bootstrapMillis);
    }

    /** Clears the keyed map that was the in-memory map's base: a restore scans the table from now on. */
    private void dropKeyedBase(String why) throws Exception {
        long[] cleared = {0};
        getKeyedStateBackend()
                .applyToAllKeys(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        new ValueStateDescriptor<>(
                                ROW_LOCATION_STATE, PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO),
                        (key, state) -> {
                            state.clear();
                            cleared[0]++;
                        });
        keyedBase = false;
        keyedBaseDone = true;
        LOG.info(
                "Lance upsert sink for {}: subtask {} finished the migration from 'sink.key-map' = '{}' ({}):"
                        + " {} keyed map entries cleared from state",
                table,
                getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(),
                KeyMapMode.KEYED_STATE.optionValue(),
                why,
                cleared[0]);
    }

    /**
     * Refuses to build an in-memory map of {@code expectedKeys} keys that would not fit its budget
     * ({@link #keyMapMaxMemory}), naming keyed state on RocksDB instead: better than an
     * OutOfMemoryError later, which a restart would only repeat.
     */
    private void checkKeyMapBudget(RowType keyType, long expectedKeys, Manifest pinned) throws SinkStoppedException {
        long budget = keyMapMaxBytes > 0 ? keyMapMaxBytes : defaultKeyMapBudget();
        long perKey = KeyLocations.estimatedBytesPerKey(keyType);
        long needed = expectedKeys * perKey;
        if (needed > budget) {
            throw new SinkStoppedException("The in-memory key map of the upsert sink for " + table + " would need"
                    + " about " + mb(needed) + " in subtask "
                    + getRuntimeContext().getTaskInfo().getIndexOfThisSubtask()
                    + " (about " + expectedKeys + " keys of the table's version " + pinned.version() + ", "
                    + perKey + " bytes each), more than its budget of " + mb(budget) + " ('sink.key-map.max-memory'"
                    + (keyMapMaxBytes > 0 ? "" : ", by default a quarter of the JVM's maximum heap") + "): use"
                    + " 'sink.key-map' = 'keyed-state' (KeyMapMode.KEYED_STATE in the DataStream builder) with the"
                    + " RocksDB state backend (state.backend.type: rocksdb, execution.checkpointing.incremental:"
                    + " true), or raise 'sink.key-map.max-memory'");
        }
    }

    /** The in-memory map's budget per subtask when none is set: a quarter of the JVM's maximum heap. */
    static long defaultKeyMapBudget() {
        return Runtime.getRuntime().maxMemory() / 4;
    }

    private static String mb(long bytes) {
        return bytes < 1 << 20 ? bytes + " bytes" : (bytes + (1 << 19)) / (1 << 20) + " MB";
    }

    /**
     * The most heap the in-memory key map ({@link KeyMapMode#IN_MEMORY}) of one subtask may take,
     * by the estimate made before it is built (the table's rows at the start, this subtask's share,
     * times the bytes per key of the key's type); a larger map stops the job, naming keyed state
     * with RocksDB. 0 (the default): a quarter of the JVM's maximum heap.
     */
    public ChangelogKeyResolver keyMapMaxMemory(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("the key map's memory budget must not be negative, got " + bytes);
        }
        this.keyMapMaxBytes = bytes;
        return this;
    }

    /**
     * About how many of {@code manifest}'s rows this subtask keeps (key groups spread keys
     * evenly), with some room: the in-memory map is sized for them before the scan.
     */
    private long expectedOwnKeys(Manifest manifest) {
        long rows = 0;
        for (Fragment f : manifest.fragments()) {
            rows += f.liveRows();
        }
        return rows / getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks() * 11 / 10;
    }

    private KeyGroupRange ownKeyGroups() {
        return KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
                getRuntimeContext().getTaskInfo().getMaxNumberOfParallelSubtasks(),
                getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks(),
                getRuntimeContext().getTaskInfo().getIndexOfThisSubtask());
    }

    /**
     * Refuses an in-memory delta restored into a keyed-state resolver (which would start from an
     * empty map and append every key again). No restart cures it (each restores the same state),
     * so the job stops. The other way round is a migration: an in-memory resolver takes the
     * restored keyed map as its authoritative base ({@link #keyedBase}).
     */
    private void checkRestoredMode() throws SinkStoppedException {
        if (restoredModes == null || batch || keyMap == KeyMapMode.IN_MEMORY) {
            return;
        }
        String mode = keyMap.optionValue();
        String other = KeyMapMode.IN_MEMORY.optionValue();
        if (restoredModes.contains(other)) {
            throw new SinkStoppedException("The upsert sink for " + table + " is restored from state written with"
                    + " 'sink.key-map' = '" + other + "', but runs with 'sink.key-map' = '" + mode + "'; the"
                    + " key map's state does not carry over between the two modes: restore with 'sink.key-map' = '"
                    + other + "' (KeyMapMode." + KeyMapMode.ofOptionValue(other).orElseThrow() + " in the DataStream"
                    + " builder), or start the job without state");
        }
    }

    private KeyMapBootstrap.Locations bootstrapTarget() {
        if (heapLocations instanceof LongKeyLocationMap longMap) {
            return new LongHeapTarget(longMap);
        }
        if (heapLocations != null) {
            return new HeapTarget();
        }
        return new KeyMapBootstrap.Locations() {
            @Override
            public long[] get(RowData key) throws Exception {
                setCurrentKey(key);
                return locations.value();
            }

            @Override
            public void put(RowData key, long[] location) throws Exception {
                setCurrentKey(key);
                locations.update(location);
            }
        };
    }

    @Override
    public void processElement(StreamRecord<RowData> element) throws Exception {
        RowData record = element.getValue();
        RowData key = (RowData) getCurrentKey();
        KeyedChange c = pending.get(key);
        if (c == null) {
            if (batch && !pending.isEmpty()) {
                emitPending(); // BATCH: input sorted by key, so the previous key's change is final
            }
            long[] loc = heapLocations != null ? heapLocation((BinaryRowData) key) : locations.value();
            c = new KeyedChange(loc == null ? null : loc.clone());
            pending.put(key, c);
        }
        switch (record.getRowKind()) {
            case INSERT, UPDATE_AFTER -> upsert(c, record);
            case UPDATE_BEFORE -> {
                if (c.state == KeyedChange.State.EXISTING && sparse) {
                    c.before = rowSerializer.copy(record);
                }
            }
            case DELETE -> delete(c);
        }
    }

    private void upsert(KeyedChange c, RowData record) {
        checkNotNull(record);
        switch (c.state) {
            case NEW -> c.row = merge(c.row, record, writtenColumns);
            case ABSENT -> {
                c.state = KeyedChange.State.NEW;
                c.row = merge(null, record, newRowColumns);
            }
            case EXISTING -> {
                ColumnSet cells = updatableColumns;
                if (c.before != null) {
                    cells = changedColumns(c.before, record, cells);
                    c.before = null;
                }
                if (!cells.isEmpty()) {
                    // A rewritten row is written whole: it takes every written column of the
                    // latest record that changed something, not just the changed cells.
                    c.row = merge(c.row, record, rewriteRows ? writtenColumns : cells);
                    c.columns = c.columns.union(cells);
                }
            }
        }
    }

    private void delete(KeyedChange c) {
        if (c.state == KeyedChange.State.EXISTING) {
            c.deleteOriginal = true;
        }
        c.state = KeyedChange.State.ABSENT;
        c.row = null;
        c.columns = ColumnSet.EMPTY;
        c.before = null;
    }

    /** A NULL in a written NOT NULL column is refused with the column's name, before anything is kept. */
    private void checkNotNull(RowData record) {
        if (record.getArity() != getters.length) {
            throw new IllegalArgumentException("A record for " + table + " has " + record.getArity()
                    + " fields, but the"
                    + " table has " + getters.length + " columns " + rowType.getFieldNames() + "; write exactly the"
                    + " table's columns, in its order");
        }
        for (int i = 0; i < getters.length; i++) {
            if (notNull[i] && record.isNullAt(i) && writtenColumns.contains(i)) {
                throw new IllegalArgumentException(
                        "Column '" + rowType.getFieldNames().get(i) + "' of " + table
                                + " is NOT NULL, but a record (" + record.getRowKind() + ") has NULL in it (field " + i
                                + "); filter or fill such records before the sink");
            }
        }
    }

    /** {@code base} (or NULLs) with the {@code columns} of {@code record}. */
    private RowData merge(RowData base, RowData record, ColumnSet columns) {
        if (base == null && (columns.containsAll(allColumns) || onlyCarries(record, columns))) {
            // The same cells as the merge below, in one copy of the record's bytes (a binary row
            // off the shuffle): a cell update of (id, age) built a row object, a field array and
            // a binary row through the type-generic writer per record before.
            return rowSerializer.copy(record);
        }
        GenericRowData out = new GenericRowData(record.getRowKind(), getters.length);
        for (int i = 0; i < getters.length; i++) {
            RowData from = columns.contains(i) ? record : base;
            out.setField(i, from == null ? null : getters[i].getFieldOrNull(from));
        }
        // Copy through the serializer: the record's fields may be reused by the source.
        return rowSerializer.toBinaryRow(out).copy();
    }

    /**
     * Whether {@code record} is a binary row with NULL in every column outside {@code columns}
     * (records of a sink that declares some of the table's columns are laid out whole, NULL in
     * the others): a copy of it is then the merge of its {@code columns} into NULLs.
     */
    private boolean onlyCarries(RowData record, ColumnSet columns) {
        if (!(record instanceof BinaryRowData)) {
            return false;
        }
        for (int i = 0; i < getters.length; i++) {
            if (!columns.contains(i) && !record.isNullAt(i)) {
                return false;
            }
        }
        return true;
    }

    private ColumnSet changedColumns(RowData before, RowData after, ColumnSet candidates) {
        ColumnSet.Builder changed = ColumnSet.builder();
        for (int i = candidates.first(); i >= 0; i = candidates.next(i + 1)) {
            if (!sameValue(getters[i].getFieldOrNull(before), getters[i].getFieldOrNull(after))) {
                changed.add(i);
            }
        }
        ColumnSet out = changed.build();
        return out.equals(candidates) ? candidates : out; // shared: the writer buffers one per update
    }

    private static boolean sameValue(Object a, Object b) {
        if (a == null || b == null) {
            return a == b;
        }
        if (a instanceof byte[] x && b instanceof byte[] y) {
            return Arrays.equals(x, y);
        }
        if (a instanceof ArrayData || a instanceof RowData) {
            return false; // no cheap, reliable equality: treat as changed
        }
        return a.equals(b);
    }

    /** For tests: the Rewrites the log holds. */
    int rewritesLogged() {
        return rewriteLog.rewrites();
    }

    /** For tests: sweep the key map from {@code rewrites} Rewrites in the log on (default {@value #SWEEP_AFTER_REWRITES}). */
    ChangelogKeyResolver sweepingAfter(int rewrites) {
        this.sweepAfterRewrites = rewrites;
        this.sweepDutyFactor = 0;
        return this;
    }

    /** For tests: wait {@code factor} times the last sweep's duration before the next one. */
    ChangelogKeyResolver sweepDutyFactor(int factor) {
        this.sweepDutyFactor = factor;
        return this;
    }

    /**
     * Whether this barrier sweeps: enough Rewrites in the log, and the last sweep long enough ago
     * for its cost (or the log at its hard limit).
     */
    private boolean sweepDue() {
        int rewrites = rewriteLog.rewrites();
        if (rewrites >= SWEEP_ALWAYS_AFTER_REWRITES) {
            return true;
        }
        return rewrites >= sweepAfterRewrites
                && (lastSweepEndNanos == 0
                        || System.nanoTime() - lastSweepEndNanos >= sweepDutyFactor * lastSweepNanos);
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        tableRead = false;
        DeletedRowCheck read = emitPending();
        Manifest latest = read != null ? read.manifest() : null;
        if (delta != null) {
            // The latest version is read at every barrier anyway (with learn): it drops the
            // segments it shows committed, and turns the map's locations in committed files into
            // row addresses (no packed location is held outside the map after emitPending).
            latest = latest != null ? latest : tableNow().manifest();
            if (keyedBase && delta.provesCommitted(latest, rewriteLog)) {
                dropKeyedBase("the table shows a later checkpoint committed");
            }
            pruneDelta(latest);
            barrierVersions.put(checkpointId, latest.version());
        } else if (!tableRead) {
            // No change needed the table this time: the compactions are learned anyway, at every
            // checkpoint, so that one is known (and kept in state) while its version is surely
            // still in the history, not only when some key of it next changes.
            learn(history.latestVersion());
        }
        if (!batch && sweepDue()) {
            if (latest == null) {
                latest = ManifestIO.read(store, VersionResolver.latest(store));
                learn(latest.version()); // the log must know every Rewrite up to the version swept against
            }
            sweep(latest, checkpointId);
        }
    }

    /**
     * Makes every location of the key map current against {@code latest} and drops the Rewrites
     * the log then no longer needs ({@link RewriteLog#dropThrough}): the log is written at every
     * checkpoint and would otherwise grow with every compaction the sink lives through (in-job
     * maintenance compacts every few seconds). Runs at a barrier, after the checkpoint's changes
     * are emitted, so no location is held outside the map; it costs one pass over the subtask's
     * keys (keyed state: {@code applyToAllKeys}), every {@link #sweepAfterRewrites} Rewrites.
     *
     * <p>A location whose row was deleted before a compaction moved it stays as it is, with the
     * Rewrites on its way: its key's next change finds it deleted, as without a sweep. In memory,
     * the Rewrites newer than the barrier of the oldest uncommitted checkpoint stay too: the files
     * of its segment may be compacted after they are committed, and its replay after a restore
     * needs to know.
     */
    private void sweep(Manifest latest, long checkpointId) throws Exception {
        try {
            sweepLocations(latest, checkpointId);
        } catch (RewriteLog.LocationMismatchException e) {
            throw new SinkStoppedException(e); // the restored key map and log would not fit either
        }
    }

    private void sweepLocations(Manifest latest, long checkpointId) throws Exception {
        if (keyedBase) {
            return; // the keyed base's locations, frozen in state, may need every Rewrite of the log
        }
        long started = System.nanoTime();
        long through = latest.version();
        if (delta != null) {
            Set<Long> uncommitted = new HashSet<>(delta.checkpointIds());
            uncommitted.add(checkpointId); // sealed right after this barrier
            barrierVersions.keySet().retainAll(uncommitted);
            for (long sealed : delta.checkpointIds()) {
                Long v = barrierVersions.get(sealed);
                if (v == null) {
                    return; // a segment restored from state: its barrier's version is unknown
                }
                through = Math.min(through, v);
            }
        }
        Set<Long> keep = new HashSet<>();
        long[] made = new long[1];
        if (heapLocations != null) {
            heapLocations.replaceLocations(packed -> {
                long[] location = heapPendingFiles.unpack(packed);
                long[] now = rewriteLog.translate(location, latest);
                if (now == null) {
                    keep.addAll(rewriteLog.chainOf(location, latest));
                    return packed;
                }
                if (now == location) {
                    return packed;
                }
                made[0]++;
                return heapPendingFiles.pack(now);
            });
        } else {
            getKeyedStateBackend()
                    .applyToAllKeys(
                            VoidNamespace.INSTANCE,
                            VoidNamespaceSerializer.INSTANCE,
                            new ValueStateDescriptor<>(
                                    ROW_LOCATION_STATE, PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO),
                            (key, state) -> {
                                long[] location = state.value();
                                long[] now = location == null ? null : rewriteLog.translate(location, latest);
                                if (now == null) {
                                    if (location != null) {
                                        keep.addAll(rewriteLog.chainOf(location, latest));
                                    }
                                } else if (now != location) {
                                    state.update(now);
                                    made[0]++;
                                }
                            });
        }
        relocated.inc(made[0]);
        int dropped = rewriteLog.dropThrough(through, keep);
        lastSweepEndNanos = System.nanoTime();
        lastSweepNanos = lastSweepEndNanos - started;
        LOG.info(
                "Lance upsert sink for {}: key map of subtask {} made current against version {} ({} locations moved"
                        + " by compactions) in {} ms; {} compactions dropped from its rewrite log, {} kept",
                table,
                getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(),
                latest.version(),
                made[0],
                (System.nanoTime() - started) / 1_000_000,
                dropped,
                rewriteLog.rewrites());
    }

    /** Drops the delta's segments {@code latest} shows committed and frees the committed files' slots. */
    private void pruneDelta(Manifest latest) throws IOException {
        delta.prune(latest, rewriteLog, DeletedRowCheck.of(store, latest, movedRows), !keyedBase);
        heapPendingFiles.resolve(PendingFiles.index(latest));
        heapPendingFiles.compact(heapLocations);
    }

    @Override
    public void endInput() throws Exception {
        emitPending();
    }

    /**
     * Emits every key's net change and brings the key map up to date.
     *
     * @return the latest version read for the changes, or null if none was needed
     */
    private DeletedRowCheck emitPending() throws Exception {
        try {
            return emitPendingChanges();
        } catch (RewriteLog.LocationMismatchException e) {
            throw new SinkStoppedException(e); // the restored key map and log would not fit either
        }
    }

    private DeletedRowCheck emitPendingChanges() throws Exception {
        if (pending.isEmpty()) {
            return null;
        }
        StreamRecord<LocatedChange> out = new StreamRecord<>(null);
        DeletedRowCheck tableNow = batchDeletedRows;
        for (Map.Entry<RowData, KeyedChange> e : pending.entrySet()) {
            KeyedChange c = e.getValue();
            if (heapLocations == null) {
                setCurrentKey(e.getKey());
            }
            boolean updatesOriginal = c.state == KeyedChange.State.EXISTING && !c.columns.isEmpty();
            // Set when a compaction dropped the row because it was deleted before the move.
            boolean goneBeforeMove = false;
            long[] original = c.original;
            if (original != null && (c.deleteOriginal || updatesOriginal)) {
                if (tableNow == null) {
                    tableNow = tableNow();
                    if (batch) {
                        batchDeletedRows = tableNow; // read once per run, not per key
                    }
                }
                long[] now = rewriteLog.translate(original, tableNow.manifest());
                if (now == null) {
                    goneBeforeMove = true;
                } else if (now != original) {
                    // Written back: the next change of the key needs no translation, and no
                    // commit depends on the compaction's version still being in the history.
                    original = now;
                    remember(e.getKey(), now);
                    relocated.inc();
                }
            }
            if (c.deleteOriginal && original != null && !goneBeforeMove) {
                output.collect(out.replace(LocatedChange.delete(original[0], original[1])));
                deletes.inc();
                if (delta != null && c.state == KeyedChange.State.ABSENT) {
                    // (Deleted then inserted again: the insert below is the key's entry.)
                    delta.deleted((BinaryRowData) e.getKey(), original[0], original[1]);
                }
            }
            switch (c.state) {
                case EXISTING -> {
                    if (updatesOriginal) {
                        if (goneBeforeMove || tableNow.isDeleted(original)) {
                            // Another writer deleted the row: it stays deleted, and the key is free
                            // for a new row.
                            forget(e.getKey());
                            droppedUpdates.inc();
                        } else if (rewriteRows) {
                            long[] to = nextNewRowLocation();
                            output.collect(out.replace(
                                    LocatedChange.move(original[0], original[1], to[0], to[1], writtenColumns, c.row)));
                            remember(e.getKey(), to);
                            if (delta != null) {
                                delta.moved((BinaryRowData) e.getKey(), original[0], original[1], to[0], to[1]);
                            }
                            updates.inc();
                        } else {
                            output.collect(out.replace(LocatedChange.update(
                                    original[0],
                                    original[1],
                                    c.columns,
                                    WrittenColumnsRow.of(c.columns, c.row)))); // only the cells written
                            updates.inc();
                        }
                    }
                }
                case NEW -> {
                    long[] at = nextNewRowLocation();
                    output.collect(out.replace(LocatedChange.insert(at[0], at[1], c.row)));
                    remember(e.getKey(), at);
                    if (delta != null) {
                        delta.inserted((BinaryRowData) e.getKey(), at[0], at[1]);
                    }
                    inserts.inc();
                }
                case ABSENT -> {
                    if (c.original != null) {
                        forget(e.getKey());
                    }
                }
            }
        }
        pending.clear();
        if (!batch) {
            currentFileId = 0; // a checkpoint always ends the open file
        }
        return tableNow;
    }

    /**
     * The latest version, for the changes about to be emitted: the compactions committed up to it
     * are learned first (one small read per version since the last time, so about one per
     * checkpoint), so that the changes' locations are made current against it.
     */
    private DeletedRowCheck tableNow() throws IOException {
        Manifest latest = ManifestIO.read(store, VersionResolver.latest(store));
        tableRead = true;
        learn(latest.version());
        return DeletedRowCheck.of(store, latest, movedRows);
    }

    private void learn(long latestVersion) throws IOException {
        int learned = rewriteLog.learn(history, latestVersion);
        if (learned > 0) {
            LOG.info(
                    "Lance upsert sink for {}: {} compactions up to version {} moved rows; the key map's locations"
                            + " are brought up to date as their keys change ({} moved fragments known)",
                    table,
                    learned,
                    latestVersion,
                    rewriteLog.movedFragments());
        }
    }

    /** {fileId, offset} of the next row written to a new data file: the writer writes it exactly there. */
    private long[] nextNewRowLocation() {
        if (currentFileId == 0 || currentFileRows == rowsPerFile) {
            currentFileId = newFileId();
            currentFileRows = 0;
        }
        return new long[] {currentFileId, currentFileRows++};
    }

    /** The bootstrap's target: the map on the heap. */
    private class HeapTarget implements KeyMapBootstrap.Locations {
        @Override
        public long[] get(RowData key) {
            return heapLocation((BinaryRowData) key);
        }

        @Override
        public void put(RowData key, long[] location) {
            BinaryRowData k = (BinaryRowData) key;
            heapLocations.put(k, heapHash(k), heapPendingFiles.pack(location));
        }
    }

    /** The map on the heap of a single integral key: the bootstrap puts keys read as longs. */
    private final class LongHeapTarget extends HeapTarget implements KeyMapBootstrap.LongLocations {
        private final LongKeyLocationMap longMap;

        LongHeapTarget(LongKeyLocationMap longMap) {
            this.longMap = longMap;
        }

        @Override
        public BinaryRowData keyRow(long key) {
            return longMap.keyRow(key);
        }

        @Override
        public long[] putIfAbsent(long key, long address) {
            long earlier = longMap.putIfAbsent(key, PackedLocation.ofRowAddress(address));
            return earlier == KeyLocations.NONE ? null : heapPendingFiles.unpack(earlier);
        }
    }

    /** {@code key}'s location in the heap map, as {fileId, position}, or null. */
    private long[] heapLocation(BinaryRowData key) {
        long packed = heapLocations.get(key, heapHash(key));
        return packed == KeyLocations.NONE ? null : heapPendingFiles.unpack(packed);
    }

    /** The hash the heap map takes: none for the long map, which mixes the key's long itself. */
    private int heapHash(BinaryRowData key) {
        return heapLocations.usesHash() ? key.hashCode() : 0;
    }

    /** Records {@code key}'s new location (keyed state: {@code key} is the current key). */
    private void remember(RowData key, long[] location) throws Exception {
        if (heapLocations != null) {
            BinaryRowData k = (BinaryRowData) key;
            heapLocations.put(k, heapHash(k), heapPendingFiles.pack(location));
        } else {
            locations.update(location);
        }
    }

    private void forget(RowData key) throws Exception {
        if (heapLocations != null) {
            BinaryRowData k = (BinaryRowData) key;
            heapLocations.remove(k, heapHash(k));
        } else {
            locations.clear();
        }
    }

    @Override
    public void close() throws Exception {
        try {
            if (store != null) {
                store.close();
            }
        } finally {
            super.close();
        }
    }

    private long newFileId() {
        long id;
        do {
            id = random.nextLong();
        } while (id == 0);
        return id;
    }
}
