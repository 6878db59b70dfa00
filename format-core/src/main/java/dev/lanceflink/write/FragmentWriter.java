package dev.lanceflink.write;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.file.FileVersion;
import dev.lanceflink.file.writer.FileWriteSummary;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.file.writer.LanceFileWriter;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.schema.LanceSchema;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.Fragment;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Writes rows into new fragments (one data file each) without committing anything: the result
 * goes into an {@code Append} or {@code Overwrite} transaction. A file is closed when it reaches
 * {@code maxRowsPerFile} rows. If the writer is closed without {@link #finish()}, the files it
 * wrote since the last {@link #flush()} are deleted (they were never referenced, so this is only
 * tidiness).
 *
 * <p>Each new file takes over the page buffers of the file finished before it
 * ({@link LanceFileWriter#next}), so a long-lived writer that is {@link #flush() flushed} at
 * every checkpoint keeps about one page of buffer per column instead of growing new buffers per
 * file.
 */
public final class FragmentWriter implements AutoCloseable {
    private final ObjectStore store;
    private final LanceSchema schema;
    private final FileVersion version;
    private final long maxRowsPerFile;
    private final BufferAllocator allocator;
    private final FileWriterOptions fileOptions;
    private final Supplier<String> fileNames;
    /** Fragments finished since the last {@link #flush()}. */
    private final List<Fragment> fragments = new ArrayList<>();

    private final List<String> writtenPaths = new ArrayList<>();
    /** Paths before this index in {@link #writtenPaths} were handed out by {@link #flush()}. */
    private int flushedPaths;

    private LanceFileWriter current;
    /** The last finished file's writer, whose page buffers the next file takes over. */
    private LanceFileWriter lastFinished;

    private String currentName;
    private long currentRows;
    private boolean finished;
    private List<Fragment> finishedFragments = List.of();

    public FragmentWriter(
            ObjectStore store,
            LanceSchema schema,
            FileVersion version,
            long maxRowsPerFile,
            BufferAllocator allocator,
            FileWriterOptions fileOptions) {
        this(store, schema, version, maxRowsPerFile, allocator, fileOptions, DataFileNames::newName);
    }

    /**
     * As the other constructor, naming each new data file (under {@code data/}) with the next name
     * {@code fileNames} gives. A caller that must find its files again in a later manifest (the
     * Flink upsert sink resolves rows it wrote by file name) chooses the names; they must be
     * unique in the table and end in {@code .lance}.
     */
    public FragmentWriter(
            ObjectStore store,
            LanceSchema schema,
            FileVersion version,
            long maxRowsPerFile,
            BufferAllocator allocator,
            FileWriterOptions fileOptions,
            Supplier<String> fileNames) {
        this.fileNames = requireNonNull(fileNames, "fileNames is null");
        this.store = requireNonNull(store, "store is null");
        this.schema = requireNonNull(schema, "schema is null");
        this.version = requireNonNull(version, "version is null");
        if (maxRowsPerFile < 1) {
            throw new IllegalArgumentException("maxRowsPerFile must be positive, got " + maxRowsPerFile);
        }
        this.maxRowsPerFile = maxRowsPerFile;
        this.allocator = requireNonNull(allocator, "allocator is null");
        this.fileOptions = requireNonNull(fileOptions, "fileOptions is null");
    }

    /** Appends a batch whose columns are the schema's top-level fields, in order. */
    public void write(VectorSchemaRoot batch) throws IOException {
        if (finished) {
            throw new IllegalStateException("the fragment writer is finished; start a new one for more rows");
        }
        int rows = batch.getRowCount();
        int done = 0;
        while (done < rows) {
            if (current == null) {
                currentName = fileNames.get();
                String path = "data/" + currentName;
                writtenPaths.add(path);
                current = lastFinished != null
                        ? lastFinished.next(path)
                        : LanceFileWriter.create(store, path, schema, version, allocator, fileOptions);
                lastFinished = null;
                currentRows = 0;
            }
            int n = (int) Math.min(rows - done, maxRowsPerFile - currentRows);
            if (done == 0 && n == rows) {
                current.write(batch);
            } else {
                try (VectorSchemaRoot slice = batch.slice(done, n)) {
                    current.write(slice);
                }
            }
            done += n;
            currentRows += n;
            if (currentRows == maxRowsPerFile) {
                closeCurrent();
            }
        }
    }

    private void closeCurrent() throws IOException {
        LanceFileWriter file = current;
        current = null;
        FileWriteSummary s = file.finish();
        lastFinished = file;
        DataFile data = new DataFile(
                currentName,
                s.fieldIds(),
                s.columnIndices(),
                s.fileMajorVersion(),
                s.fileMinorVersion(),
                s.sizeBytes());
        fragments.add(Fragment.of(0, List.of(data), s.numRows()));
    }

    /**
     * Closes the open file and returns the fragments written since the last flush (ids 0:
     * assigned at commit); the writer stays open for more rows, in new files. The returned
     * fragments' files belong to the caller from now on: {@link #close()} no longer deletes them.
     */
    public List<Fragment> flush() throws IOException {
        if (finished) {
            throw new IllegalStateException("the fragment writer is finished");
        }
        if (current != null && currentRows > 0) {
            closeCurrent();
        } else if (current != null) {
            current.close();
            current = null;
        }
        List<Fragment> out = List.copyOf(fragments);
        fragments.clear();
        flushedPaths = writtenPaths.size();
        return out;
    }

    /**
     * Closes the last file and returns the fragments written since the last {@link #flush()}
     * (again the same ones if called twice); no rows can be written afterwards.
     */
    public List<Fragment> finish() throws IOException {
        if (!finished) {
            finishedFragments = flush();
            finished = true;
            lastFinished = null;
        }
        return finishedFragments;
    }

    /** Paths (relative to the store root) of every data file this writer created. */
    public List<String> writtenPaths() {
        return List.copyOf(writtenPaths);
    }

    @Override
    public void close() {
        lastFinished = null;
        if (current != null) {
            current.close();
            current = null;
        }
        if (!finished) {
            for (String path : writtenPaths.subList(flushedPaths, writtenPaths.size())) {
                try {
                    store.delete(path);
                } catch (IOException ignored) {
                    // unreferenced garbage either way; cleanup removes it later
                }
            }
        }
    }
}
