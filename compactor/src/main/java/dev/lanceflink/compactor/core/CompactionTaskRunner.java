package dev.lanceflink.compactor.core;

import dev.lanceflink.compact.FragmentRewriter;
import dev.lanceflink.compact.OverlayCompactor;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.overlay.StagedWrite;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Executes one {@link CompactionTask}: writes the new files through {@link OverlayCompactor}
 * (overlay modes) or {@link FragmentRewriter} (mode {@code fragments}) and returns them staged,
 * never committed (the commit step commits the whole run at once).
 */
public final class CompactionTaskRunner {
    private CompactionTaskRunner() {}

    /**
     * Runs {@code task} against {@code manifest}, the version it was planned on.
     *
     * @throws IllegalStateException if the fragment's overlays in {@code manifest} are not the ones
     *     the task was planned for (the task belongs to another version)
     */
    public static TaskResult run(
            ObjectStore store,
            Manifest manifest,
            CompactionTask task,
            BufferAllocator allocator,
            FileWriterOptions fileOptions)
            throws IOException {
        if (task.mode() == CompactionMode.FRAGMENTS) {
            return rewrite(store, manifest, task, allocator, fileOptions);
        }
        Fragment f = manifest.fragment(task.fragmentId())
                .orElseThrow(() -> new IllegalStateException("Version "
                        + manifest.version() + " of " + store.rootUri() + " has no fragment " + task.fragmentId()
                        + ", which the compaction task was planned for; plan again on this version"));
        List<String> now = f.overlays().stream()
                .map(DataOverlayFile::dataFile)
                .map(d -> d.path())
                .toList();
        if (!now.equals(task.overlayPaths())) {
            throw new IllegalStateException("Fragment " + task.fragmentId() + " of " + store.rootUri() + " at version "
                    + manifest.version() + " has overlays " + now + ", but the compaction task was planned for "
                    + task.overlayPaths() + "; plan again on this version");
        }
        StagedWrite staged = switch (task.mode()) {
            case OVERLAY_MERGE ->
                OverlayCompactor.mergeOverlays(
                        store, manifest, task.fragmentId(), task.positions(), allocator, fileOptions);
            case OVERLAY_FOLD -> OverlayCompactor.fold(store, manifest, task.fragmentId(), allocator, fileOptions);
            case FRAGMENTS -> throw new IllegalStateException("unreachable: rewrites are run above");
        };
        return result(store, manifest, task, staged);
    }

    private static TaskResult result(ObjectStore store, Manifest manifest, CompactionTask task, StagedWrite staged) {
        try {
            return TaskResult.of(task, manifest.version(), staged);
        } catch (RuntimeException e) {
            staged.discard(store);
            throw e;
        }
    }

    /** Mode {@code fragments}: the group's fragments must be exactly as planned (overlays and deletions). */
    private static TaskResult rewrite(
            ObjectStore store,
            Manifest manifest,
            CompactionTask task,
            BufferAllocator allocator,
            FileWriterOptions fileOptions)
            throws IOException {
        FragmentGroup group = task.group();
        List<String> overlays = new ArrayList<>();
        long physical = 0;
        long deleted = 0;
        for (long id : group.fragmentIds()) {
            Fragment f = manifest.fragment(id)
                    .orElseThrow(() -> new IllegalStateException("Version "
                            + manifest.version() + " of " + store.rootUri() + " has no fragment " + id + ", which the"
                            + " rewrite task was planned for; plan again on this version"));
            f.overlays().forEach(o -> overlays.add(o.dataFile().path()));
            physical += f.physicalRows();
            deleted += f.numDeletedRows();
        }
        if (!overlays.equals(task.overlayPaths())
                || physical != group.physicalRows()
                || deleted != group.deletedRows()) {
            throw new IllegalStateException("Fragments " + group.fragmentIds() + " of " + store.rootUri()
                    + " at version " + manifest.version() + " have overlays " + overlays + ", " + physical
                    + " physical and " + deleted + " deleted rows, but the rewrite task was planned for overlays "
                    + task.overlayPaths() + ", " + group.physicalRows() + " physical and " + group.deletedRows()
                    + " deleted rows; plan again on this version");
        }
        StagedWrite staged = FragmentRewriter.rewrite(
                store, manifest, group.fragmentIds(), group.targetRowsPerFragment(), allocator, fileOptions);
        return result(store, manifest, task, staged);
    }
}
