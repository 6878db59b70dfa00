package dev.lanceflink.file.writer;

import dev.lanceflink.file.FileVersion;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;

/**
 * Writes one top-level field of a 2.1 or 2.2 file: one column per leaf (structs and lists fold into
 * the leaves' rep/def levels). Each leaf buffers its own page and cuts it when it reaches the
 * target size, so leaves of one field may have different page boundaries, as in Lance.
 */
final class StructuralFieldWriter {
    /**
     * Level entries after which a page is cut whatever its size: full-zip counts items in a
     * u32 and the page buffers are Java arrays, so pages of tiny values (booleans, empty lists)
     * must not grow without bound.
     */
    static final int MAX_PAGE_LEVELS = 1 << 26;

    private final List<LeafPage> leaves = new ArrayList<>();
    private final List<ColumnPages> columns = new ArrayList<>();
    private final FileWriterOptions options;
    /** The file's version: the page encoding differs between 2.1 and 2.2. */
    private final FileVersion version;

    private long rows;

    /** @param encoded the page encoders' output buffer, shared by all fields of the file */
    StructuralFieldWriter(WriterField top, FileVersion version, FileWriterOptions options, EncodeBuffer encoded) {
        this.options = options;
        this.version = version;
        for (LeafPath path : LeafPath.leavesOf(top)) {
            leaves.add(new LeafPage(path, encoded));
            columns.add(new ColumnPages());
        }
    }

    /**
     * The same field for the next file, taking over the page buffers of {@code finished} (whose
     * pages {@link #finish} emptied): a writer that rolls files keeps buffers grown to page size
     * instead of growing new ones per file, which also spares the garbage collector from copying
     * them while they are young.
     */
    StructuralFieldWriter(StructuralFieldWriter finished) {
        this.options = finished.options;
        this.version = finished.version;
        for (LeafPage page : finished.leaves) {
            if (!page.isEmpty()) {
                throw new IllegalStateException("the previous file still buffers rows of leaf " + page.leaf.name());
            }
            leaves.add(page);
            columns.add(new ColumnPages());
        }
    }

    long rows() {
        return rows;
    }

    List<LeafPath> leafPaths() {
        List<LeafPath> out = new ArrayList<>(leaves.size());
        for (LeafPage p : leaves) {
            out.add(p.path);
        }
        return out;
    }

    List<ColumnPages> columns() {
        return columns;
    }

    void append(FieldVector vector, int start, int end, FileSink sink) throws IOException {
        int step = options.rowsPerSlice();
        for (int c = 0; c < leaves.size(); c++) {
            LeafPage page = leaves.get(c);
            for (int s = start; s < end; s += step) {
                page.appendRows(vector, s, Math.min(end, s + step));
                if (page.estimatedBytes() >= options.targetPageBytes() || page.numLevels() >= MAX_PAGE_LEVELS) {
                    flush(c, sink);
                }
            }
        }
        rows += end - start;
    }

    void finish(FileSink sink) throws IOException {
        for (int c = 0; c < leaves.size(); c++) {
            flush(c, sink);
        }
    }

    private void flush(int c, FileSink sink) throws IOException {
        LeafPage page = leaves.get(c);
        if (page.isEmpty()) {
            return;
        }
        columns.get(c).write(sink, StructuralPageEncoder.encode(page, options, version));
        page.reset();
    }
}
