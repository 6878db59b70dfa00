package dev.lanceflink.flink.table;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.table.TableSnapshot;
import java.io.Serializable;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.apache.flink.table.connector.RowLevelModificationScanContext;

/**
 * What the scans of an {@code UPDATE} or row-level {@code DELETE} read: for each Lance table
 * (by its URI), the version pinned when the statement was planned and the {@link TableSnapshot}
 * of it (schema, field ids). Flink's planner hands the context from each scan to the next and
 * finally to the sink ({@code applyRowLevelUpdate(columns, context)} /
 * {@code applyRowLevelDelete(context)}), which writes by the snapshot's schema and field ids and
 * makes its commit fail on conflicting changes committed after that version. The context belongs
 * to the statement being planned, not to the thread or the table environment: another statement
 * planned meanwhile has its own.
 *
 * <p>A statement may scan the same table more than once (a subquery on the modified table); the
 * scans are planned one after the other, and if a commit landed in between they pin different
 * versions. The context keeps the oldest, and that version's snapshot: the commit is then checked
 * against every change the statement may not have seen.
 *
 * @param readVersions table URI to the version its scan reads
 * @param snapshots table URI to the snapshot of that version, where the scan pinned one
 */
record LanceModificationScanContext(Map<String, Long> readVersions, Map<String, TableSnapshot> snapshots)
        implements RowLevelModificationScanContext, Serializable {
    private static final long serialVersionUID = 2L;

    LanceModificationScanContext {
        readVersions = Collections.unmodifiableMap(new TreeMap<>(readVersions));
        snapshots = Collections.unmodifiableMap(new TreeMap<>(snapshots));
    }

    /** A context of versions only (scans that pinned no snapshot). */
    LanceModificationScanContext(Map<String, Long> readVersions) {
        this(readVersions, Map.of());
    }

    /** The context after {@code previous} (null for the first scan) and a scan of {@code version} of {@code uri}. */
    static LanceModificationScanContext after(LanceModificationScanContext previous, String uri, long version) {
        return after(previous, uri, version, null);
    }

    /**
     * The context after {@code previous} (null for the first scan) and a scan of {@code version} of
     * {@code uri} pinned as {@code snapshot} (null if the scan has none).
     */
    static LanceModificationScanContext after(
            LanceModificationScanContext previous, String uri, long version, TableSnapshot snapshot) {
        requireNonNull(uri, "uri is null");
        if (snapshot != null && snapshot.version() != version) {
            throw new IllegalArgumentException(
                    "The snapshot of " + uri + " is of version " + snapshot.version() + ", the scan reads " + version);
        }
        Map<String, Long> versions = new TreeMap<>();
        Map<String, TableSnapshot> pinned = new TreeMap<>();
        if (previous != null) {
            versions.putAll(previous.readVersions);
            pinned.putAll(previous.snapshots);
        }
        Long before = versions.get(uri);
        if (before == null || version < before) {
            versions.put(uri, version);
            if (snapshot != null) {
                pinned.put(uri, snapshot);
            } else {
                pinned.remove(uri);
            }
        } else if (version == before && snapshot != null) {
            pinned.putIfAbsent(uri, snapshot);
        }
        return new LanceModificationScanContext(versions, pinned);
    }

    /** The version the statement read of the table at {@code uri}, if one of its scans read it. */
    OptionalLong readVersion(String uri) {
        Long v = readVersions.get(uri);
        return v == null ? OptionalLong.empty() : OptionalLong.of(v);
    }

    /** The snapshot of {@link #readVersion} of the table at {@code uri}, if its scan pinned one. */
    Optional<TableSnapshot> snapshot(String uri) {
        return Optional.ofNullable(snapshots.get(uri));
    }
}
