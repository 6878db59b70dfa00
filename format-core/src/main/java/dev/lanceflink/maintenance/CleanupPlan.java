package dev.lanceflink.maintenance;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@link TableCleanup#execute} will delete, decided by {@link TableCleanup#plan} against the
 * versions that existed at {@link #latestVersion()}. Print it with {@link #toJson()} for a dry run.
 *
 * @param tableUri root of the table the plan is for ({@code ObjectStore.rootUri()})
 * @param policy the policy it was made with
 * @param latestVersion the newest version when planning; later versions are never touched
 * @param retainedVersions every version kept, oldest first, with its reasons
 * @param markerVersions for each unreleased value of the policy's marker property, the version
 *     kept for it
 * @param versionsToRemove manifests to delete, oldest first
 * @param filesToDelete other files to delete, with the reason for each
 */
public record CleanupPlan(
        String tableUri,
        CleanupPolicy policy,
        long latestVersion,
        List<RetainedVersion> retainedVersions,
        Map<String, Long> markerVersions,
        List<RemovedVersion> versionsToRemove,
        List<CleanupCandidate> filesToDelete) {

    public CleanupPlan {
        requireNonNull(tableUri, "tableUri is null");
        requireNonNull(policy, "policy is null");
        retainedVersions = List.copyOf(retainedVersions);
        markerVersions = Collections.unmodifiableMap(new LinkedHashMap<>(markerVersions));
        versionsToRemove = List.copyOf(versionsToRemove);
        filesToDelete = List.copyOf(filesToDelete);
    }

    /** True if executing the plan would delete nothing. */
    public boolean isEmpty() {
        return versionsToRemove.isEmpty() && filesToDelete.isEmpty();
    }

    /** Bytes the plan frees: removed manifests plus every file to delete. */
    public long bytesToDelete() {
        long n = 0;
        for (RemovedVersion v : versionsToRemove) {
            n += v.sizeBytes();
        }
        for (CleanupCandidate c : filesToDelete) {
            n += c.sizeBytes();
        }
        return n;
    }

    /** Number of files to delete per kind (manifests included). */
    public Map<CleanupFileKind, Integer> fileCounts() {
        Map<CleanupFileKind, Integer> counts = new EnumMap<>(CleanupFileKind.class);
        for (CleanupFileKind k : CleanupFileKind.values()) {
            counts.put(k, 0);
        }
        counts.put(CleanupFileKind.MANIFEST, versionsToRemove.size());
        for (CleanupCandidate c : filesToDelete) {
            counts.merge(c.kind(), 1, Integer::sum);
        }
        return counts;
    }

    /** The plan as indented JSON (what {@code --dry-run} prints). */
    public String toJson() {
        ObjectNode root = CleanupJson.object();
        root.put("table", tableUri);
        root.put("latestVersion", latestVersion);
        ObjectNode p = root.putObject("policy");
        p.put("now", policy.now().toString());
        p.put("retainVersionsNewerThan", policy.retainVersionsNewerThan().toString());
        p.put("retainLastVersions", policy.retainLastVersions());
        p.put("unreferencedGrace", policy.unreferencedGrace().toString());
        if (policy.markerPropertyKey() == null) {
            p.putNull("markerPropertyKey");
        } else {
            p.put("markerPropertyKey", policy.markerPropertyKey());
        }
        ArrayNode released = p.putArray("releasedMarkerValues");
        policy.releasedMarkerValues().stream().sorted().forEach(released::add);

        ObjectNode totals = root.putObject("totals");
        totals.put("versionsToRemove", versionsToRemove.size());
        totals.put("versionsRetained", retainedVersions.size());
        ObjectNode files = totals.putObject("files");
        fileCounts().forEach((k, n) -> files.put(k.label(), n));
        totals.put("bytes", bytesToDelete());

        ArrayNode retained = root.putArray("retainedVersions");
        for (RetainedVersion r : retainedVersions) {
            ObjectNode n = retained.addObject();
            n.put("version", r.version());
            ArrayNode reasons = n.putArray("reasons");
            r.reasons().forEach(reasons::add);
        }
        ObjectNode markers = root.putObject("markerVersions");
        markerVersions.forEach(markers::put);
        ArrayNode removed = root.putArray("versionsToRemove");
        for (RemovedVersion v : versionsToRemove) {
            ObjectNode n = removed.addObject();
            n.put("version", v.version());
            n.put("manifest", v.manifestPath());
            n.put("sizeBytes", v.sizeBytes());
            if (v.timestamp() == null) {
                n.putNull("timestamp");
            } else {
                n.put("timestamp", v.timestamp().toString());
            }
        }
        ArrayNode del = root.putArray("filesToDelete");
        for (CleanupCandidate c : filesToDelete) {
            ObjectNode n = del.addObject();
            n.put("path", c.path());
            n.put("kind", c.kind().label());
            n.put("reason", c.reason().label());
            n.put("sizeBytes", c.sizeBytes());
            if (c.lastModifiedMillis() > 0) {
                n.put(
                        "lastModified",
                        Instant.ofEpochMilli(c.lastModifiedMillis()).toString());
            }
        }
        return CleanupJson.write(root);
    }
}
