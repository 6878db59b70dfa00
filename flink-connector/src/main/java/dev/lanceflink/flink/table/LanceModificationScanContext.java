package dev.lanceflink.flink.table;

import static java.util.Objects.requireNonNull;

import java.io.Serializable;
import java.util.Collections;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.apache.flink.table.connector.RowLevelModificationScanContext;

/**
 * What the scans of an {@code UPDATE} or row-level {@code DELETE} read: for each Lance table
 * (by its URI), the version pinned when the statement was planned. Flink's planner hands the
 * context from each scan to the next and finally to the sink
 * ({@code applyRowLevelUpdate(columns, context)} / {@code applyRowLevelDelete(context)}), which
 * makes its commit fail on conflicting changes committed after that version.
 *
 * <p>A statement may scan the same table more than once (a subquery on the modified table); the
 * scans are planned one after the other, and if a commit landed in between they pin different
 * versions. The context keeps the oldest: the commit is then checked against every change the
 * statement may not have seen.
 *
 * @param readVersions table URI to the version its scan reads
 */
record LanceModificationScanContext(Map<String, Long> readVersions)
        implements RowLevelModificationScanContext, Serializable {
    private static final long serialVersionUID = 1L;

    LanceModificationScanContext {
        readVersions = Collections.unmodifiableMap(new TreeMap<>(readVersions));
    }

    /** The context after {@code previous} (null for the first scan) and a scan of {@code version} of {@code uri}. */
    static LanceModificationScanContext after(LanceModificationScanContext previous, String uri, long version) {
        requireNonNull(uri, "uri is null");
        Map<String, Long> versions = new TreeMap<>();
        if (previous != null) {
            versions.putAll(previous.readVersions);
        }
        versions.merge(uri, version, Math::min);
        return new LanceModificationScanContext(versions);
    }

    /** The version the statement read of the table at {@code uri}, if one of its scans read it. */
    OptionalLong readVersion(String uri) {
        Long v = readVersions.get(uri);
        return v == null ? OptionalLong.empty() : OptionalLong.of(v);
    }
}
