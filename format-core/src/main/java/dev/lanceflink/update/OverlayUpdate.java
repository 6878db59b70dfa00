package dev.lanceflink.update;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.deletion.DeletionFiles;
import dev.lanceflink.deletion.DeletionStager;
import dev.lanceflink.deletion.DeletionVector;
import dev.lanceflink.file.FileVersion;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.overlay.OverlayCommits;
import dev.lanceflink.overlay.OverlayFields;
import dev.lanceflink.overlay.OverlayStager;
import dev.lanceflink.overlay.StagedWrite;
import dev.lanceflink.read.FragmentReader;
import dev.lanceflink.schema.LanceField;
import dev.lanceflink.schema.LanceSchema;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.RowAddress;
import dev.lanceflink.table.TableFiles;
import dev.lanceflink.txn.Operation;
import dev.lanceflink.write.FragmentWriter;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.roaringbitmap.RoaringBitmap;

/**
 * UPDATE by row address: new values for some columns of some rows, staged as one operation.
 *
 * <p>{@link Mode#OVERLAY} writes one dense overlay per touched fragment ({@code DataOverlay});
 * row addresses stay. {@link Mode#REWRITE_ROWS} does what Lance's row-rewriting update does:
 * the rows (current values, new values spliced in) go to new fragments and are deleted from their
 * old ones ({@code Update}, mode REWRITE_ROWS). Use it when the table must stay readable by
 * released Lance builds, which refuse overlay feature flag 64; rows then get new addresses.
 */
public final class OverlayUpdate {
    /** How an update is stored. */
    public enum Mode {
        /** Dense data overlay files; cheap, row addresses stay, needs overlay-aware readers. */
        OVERLAY,
        /** Delete and re-insert the rows; readable by every Lance release. */
        REWRITE_ROWS
    }

    private OverlayUpdate() {}

    /**
     * Writes the files of an update of {@code manifest}'s version without committing.
     *
     * @param rowAddresses {@code fragment_id << 32 | offset} of the rows to change, any order,
     *     each at most once, none deleted
     * @param values one column per updated top-level field (matched by name), row {@code i}
     *     holding the new value for {@code rowAddresses[i]}; a NULL sets the cell to NULL
     * @throws IllegalArgumentException naming the offending address or column
     */
    public static StagedWrite stage(
            ObjectStore store,
            Manifest manifest,
            long[] rowAddresses,
            VectorSchemaRoot values,
            Mode mode,
            BufferAllocator allocator,
            FileWriterOptions fileOptions)
            throws IOException {
        requireNonNull(store, "store is null");
        requireNonNull(manifest, "manifest is null");
        requireNonNull(rowAddresses, "rowAddresses is null");
        requireNonNull(values, "values is null");
        requireNonNull(mode, "mode is null");
        if (values.getRowCount() != rowAddresses.length) {
            throw new IllegalArgumentException("The update has " + rowAddresses.length + " row addresses but "
                    + values.getRowCount() + " rows of values; give one row of values per address");
        }
        int[] fieldIds = columnIds(manifest.schema(), values);
        // Existing files are read where the manifest says (base paths); new ones go to the root.
        try (TableFiles files = TableFiles.of(store, manifest)) {
            Map<Long, int[]> byFragment = groupSorted(files, manifest, rowAddresses);
            return mode == Mode.OVERLAY
                    ? stageOverlays(store, manifest, rowAddresses, values, fieldIds, byFragment, allocator, fileOptions)
                    : stageRewrite(files, manifest, rowAddresses, values, fieldIds, byFragment, allocator, fileOptions);
        }
    }

    private static int[] columnIds(LanceSchema schema, VectorSchemaRoot values) {
        int[] ids = new int[values.getFieldVectors().size()];
        for (int c = 0; c < ids.length; c++) {
            String name = values.getVector(c).getField().getName();
            ids[c] = schema.fieldByName(name)
                    .orElseThrow(() -> new IllegalArgumentException("Update column '" + name
                            + "' is not a top-level column of the table "
                            + schema.fields().stream().map(LanceField::name).toList()))
                    .id();
        }
        if (ids.length == 0) {
            throw new IllegalArgumentException("The update sets no column");
        }
        return ids;
    }

    /**
     * Positions into {@code rowAddresses} per fragment, sorted by offset, after checking that
     * every address exists, is live and occurs once.
     */
    private static Map<Long, int[]> groupSorted(TableFiles files, Manifest manifest, long[] rowAddresses)
            throws IOException {
        int[] order = OverlayFields.orderBy(rowAddresses);
        Map<Long, int[]> out = new LinkedHashMap<>();
        int i = 0;
        while (i < order.length) {
            long fragmentId = RowAddress.fragmentId(rowAddresses[order[i]]);
            int j = i;
            while (j < order.length && RowAddress.fragmentId(rowAddresses[order[j]]) == fragmentId) {
                j++;
            }
            Fragment f = manifest.fragment(fragmentId)
                    .orElseThrow(() -> new IllegalArgumentException(
                            "Row address " + rowAddresses[order[0]] + " names fragment " + fragmentId
                                    + ", which version " + manifest.version() + " of the table does not have"));
            DeletionVector dv = f.deletionFile() == null
                    ? DeletionVector.EMPTY
                    : DeletionFiles.read(files, f.id(), f.deletionFile());
            int[] positions = new int[j - i];
            for (int k = i; k < j; k++) {
                long address = rowAddresses[order[k]];
                long offset = RowAddress.offset(address);
                if (k > i && address == rowAddresses[order[k - 1]]) {
                    throw new IllegalArgumentException("Row address " + address + " occurs twice in the update"
                            + " (positions " + order[k - 1] + " and " + order[k] + "); give each row once");
                }
                if (offset >= f.physicalRows()) {
                    throw new IllegalArgumentException("Row address " + address + " is past the end of fragment "
                            + fragmentId + " (" + f.physicalRows() + " physical rows)");
                }
                if (dv.contains((int) offset)) {
                    throw new IllegalArgumentException("Row address " + address + " is a deleted row at version "
                            + manifest.version() + "; it cannot be updated");
                }
                positions[k - i] = order[k];
            }
            out.put(fragmentId, positions);
            i = j;
        }
        return out;
    }

    private static StagedWrite stageOverlays(
            ObjectStore store,
            Manifest manifest,
            long[] rowAddresses,
            VectorSchemaRoot values,
            int[] fieldIds,
            Map<Long, int[]> byFragment,
            BufferAllocator allocator,
            FileWriterOptions fileOptions)
            throws IOException {
        Map<Long, List<DataOverlayFile>> groups = new LinkedHashMap<>();
        List<String> written = new ArrayList<>();
        try {
            for (Map.Entry<Long, int[]> e : byFragment.entrySet()) {
                int[] positions = e.getValue();
                long[] offsets = new long[positions.length];
                for (int k = 0; k < positions.length; k++) {
                    offsets[k] = RowAddress.offset(rowAddresses[positions[k]]);
                }
                try (VectorSchemaRoot rows = gather(values, positions, allocator)) {
                    Optional<OverlayStager.StagedOverlay> o = OverlayStager.stage(
                            store,
                            manifest,
                            OverlayStager.Target.fragment(e.getKey()),
                            offsets,
                            offsets.length,
                            rows.getFieldVectors(),
                            null,
                            allocator,
                            fileOptions);
                    if (o.isPresent()) {
                        written.add(o.get().writtenPath());
                        groups.put(e.getKey(), List.of(o.get().overlay()));
                    }
                }
            }
        } catch (IOException | RuntimeException ex) {
            StagedWrite.discard(store, written);
            throw ex;
        }
        return new StagedWrite(OverlayCommits.operation(groups), written);
    }

    private static StagedWrite stageRewrite(
            TableFiles files,
            Manifest manifest,
            long[] rowAddresses,
            VectorSchemaRoot values,
            int[] fieldIds,
            Map<Long, int[]> byFragment,
            BufferAllocator allocator,
            FileWriterOptions fileOptions)
            throws IOException {
        ObjectStore store = files.root();
        if (manifest.usesStableRowIds()) {
            throw new IllegalArgumentException("REWRITE_ROWS updates of tables with stable row ids are not supported"
                    + " (moved rows would have to keep their row ids); use Mode.OVERLAY");
        }
        LanceSchema schema = manifest.schema();
        FileVersion version = FileVersion.parse(manifest.dataFormat().version());
        List<String> written = new ArrayList<>();
        List<Fragment> updated = new ArrayList<>();
        List<Long> removed = new ArrayList<>();
        Map<Long, RoaringBitmap> deletedByFragment = new LinkedHashMap<>();
        try (FragmentWriter fw =
                new FragmentWriter(store, schema, version, Integer.MAX_VALUE, allocator, fileOptions)) {
            try {
                for (Map.Entry<Long, int[]> e : byFragment.entrySet()) {
                    Fragment f = manifest.fragment(e.getKey()).orElseThrow();
                    int[] positions = e.getValue();
                    long[] offsets = new long[positions.length];
                    RoaringBitmap deleted = new RoaringBitmap();
                    for (int k = 0; k < positions.length; k++) {
                        offsets[k] = RowAddress.offset(rowAddresses[positions[k]]);
                        deleted.add((int) offsets[k]);
                    }
                    try (VectorSchemaRoot fresh = gather(values, positions, allocator);
                            VectorSchemaRoot rows = currentRows(files, f, schema, offsets, fresh, allocator)) {
                        fw.write(rows);
                    }
                    deletedByFragment.put(f.id(), deleted);
                }
                // The rows were checked live, so every fragment gets a new deletion vector (or goes).
                DeletionStager.Staged deletions =
                        DeletionStager.stage(store, files, byId(manifest), manifest.version(), deletedByFragment);
                written.addAll(deletions.writtenPaths());
                updated.addAll(deletions.updated().values());
                removed.addAll(deletions.removed());
                List<Fragment> fresh = fw.finish();
                written.addAll(fw.writtenPaths());
                int[] modified = Arrays.stream(fieldIds)
                        .flatMap(id -> Arrays.stream(OverlayFields.subtreeIds(schema.requireField(id))))
                        .toArray();
                return new StagedWrite(Operation.Update.rewriteRows(removed, updated, fresh, modified), written);
            } catch (IOException | RuntimeException ex) {
                StagedWrite.discard(store, written);
                throw ex;
            }
        }
    }

    private static Map<Long, Fragment> byId(Manifest manifest) {
        Map<Long, Fragment> out = new LinkedHashMap<>();
        for (Fragment f : manifest.fragments()) {
            out.put(f.id(), f);
        }
        return out;
    }

    /** The current rows at {@code offsets} (overlays applied) with the updated columns replaced. */
    private static VectorSchemaRoot currentRows(
            TableFiles files,
            Fragment f,
            LanceSchema schema,
            long[] offsets,
            VectorSchemaRoot fresh,
            BufferAllocator allocator)
            throws IOException {
        List<FieldVector> out = new ArrayList<>();
        try (FragmentReader reader = new FragmentReader(files, f, allocator)) {
            for (LanceField field : schema.fields()) {
                FieldVector replacement = fresh.getVector(field.name());
                if (replacement == null) {
                    out.add(reader.read(field, offsets));
                } else {
                    FieldVector v = field.toArrow().createVector(allocator);
                    out.add(v);
                    v.allocateNew();
                    for (int r = 0; r < offsets.length; r++) {
                        v.copyFromSafe(r, r, replacement);
                    }
                    v.setValueCount(offsets.length);
                }
            }
        } catch (IOException | RuntimeException e) {
            out.forEach(FieldVector::close);
            throw e;
        }
        VectorSchemaRoot root = new VectorSchemaRoot(out);
        root.setRowCount(offsets.length);
        return root;
    }

    /** The rows {@code positions} of {@code values}, in that order, as a new root the caller closes. */
    static VectorSchemaRoot gather(VectorSchemaRoot values, int[] positions, BufferAllocator allocator) {
        List<FieldVector> out = new ArrayList<>();
        try {
            for (FieldVector src : values.getFieldVectors()) {
                FieldVector v = src.getField().createVector(allocator);
                out.add(v);
                v.allocateNew();
                for (int r = 0; r < positions.length; r++) {
                    v.copyFromSafe(positions[r], r, src);
                }
                v.setValueCount(positions.length);
            }
        } catch (RuntimeException e) {
            out.forEach(FieldVector::close);
            throw e;
        }
        VectorSchemaRoot root = new VectorSchemaRoot(out);
        root.setRowCount(positions.length);
        return root;
    }
}
