package dev.lanceflink.compact;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.deletion.DeletionFiles;
import dev.lanceflink.deletion.DeletionVector;
import dev.lanceflink.file.FileVersion;
import dev.lanceflink.file.writer.FileWriteSummary;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.file.writer.LanceFileWriter;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.overlay.StagedWrite;
import dev.lanceflink.read.FragmentReader;
import dev.lanceflink.schema.LanceField;
import dev.lanceflink.schema.LanceSchema;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.RowIdMeta;
import dev.lanceflink.table.TableFiles;
import dev.lanceflink.txn.Operation;
import dev.lanceflink.write.DataFileNames;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Row-rewriting compaction of one group of neighbouring fragments (overlays.md §7.3, Lance's
 * {@code compact_files}): every live row of the group, in table order and with its data overlay
 * files resolved, is written into new data files of the table's file version; deleted rows are
 * dropped. The result is staged as one {@code Rewrite} group (old fragments → new fragments),
 * never committed here.
 *
 * <p>What carries over and what does not:
 * <ul>
 *   <li>Values: exactly the values a reader sees (overlays applied, deletions removed). The new
 *       fragments carry no overlays and no deletion file.
 *   <li>Row ids: with stable row ids (feature flag 2) every new fragment carries the stable ids of
 *       its rows, in order, and the rows' created-at / last-updated-at versions; without stable
 *       row ids the rows get new addresses, which is why the commit is a {@code Rewrite}.
 *   <li>Indices: not touched here; the {@code Rewrite} commit takes the old fragments out of every
 *       index's {@code fragment_bitmap} (readers scan the new fragments until an index is rebuilt).
 * </ul>
 *
 * <p>Output sizing follows Lance: {@code max(1, live / targetRowsPerFragment)} new fragments with
 * the live rows spread evenly (sizes differ by at most one row), so a group slightly above the
 * target stays one fragment instead of leaving a small tail.
 */
public final class FragmentRewriter {
    /**
     * Rows read per step. All columns of this many rows are held at once, so it bounds memory for
     * wide rows (8192 rows of a 1536-dim float vector are 48 MiB); page sizes are unaffected, the
     * file writer buffers pages by bytes across steps.
     */
    static final int CHUNK_ROWS = 8_192;

    private FragmentRewriter() {}

    /**
     * Rewrites the fragments {@code fragmentIds} of {@code manifest} (in the given order, which
     * should be their table order) into new fragments.
     *
     * @param targetRowsPerFragment rows per new fragment the output is sized for
     * @return the staged {@code Rewrite} (new fragment ids 0 = assigned at commit) and the files
     *     written; with no surviving row the group has no new fragments and no file is written
     * @throws IllegalArgumentException if a fragment does not exist, is named twice, or the table's
     *     data format cannot be written by this library
     */
    public static StagedWrite rewrite(
            ObjectStore store,
            Manifest manifest,
            List<Long> fragmentIds,
            long targetRowsPerFragment,
            BufferAllocator allocator,
            FileWriterOptions fileOptions)
            throws IOException {
        requireNonNull(store, "store is null");
        requireNonNull(manifest, "manifest is null");
        requireNonNull(allocator, "allocator is null");
        requireNonNull(fileOptions, "fileOptions is null");
        if (targetRowsPerFragment < 1) {
            throw new IllegalArgumentException("targetRowsPerFragment must be >= 1, got " + targetRowsPerFragment);
        }
        List<Fragment> old = fragments(manifest, fragmentIds);
        FileVersion version = fileVersion(manifest);
        // The old fragments are read where the manifest says (base paths); the new ones are written to the root.
        try (TableFiles files = TableFiles.of(store, manifest)) {
            return rewrite(files, manifest, old, version, targetRowsPerFragment, allocator, fileOptions);
        }
    }

    private static StagedWrite rewrite(
            TableFiles files,
            Manifest manifest,
            List<Fragment> old,
            FileVersion version,
            long targetRowsPerFragment,
            BufferAllocator allocator,
            FileWriterOptions fileOptions)
            throws IOException {
        ObjectStore store = files.root();

        // Pass 1: deletion vectors and the exact number of surviving rows (the deletion file's
        // num_deleted_rows may be 0 = unknown, so count from the vectors themselves).
        List<DeletionVector> deletions = new ArrayList<>(old.size());
        long surviving = 0;
        for (Fragment f : old) {
            if (f.physicalRows() <= 0 || f.physicalRows() > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("Fragment " + f.id() + " of " + store.rootUri()
                        + " has physical_rows = " + f.physicalRows() + "; a rewrite needs the exact row count"
                        + " (at most 2^31-1)");
            }
            DeletionVector dv = f.deletionFile() == null
                    ? DeletionVector.EMPTY
                    : DeletionFiles.read(files, f.id(), f.deletionFile());
            deletions.add(dv);
            long deleted = dv.isEmpty() ? 0 : dv.toBitmap().rangeCardinality(0, f.physicalRows());
            surviving += f.physicalRows() - deleted;
        }
        long[] outputSizes = outputSizes(surviving, targetRowsPerFragment);

        RowLineage lineage = RowLineage.forGroup(manifest.usesStableRowIds(), surviving);
        if (lineage != null) {
            for (int i = 0; i < old.size(); i++) {
                lineage.add(store, old.get(i), deletions.get(i));
            }
        }

        OutputFiles out = new OutputFiles(store, manifest.schema(), version, allocator, fileOptions, outputSizes);
        try {
            for (int i = 0; i < old.size(); i++) {
                copyLiveRows(files, old.get(i), deletions.get(i), manifest.schema(), allocator, out);
            }
            List<Fragment> fresh = out.finish(lineage);
            Operation.Rewrite op = new Operation.Rewrite(List.of(new Operation.RewriteGroup(old, fresh)));
            return new StagedWrite(op, out.writtenPaths());
        } catch (IOException | RuntimeException e) {
            out.abort();
            throw e;
        }
    }

    /**
     * Sizes of the new fragments for {@code surviving} rows: {@code max(1, surviving / target)}
     * fragments, the first {@code surviving % count} one row larger; none for no rows.
     */
    static long[] outputSizes(long surviving, long target) {
        if (surviving == 0) {
            return new long[0];
        }
        long count = Math.max(1, surviving / target);
        if (count > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException(surviving + " rows at " + target + " rows per fragment is too many"
                    + " fragments for one rewrite group");
        }
        long base = surviving / count;
        long larger = surviving % count;
        long[] sizes = new long[(int) count];
        for (int i = 0; i < sizes.length; i++) {
            sizes[i] = base + (i < larger ? 1 : 0);
        }
        return sizes;
    }

    private static void copyLiveRows(
            TableFiles files,
            Fragment f,
            DeletionVector deleted,
            LanceSchema schema,
            BufferAllocator allocator,
            OutputFiles out)
            throws IOException {
        long[] chunk = new long[(int) Math.min(CHUNK_ROWS, f.physicalRows())];
        try (FragmentReader reader = new FragmentReader(files, f, allocator)) {
            for (long start = 0; start < f.physicalRows(); start += CHUNK_ROWS) {
                long end = Math.min(f.physicalRows(), start + CHUNK_ROWS);
                int n = 0;
                for (long o = start; o < end; o++) {
                    if (deleted.isEmpty() || !deleted.contains((int) o)) {
                        chunk[n++] = o;
                    }
                }
                int done = 0;
                while (done < n) {
                    int take = (int) Math.min(n - done, out.remainingInCurrent());
                    long[] offsets =
                            done == 0 && take == chunk.length ? chunk : Arrays.copyOfRange(chunk, done, done + take);
                    out.write(read(reader, schema, offsets, allocator), take);
                    done += take;
                }
            }
        }
    }

    /** All top-level fields at {@code offsets}, as a root the caller closes. */
    private static VectorSchemaRoot read(
            FragmentReader reader, LanceSchema schema, long[] offsets, BufferAllocator allocator) throws IOException {
        List<FieldVector> vectors = new ArrayList<>(schema.fields().size());
        try {
            for (LanceField field : schema.fields()) {
                vectors.add(reader.read(field, offsets));
            }
            VectorSchemaRoot root = new VectorSchemaRoot(vectors);
            root.setRowCount(offsets.length);
            return root;
        } catch (IOException | RuntimeException e) {
            vectors.forEach(FieldVector::close);
            throw e;
        }
    }

    private static List<Fragment> fragments(Manifest manifest, List<Long> ids) {
        if (ids.isEmpty()) {
            throw new IllegalArgumentException("A rewrite group needs at least one fragment");
        }
        Set<Long> seen = new HashSet<>();
        List<Fragment> out = new ArrayList<>(ids.size());
        for (long id : ids) {
            if (!seen.add(id)) {
                throw new IllegalArgumentException("Fragment " + id + " is named twice in one rewrite group " + ids);
            }
            Fragment f = manifest.fragment(id)
                    .orElseThrow(() -> new IllegalArgumentException("Version "
                            + manifest.version() + " of the table has no fragment " + id
                            + " to rewrite; plan again on the"
                            + " latest version"));
            f.checkOverlayOrder();
            out.add(f);
        }
        return out;
    }

    private static FileVersion fileVersion(Manifest manifest) {
        if (manifest.dataFormat() == null) {
            throw new IllegalArgumentException("Version " + manifest.version() + " of the table records no data_format;"
                    + " the file version of the rewritten data files cannot be chosen");
        }
        String v = manifest.dataFormat().version();
        if (v.startsWith("0.") || v.equalsIgnoreCase("legacy")) {
            throw new IllegalArgumentException("The table uses the legacy data format " + v + "; this library writes"
                    + " only Lance file versions 2.0, 2.1 and 2.2, so its fragments cannot be rewritten here");
        }
        return FileVersion.parse(v);
    }

    /** The new data files of one group, filled in order to their planned sizes. */
    private static final class OutputFiles {
        private final ObjectStore store;
        private final LanceSchema schema;
        private final FileVersion version;
        private final BufferAllocator allocator;
        private final FileWriterOptions options;
        private final long[] sizes;
        private final List<String> paths = new ArrayList<>();
        private final List<DataFile> files = new ArrayList<>();
        private LanceFileWriter current;
        private String currentName;
        private long currentRows;

        OutputFiles(
                ObjectStore store,
                LanceSchema schema,
                FileVersion version,
                BufferAllocator allocator,
                FileWriterOptions options,
                long[] sizes) {
            this.store = store;
            this.schema = schema;
            this.version = version;
            this.allocator = allocator;
            this.options = options;
            this.sizes = sizes;
        }

        /** Rows the file being filled still takes (opening the next file if needed). */
        long remainingInCurrent() throws IOException {
            if (current == null) {
                int index = files.size();
                if (index >= sizes.length) {
                    throw new IllegalStateException("More live rows than counted when the rewrite was sized ("
                            + Arrays.stream(sizes).sum() + "); a deletion file changed while it was being read");
                }
                currentName = DataFileNames.newName();
                String path = "data/" + currentName;
                paths.add(path);
                current = LanceFileWriter.create(store, path, schema, version, allocator, options);
                currentRows = 0;
            }
            return sizes[files.size()] - currentRows;
        }

        /** Writes and closes {@code batch} ({@code rows} rows, never more than {@link #remainingInCurrent}). */
        void write(VectorSchemaRoot batch, int rows) throws IOException {
            try (batch) {
                current.write(batch);
            }
            currentRows += rows;
            if (currentRows == sizes[files.size()]) {
                FileWriteSummary s = current.finish();
                current = null;
                if (s.numRows() != currentRows) {
                    throw new IllegalStateException("Data file " + currentName + " holds " + s.numRows() + " rows but "
                            + currentRows + " were written to it");
                }
                files.add(new DataFile(
                        currentName,
                        s.fieldIds(),
                        s.columnIndices(),
                        s.fileMajorVersion(),
                        s.fileMinorVersion(),
                        s.sizeBytes()));
            }
        }

        List<Fragment> finish(RowLineage lineage) {
            if (current != null || files.size() != sizes.length) {
                throw new IllegalStateException("The rewrite wrote " + files.size() + " of " + sizes.length
                        + " planned data files; fewer live rows than counted (a deletion file changed while it was"
                        + " being read)");
            }
            List<Fragment> out = new ArrayList<>(files.size());
            int from = 0;
            for (int i = 0; i < files.size(); i++) {
                int rows = (int) sizes[i];
                RowIdMeta meta = lineage == null ? RowIdMeta.NONE : lineage.slice(from, rows);
                out.add(new Fragment(0, List.of(files.get(i)), null, rows, meta, List.of()));
                from += rows;
            }
            if (lineage != null && from != lineage.size()) {
                throw new IllegalStateException(
                        "The rewrite wrote " + from + " rows but collected the lineage of " + lineage.size());
            }
            return out;
        }

        List<String> writtenPaths() {
            return List.copyOf(paths);
        }

        /** Drops the file being written and deletes every file written so far. */
        void abort() {
            if (current != null) {
                current.close();
                current = null;
            }
            for (String p : paths) {
                try {
                    store.delete(p);
                } catch (IOException | RuntimeException ignored) {
                    // never referenced by any version; table cleanup removes it later
                }
            }
        }
    }
}
