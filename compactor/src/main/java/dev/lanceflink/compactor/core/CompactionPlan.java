package dev.lanceflink.compactor.core;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.Serializable;
import java.util.List;

/**
 * The work of one compaction run, computed on one pinned table version ({@code readVersion}) and
 * executed task by task; the commit step requires every compacted fragment to be unchanged since
 * that version.
 *
 * @param tableUri the table, for messages and JSON
 * @param readVersion the version the plan was computed on
 * @param mode the run's mode
 * @param policy the policy it was computed with
 * @param tasks one task per fragment (mode {@code fragments}: per group), in execution-priority order
 * @param skipped fragments with overlays (or, mode {@code fragments}, candidates) left out, with the reason
 * @param overlaysFound overlays in the whole table at {@code readVersion}
 */
public record CompactionPlan(
        String tableUri,
        long readVersion,
        CompactionMode mode,
        CompactionPolicy policy,
        List<CompactionTask> tasks,
        List<SkippedFragment> skipped,
        long overlaysFound)
        implements Serializable {
    private static final long serialVersionUID = 2L;

    public CompactionPlan {
        requireNonNull(tableUri, "tableUri is null");
        requireNonNull(mode, "mode is null");
        requireNonNull(policy, "policy is null");
        tasks = List.copyOf(tasks);
        skipped = List.copyOf(skipped);
    }

    public boolean isEmpty() {
        return tasks.isEmpty();
    }

    /** Overlays of the planned fragments before the run. */
    public long overlaysBefore() {
        return tasks.stream().mapToLong(t -> t.overlayPaths().size()).sum();
    }

    /** Overlays of the planned fragments after the run, if every task commits. */
    public long overlaysAfter() {
        return tasks.stream().mapToLong(CompactionTask::overlaysAfter).sum();
    }

    /** The plan as printed by {@code --dry-run}; stable field names (documented in CompactorMain). */
    public ObjectNode toJson() {
        JsonNodeFactory f = JsonNodeFactory.instance;
        ObjectNode root = f.objectNode();
        root.put("table", tableUri);
        root.put("mode", mode.cliName());
        root.put("readVersion", readVersion);
        ObjectNode p = root.putObject("policy");
        p.put("minOverlays", policy.minOverlays());
        p.put("minOverlayBytesRatio", policy.minOverlayBytesRatio());
        p.put("minVersionGap", policy.minVersionGap());
        p.put("maxFragments", policy.maxFragments());
        p.put("maxBytes", policy.maxBytes());
        if (mode == CompactionMode.FRAGMENTS) {
            p.put("minDeletedRatio", policy.minDeletedRatio());
            p.put("targetRowsPerFragment", policy.targetRowsPerFragment());
            p.put("smallFragmentRows", policy.smallFragmentRows());
            root.put(
                    "fragmentsBefore",
                    tasks.stream().mapToLong(t -> t.fragmentIds().size()).sum());
            root.put(
                    "fragmentsAfter",
                    tasks.stream().mapToLong(t -> t.group().outputFragments()).sum());
        }
        root.put("overlaysFound", overlaysFound);
        root.put("overlaysBefore", overlaysBefore());
        root.put("overlaysAfter", overlaysAfter());
        ArrayNode ts = root.putArray("tasks");
        for (CompactionTask t : tasks) {
            ObjectNode n = ts.addObject();
            n.put("fragmentId", t.fragmentId());
            n.put("trigger", t.trigger());
            if (t.group() != null) {
                FragmentGroup g = t.group();
                ArrayNode ids = n.putArray("fragmentIds");
                g.fragmentIds().forEach(ids::add);
                n.put("physicalRows", g.physicalRows());
                n.put("deletedRows", g.deletedRows());
                n.put("liveRows", g.liveRows());
                n.put("outputFragments", g.outputFragments());
                n.put("overlays", t.overlayPaths().size());
                n.put("overlayBytes", t.overlayBytes());
                n.put("baseBytes", t.baseBytes());
                continue;
            }
            ArrayNode pos = n.putArray("positions");
            for (int i : t.positions()) {
                pos.add(i);
            }
            n.put("overlays", t.overlayPaths().size());
            n.put("overlaysAfter", t.overlaysAfter());
            n.put("overlayBytes", t.overlayBytes());
            n.put("baseBytes", t.baseBytes());
        }
        ArrayNode sk = root.putArray("skipped");
        for (SkippedFragment s : skipped) {
            ObjectNode n = sk.addObject();
            n.put("fragmentId", s.fragmentId());
            n.put("reason", s.reason());
        }
        return root;
    }
}
