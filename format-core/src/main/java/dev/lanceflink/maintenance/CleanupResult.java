package dev.lanceflink.maintenance;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * What {@link TableCleanup#execute} did.
 *
 * @param tableUri the table's root
 * @param latestVersionAtExecution the newest version when the deletion of files began
 * @param versionsRemoved manifests deleted
 * @param filesDeleted files deleted per kind ({@link CleanupFileKind#MANIFEST} = versionsRemoved)
 * @param bytesDeleted sizes (from the plan's listing) of everything deleted
 * @param keptForNewerVersions planned files left in place because a version committed after
 *     planning references them
 * @param failedDeletes files whose delete failed, with the error; they stay and the next run
 *     finds them again
 */
public record CleanupResult(
        String tableUri,
        long latestVersionAtExecution,
        int versionsRemoved,
        Map<CleanupFileKind, Integer> filesDeleted,
        long bytesDeleted,
        List<String> keptForNewerVersions,
        List<FailedDelete> failedDeletes) {

    /** A delete that failed: the file stays. */
    public record FailedDelete(String path, String error) {
        public FailedDelete {
            requireNonNull(path, "path is null");
            requireNonNull(error, "error is null");
        }
    }

    public CleanupResult {
        requireNonNull(tableUri, "tableUri is null");
        Map<CleanupFileKind, Integer> counts = new EnumMap<>(CleanupFileKind.class);
        for (CleanupFileKind k : CleanupFileKind.values()) {
            counts.put(k, filesDeleted.getOrDefault(k, 0));
        }
        filesDeleted = Collections.unmodifiableMap(counts);
        keptForNewerVersions = List.copyOf(keptForNewerVersions);
        failedDeletes = List.copyOf(failedDeletes);
    }

    /** Files deleted of one kind. */
    public int filesDeleted(CleanupFileKind kind) {
        return filesDeleted.get(kind);
    }

    /** Every file deleted, manifests included. */
    public int totalFilesDeleted() {
        int n = 0;
        for (int c : filesDeleted.values()) {
            n += c;
        }
        return n;
    }

    /** The result as indented JSON (the job's summary). */
    public String toJson() {
        ObjectNode root = CleanupJson.object();
        root.put("table", tableUri);
        root.put("latestVersionAtExecution", latestVersionAtExecution);
        root.put("versionsRemoved", versionsRemoved);
        ObjectNode files = root.putObject("filesDeleted");
        filesDeleted.forEach((k, n) -> files.put(k.label(), n));
        root.put("totalFilesDeleted", totalFilesDeleted());
        root.put("bytesDeleted", bytesDeleted);
        ArrayNode kept = root.putArray("keptForNewerVersions");
        keptForNewerVersions.forEach(kept::add);
        ArrayNode failed = root.putArray("failedDeletes");
        for (FailedDelete f : failedDeletes) {
            ObjectNode n = failed.addObject();
            n.put("path", f.path());
            n.put("error", f.error());
        }
        return CleanupJson.write(root);
    }
}
