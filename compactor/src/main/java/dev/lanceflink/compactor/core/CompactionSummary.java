package dev.lanceflink.compactor.core;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * The outcome of one compaction run, printed as JSON at the end of the CLI.
 *
 * @param status {@code dry-run}, {@code nothing-to-do} or {@code committed}
 * @param plan the plan of the first round (what {@code --dry-run} prints)
 * @param fragmentsCompacted fragments whose compaction is committed (in mode {@code fragments}: the
 *     old fragments the committed rewrites replaced)
 * @param overlaysBefore overlays of those fragments before
 * @param overlaysAfter overlays of those fragments after
 * @param committedVersions versions created by this run
 * @param replannedFragments fragments that changed while the run was in flight and were planned again
 * @param uncompactedFragments fragments that changed and were still not committed when the re-plan
 *     rounds ran out (a later run picks them up)
 * @param durationMillis wall time of the run
 * @param written what the committed tasks wrote (bytes; for mode {@code fragments} also the new
 *     fragments and their rows)
 * @param carriedDeletions mode {@code fragments}: rows other writers deleted in the rewritten
 *     fragments while the run was in flight, deleted in the new fragments by the committed rewrites
 * @param carriedOverlays mode {@code fragments}: overlays other writers committed on the rewritten
 *     fragments while the run was in flight, relocated to the new fragments
 */
public record CompactionSummary(
        String status,
        CompactionPlan plan,
        int fragmentsCompacted,
        long overlaysBefore,
        long overlaysAfter,
        List<Long> committedVersions,
        List<Long> replannedFragments,
        List<Long> uncompactedFragments,
        long durationMillis,
        TaskResult.Output written,
        long carriedDeletions,
        long carriedOverlays) {
    public static final String DRY_RUN = "dry-run";
    public static final String NOTHING_TO_DO = "nothing-to-do";
    public static final String COMMITTED = "committed";

    public CompactionSummary {
        requireNonNull(status, "status is null");
        requireNonNull(plan, "plan is null");
        committedVersions = List.copyOf(committedVersions);
        replannedFragments = List.copyOf(replannedFragments);
        uncompactedFragments = List.copyOf(uncompactedFragments);
        requireNonNull(written, "written is null");
    }

    /** A summary of a run that wrote nothing. */
    static CompactionSummary empty(String status, CompactionPlan plan, long durationMillis) {
        return new CompactionSummary(
                status,
                plan,
                0,
                0,
                0,
                List.of(),
                List.of(),
                List.of(),
                durationMillis,
                new TaskResult.Output(0, 0, 0),
                0,
                0);
    }

    public ObjectNode toJson() {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        root.put("status", status);
        root.put("table", plan.tableUri());
        root.put("mode", plan.mode().cliName());
        root.put("planVersion", plan.readVersion());
        root.put("fragmentsPlanned", plan.tasks().size());
        root.put("fragmentsCompacted", fragmentsCompacted);
        root.put("overlaysFound", plan.overlaysFound());
        root.put("overlaysBefore", overlaysBefore);
        root.put("overlaysAfter", overlaysAfter);
        root.put(
                "inputBytes",
                plan.tasks().stream().mapToLong(CompactionTask::inputBytes).sum());
        root.put("bytesWritten", written.bytes());
        if (plan.mode() == CompactionMode.FRAGMENTS) {
            root.put("fragmentsAdded", written.newFragments());
            root.put("rowsWritten", written.rowsWritten());
            root.put("carriedDeletions", carriedDeletions);
            root.put("carriedOverlays", carriedOverlays);
        }
        ArrayNode v = root.putArray("committedVersions");
        committedVersions.forEach(v::add);
        ArrayNode r = root.putArray("replannedFragments");
        replannedFragments.forEach(r::add);
        ArrayNode u = root.putArray("uncompactedFragments");
        uncompactedFragments.forEach(u::add);
        ArrayNode sk = root.putArray("skipped");
        for (SkippedFragment s : plan.skipped()) {
            sk.addObject().put("fragmentId", s.fragmentId()).put("reason", s.reason());
        }
        root.put("durationMillis", durationMillis);
        root.set("plan", plan.toJson());
        return root;
    }
}
