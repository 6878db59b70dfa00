package dev.lanceflink.overlay;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.schema.ColumnSet;
import dev.lanceflink.schema.LanceField;
import dev.lanceflink.schema.LanceSchema;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.RowAddress;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * Stages the data overlay file of one target without committing it (the "execute uncommitted"
 * half of an update): from the changed rows' offsets, the fields each change sets and Arrow
 * vectors of just those fields' new values, it writes the overlay file and describes it. The
 * caller commits the result (a {@code DataOverlay} group, see {@link OverlayCommits}) or, when it
 * gives up, deletes {@link StagedOverlay#writtenPath()}.
 *
 * <p>The format decisions are made here, once, for every writer of overlays:
 * <ul>
 *   <li>changes may come in any order and name an offset more than once: they are sorted by
 *       offset, and per cell the last change that sets it wins (a later change of a row leaves
 *       the cells it does not set to the earlier change);</li>
 *   <li>a field's coverage is the offsets some change sets it for; when every field ends up with
 *       the same offsets the file is dense, otherwise sparse ({@link OverlayWriter#finish});</li>
 *   <li>values may be NULL whatever the field's nullability: an overlay sets a cell to NULL by
 *       covering it with a NULL ({@link #valueField}).</li>
 * </ul>
 *
 * <p>Writers that already produce one value per cell in offset order (compaction, relocation)
 * stream through {@link #open} instead of handing over whole tables of changes; both forms end
 * in the same {@link OverlayWriter}, so they write the same file for the same cells.
 */
public final class OverlayStager {
    /**
     * Row count declared for a target whose rows are not committed yet: any offset a 32-bit row
     * address can hold is accepted, and the committer checks the coverage against the fragment.
     */
    private static final long UNKNOWN_ROWS = Integer.MAX_VALUE + 1L;

    private OverlayStager() {}

    /**
     * Where the changed rows are: a fragment of the manifest, or a data file written for the same
     * commit (the manifest does not have it yet, so its fragment id and row count are unknown).
     */
    public record Target(long fragmentId, boolean committed) {
        public static Target fragment(long fragmentId) {
            return new Target(fragmentId, true);
        }

        /** Rows of a data file not committed yet: its overlay is attached by whoever commits both. */
        public static Target uncommitted() {
            return new Target(0, false);
        }

        @Override
        public String toString() {
            return committed ? "fragment " + fragmentId : "an uncommitted data file";
        }
    }

    /**
     * The staged overlay and the file written for it.
     *
     * @param writtenPath the overlay data file, relative to the store root
     */
    public record StagedOverlay(DataOverlayFile overlay, String writtenPath) {
        public StagedOverlay {
            requireNonNull(overlay, "overlay is null");
            requireNonNull(writtenPath, "writtenPath is null");
        }
    }

    /**
     * The Arrow field values of {@code field} are given in: the table's type, NULL allowed at the
     * top (an overlay may set any cell to NULL); nested fields keep their nullability, so a NULL
     * where the table forbids one inside a value is still refused by whoever builds the vector.
     */
    public static Field valueField(LanceField field) {
        Field f = field.toArrow();
        return new Field(
                f.getName(), new FieldType(true, f.getType(), f.getDictionary(), f.getMetadata()), f.getChildren());
    }

    /**
     * Writes the overlay of {@code target} for the changes {@code 0..rowCount-1}.
     *
     * @param offsets per change, the row's offset in the target (its physical position)
     * @param values one vector per written top-level field, named as the field, row {@code i}
     *     holding change {@code i}'s value (ignored where change {@code i} does not set the field);
     *     types as {@link #valueField}; not closed here
     * @param setFields per change, the positions in {@code values} it sets; null when every change
     *     sets every field
     * @return empty when no change sets anything (no file is written)
     * @throws OverlayWriteException for a field that cannot be overlaid, a value of the wrong type
     *     or an offset past the target's end
     * @throws IllegalArgumentException for inconsistent arguments (sizes, unknown field names)
     */
    public static Optional<StagedOverlay> stage(
            ObjectStore store,
            Manifest manifest,
            Target target,
            long[] offsets,
            int rowCount,
            List<? extends FieldVector> values,
            ColumnSet[] setFields,
            BufferAllocator allocator,
            FileWriterOptions fileOptions)
            throws IOException {
        requireNonNull(store, "store is null");
        requireNonNull(manifest, "manifest is null");
        requireNonNull(target, "target is null");
        requireNonNull(offsets, "offsets is null");
        requireNonNull(values, "values is null");
        if (rowCount < 0 || rowCount > offsets.length || (setFields != null && setFields.length < rowCount)) {
            throw new IllegalArgumentException("The overlay of " + target + " has " + rowCount + " changes but "
                    + offsets.length + " offsets"
                    + (setFields == null ? "" : " and " + setFields.length + " field sets")
                    + "; give one of each per change");
        }
        LanceSchema schema = manifest.schema();
        int[] fieldIds = new int[values.size()];
        for (int k = 0; k < fieldIds.length; k++) {
            FieldVector v = values.get(k);
            if (v.getValueCount() < rowCount) {
                throw new IllegalArgumentException("Field '" + v.getField().getName() + "' of the overlay of " + target
                        + " has " + v.getValueCount() + " values for " + rowCount + " changes");
            }
            String name = v.getField().getName();
            fieldIds[k] = schema.fieldByName(name)
                    .orElseThrow(() -> new IllegalArgumentException("Overlay column '"
                            + name + "' is not a top-level column of the table "
                            + schema.fields().stream().map(LanceField::name).toList()))
                    .id();
        }
        long[] keys = new long[rowCount];
        for (int i = 0; i < rowCount; i++) {
            if (offsets[i] < 0 || offsets[i] > 0xFFFF_FFFFL) {
                throw new IllegalArgumentException("Offset " + offsets[i] + " (change " + i + ") of the overlay of "
                        + target + " is not a row offset (0 to 2^32-1)");
            }
            keys[i] = offsets[i];
        }
        int[] order = OverlayFields.orderBy(keys); // stable: equal offsets keep the changes' order
        int[][] winners = new int[fieldIds.length][];
        List<Integer> written = new ArrayList<>();
        for (int k = 0; k < fieldIds.length; k++) {
            winners[k] = lastPerOffset(order, offsets, setFields, k);
            if (winners[k].length > 0) {
                written.add(k);
            }
        }
        if (written.isEmpty()) {
            return Optional.empty();
        }
        int[] declared = written.stream().mapToInt(k -> fieldIds[k]).toArray();
        try (FieldStream stream = open(store, manifest, target, declared, allocator, fileOptions)) {
            long[] shared = null;
            int[] sharedRows = null;
            for (int k : written) {
                int[] rows = winners[k];
                long[] fieldOffsets;
                if (sharedRows != null && Arrays.equals(rows, sharedRows)) {
                    fieldOffsets = shared; // a dense overlay: one offset array for all fields
                } else {
                    fieldOffsets = new long[rows.length];
                    for (int j = 0; j < rows.length; j++) {
                        fieldOffsets[j] = offsets[rows[j]];
                    }
                    shared = fieldOffsets;
                    sharedRows = rows;
                }
                FieldVector all = values.get(k);
                if (isIdentity(rows, all.getValueCount())) {
                    stream.add(fieldIds[k], fieldOffsets, fieldOffsets.length, all);
                } else {
                    try (FieldVector selected = select(all, rows, allocator)) {
                        stream.add(fieldIds[k], fieldOffsets, fieldOffsets.length, selected);
                    }
                }
            }
            return stream.finish();
        }
    }

    /**
     * Starts the overlay of {@code target} for writers that produce each field's cells in
     * ascending offset order and must not hold them all (the compactor's overlay merge, the
     * relocation of a staged overlay after a compaction): cells are fed per field in batches of
     * (offsets, Arrow vector) through {@link FieldStream#add} and go straight to the file, so
     * memory stays bounded by a batch plus the file writer's page buffers. Dense vs sparse and
     * relaxed nullability are decided as for {@link #stage}.
     *
     * @param fieldIds the top-level fields the overlay declares (a declared field that receives no
     *     cell makes the overlay sparse, as {@link OverlayWriter#finish} decides)
     * @throws OverlayWriteException for a field that cannot be overlaid
     */
    public static FieldStream open(
            ObjectStore store,
            Manifest manifest,
            Target target,
            int[] fieldIds,
            BufferAllocator allocator,
            FileWriterOptions fileOptions) {
        requireNonNull(store, "store is null");
        requireNonNull(manifest, "manifest is null");
        requireNonNull(target, "target is null");
        OverlayWriter writer = target.committed()
                ? OverlayWriter.create(store, manifest, target.fragmentId(), fieldIds, allocator, fileOptions)
                : OverlayWriter.createForUncommittedFragment(
                        store, manifest, UNKNOWN_ROWS, fieldIds, allocator, fileOptions);
        return new FieldStream(store, target, writer);
    }

    /**
     * The overlay of one target being written field by field (see {@link #open}). Closing it
     * before {@link #finish} (or after a failure) deletes the partial file.
     */
    public static final class FieldStream implements AutoCloseable {
        private final ObjectStore store;
        private final Target target;
        private final OverlayWriter writer;
        /** Row-address bits of the target's fragment (0 for an uncommitted target). */
        private final long high;
        /** Reused for every batch: addresses are derived from offsets without a per-batch array. */
        private long[] addresses = new long[0];

        private boolean finished;

        private FieldStream(ObjectStore store, Target target, OverlayWriter writer) {
            this.store = store;
            this.target = target;
            this.writer = writer;
            this.high = target.committed() ? RowAddress.firstOf(target.fragmentId()) : 0;
        }

        /**
         * Stages new values of field {@code fieldId} for {@code count} cells: row {@code j} of
         * {@code values} (exactly {@code count} values, types as {@link #valueField}; not closed
         * here) is the value of the cell at {@code offsets[j]}. A field's offsets must strictly
         * increase across all its batches (one value per cell: a streaming writer has already
         * decided which write wins); fields may be fed in any order.
         *
         * @throws OverlayWriteException for an undeclared field, a value of the wrong type, an
         *     offset past the target's end or out of order; the stream is then unusable
         * @throws IllegalArgumentException for an offset that is no row offset (0 to 2^32-1)
         */
        public void add(int fieldId, long[] offsets, int count, FieldVector values) throws IOException {
            requireNonNull(offsets, "offsets is null");
            requireNonNull(values, "values is null");
            if (count < 0 || count > offsets.length) {
                throw new IllegalArgumentException("The overlay of " + target + " got " + count + " cells of field id "
                        + fieldId + " but only " + offsets.length + " offsets");
            }
            if (addresses.length < count) {
                addresses = new long[Math.max(count, addresses.length * 2)];
            }
            for (int j = 0; j < count; j++) {
                long o = offsets[j];
                if (o < 0 || o > 0xFFFF_FFFFL) {
                    throw new IllegalArgumentException("Offset " + o + " (cell " + j + " of field id " + fieldId
                            + ") of the overlay of " + target + " is not a row offset (0 to 2^32-1)");
                }
                addresses[j] = high | o;
            }
            writer.writeField(fieldId, addresses, count, values);
        }

        /**
         * Writes the file and describes it ({@code committed_version} 0, stamped at commit).
         * Empty when no cell was staged: then no file exists. On failure the file is deleted.
         */
        public Optional<StagedOverlay> finish() throws IOException {
            try {
                Optional<DataOverlayFile> done = writer.finish();
                finished = true;
                return done.map(o -> new StagedOverlay(o, writer.writtenPath().orElseThrow()));
            } catch (IOException | RuntimeException e) {
                discard();
                throw e;
            }
        }

        /** Abandons the overlay unless {@link #finish} succeeded: nothing is left in the store. */
        @Override
        public void close() {
            writer.close();
            if (!finished) {
                discard();
            }
        }

        private void discard() {
            // The file writer removes an unfinished file itself; a file that finish() published
            // before failing is no longer its to remove.
            writer.writtenPath().ifPresent(p -> StagedWrite.discard(store, List.of(p)));
        }
    }

    /**
     * The changes that give field {@code k} its values, in ascending offset order: per offset the
     * last change in {@code order} (stable by arrival) that sets the field.
     */
    private static int[] lastPerOffset(int[] order, long[] offsets, ColumnSet[] setFields, int k) {
        int[] out = new int[order.length];
        int m = 0;
        for (int i : order) {
            if (setFields != null && !setFields[i].contains(k)) {
                continue;
            }
            if (m > 0 && offsets[out[m - 1]] == offsets[i]) {
                out[m - 1] = i; // the later change wins
            } else {
                out[m++] = i;
            }
        }
        return m == out.length ? out : Arrays.copyOf(out, m);
    }

    private static boolean isIdentity(int[] rows, int valueCount) {
        if (rows.length != valueCount) {
            return false;
        }
        for (int j = 0; j < rows.length; j++) {
            if (rows[j] != j) {
                return false;
            }
        }
        return true;
    }

    /** Rows {@code rows} of {@code all}, in that order, as a new vector the caller closes. */
    private static FieldVector select(FieldVector all, int[] rows, BufferAllocator allocator) {
        FieldVector out = all.getField().createVector(allocator);
        try {
            out.setInitialCapacity(rows.length);
            out.allocateNew();
            for (int j = 0; j < rows.length; j++) {
                out.copyFromSafe(rows[j], j, all);
            }
            out.setValueCount(rows.length);
            return out;
        } catch (RuntimeException e) {
            out.close();
            throw e;
        }
    }
}
