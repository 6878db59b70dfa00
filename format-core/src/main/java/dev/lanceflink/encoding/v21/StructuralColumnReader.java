package dev.lanceflink.encoding.v21;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.lanceflink.encoding.compression.CompressedDataException;
import java.io.IOException;
import lance.encodings21.PageLayout;
import org.apache.arrow.memory.ArrowBuf;

/**
 * Reads row ranges of one structural (2.1+) leaf column across its pages, opening each page
 * (and its small metadata buffers) on first use and keeping it for later reads.
 */
public final class StructuralColumnReader {
    /** Opens the buffers of one page of this column. */
    @FunctionalInterface
    public interface PageSourceFactory {
        PageBufferSource open(int page);
    }

    private static final String PAGE_LAYOUT_TYPE = "lance.encodings21.PageLayout";

    private final long[] pageFirstRows;
    private final long[] pageRows;
    private final Any[] encodings;
    private final PageSourceFactory sources;
    private final Values shape;
    private final boolean hasRep;
    private final StructuralPage[] opened;
    private final String description;

    /**
     * @param pageFirstRows first row of each page within the column
     * @param pageRows rows of each page
     * @param encodings each page's encoding Any
     * @param shape an empty builder of the leaf's value kind
     * @param hasRep whether the column's path contains a list (its levels carry repetition)
     * @param description names the column in error messages, e.g. "column 3"
     */
    public StructuralColumnReader(
            long[] pageFirstRows,
            long[] pageRows,
            Any[] encodings,
            PageSourceFactory sources,
            Values shape,
            boolean hasRep,
            String description) {
        this.description = description;
        this.pageFirstRows = pageFirstRows;
        this.pageRows = pageRows;
        this.encodings = encodings;
        this.sources = sources;
        this.shape = shape;
        this.hasRep = hasRep;
        this.opened = new StructuralPage[pageRows.length];
    }

    public long numRows() {
        int n = pageRows.length;
        return n == 0 ? 0 : pageFirstRows[n - 1] + pageRows[n - 1];
    }

    /** A fresh, empty levels builder for reads of this column. */
    public LeafLevels newLevels(int capacity) {
        return new LeafLevels(hasRep, capacity);
    }

    /** A fresh, empty values builder for reads of this column. */
    public Values newValues() {
        return shape.emptyLike();
    }

    /** Appends rows {@code [from, to)} of the column. */
    public void readRange(long from, long to, LeafLevels levels, Values values) throws IOException {
        if (from < 0 || to > numRows() || from > to) {
            throw new IndexOutOfBoundsException(
                    "rows [" + from + ", " + to + ") are outside the column's " + numRows() + " rows");
        }
        int p = pageOf(from);
        while (from < to) {
            long first = pageFirstRows[p];
            long end = Math.min(to, first + pageRows[p]);
            if (end > from) {
                try {
                    page(p).readRows(from - first, end - first, levels, values);
                } catch (EncodingException
                        | CompressedDataException
                        | IllegalArgumentException
                        | IndexOutOfBoundsException e) {
                    throw new EncodingException(
                            description + " page " + p + " (rows " + first + ".." + (first + pageRows[p]) + "): "
                                    + e.getMessage(),
                            e);
                }
            }
            from = end;
            p++;
        }
    }

    /**
     * Appends the rows of {@code sortedRows} (ascending; a repeated row is appended again), reading
     * runs of consecutive rows at once.
     */
    public void take(long[] sortedRows, LeafLevels levels, Values values) throws IOException {
        int i = 0;
        while (i < sortedRows.length) {
            int j = i + 1;
            while (j < sortedRows.length && sortedRows[j] == sortedRows[j - 1] + 1) {
                j++;
            }
            if (i > 0 && sortedRows[i] < sortedRows[i - 1]) {
                throw new IllegalArgumentException(
                        "take() rows must be ascending, but row " + sortedRows[i] + " follows " + sortedRows[i - 1]);
            }
            readRange(sortedRows[i], sortedRows[j - 1] + 1, levels, values);
            i = j;
        }
    }

    /**
     * Bytes per value if every page holding rows {@code [from, to)} is a plain fixed-width
     * full-zip page ({@link FullZipPage#isPlainFixed()}) of one width, else -1: such a range is
     * copied straight into Arrow memory by {@link #readPlainInto}.
     */
    public int plainValueBytes(long from, long to) throws IOException {
        if (from < 0 || to > numRows() || from >= to) {
            return -1;
        }
        int width = -1;
        for (int p = pageOf(from); p < pageRows.length && pageFirstRows[p] < to; p++) {
            if (pageRows[p] == 0) {
                continue;
            }
            StructuralPage page = openForRead(p);
            if (!(page instanceof FullZipPage fz) || !fz.isPlainFixed() || (width >= 0 && fz.valueBytes() != width)) {
                return -1;
            }
            width = fz.valueBytes();
        }
        return width;
    }

    /** Copies the value bytes of rows {@code [from, to)}, all in plain fixed-width pages, into {@code dst}. */
    public void readPlainInto(long from, long to, ArrowBuf dst, long dstOffset) throws IOException {
        int p = pageOf(from);
        long at = dstOffset;
        while (from < to) {
            long first = pageFirstRows[p];
            long end = Math.min(to, first + pageRows[p]);
            if (end > from) {
                FullZipPage page = (FullZipPage) openForRead(p);
                try {
                    page.readPlainInto(from - first, end - first, dst, at);
                } catch (EncodingException | IllegalArgumentException e) {
                    throw pageError(p, e);
                }
                at += (end - from) * page.valueBytes();
            }
            from = end;
            p++;
        }
    }

    private StructuralPage openForRead(int p) throws IOException {
        try {
            return page(p);
        } catch (EncodingException | CompressedDataException | IllegalArgumentException | IndexOutOfBoundsException e) {
            throw pageError(p, e);
        }
    }

    private EncodingException pageError(int p, RuntimeException e) {
        return new EncodingException(
                description + " page " + p + " (rows " + pageFirstRows[p] + ".." + (pageFirstRows[p] + pageRows[p])
                        + "): " + e.getMessage(),
                e);
    }

    private int pageOf(long row) {
        int lo = 0;
        int hi = pageRows.length - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (pageFirstRows[mid] <= row) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    /** The opened page {@code p} (opened on first use). */
    public StructuralPage page(int p) throws IOException {
        StructuralPage page = opened[p];
        if (page == null) {
            page = open(p);
            opened[p] = page;
        }
        return page;
    }

    private StructuralPage open(int p) throws IOException {
        Any any = encodings[p];
        String url = any.getTypeUrl();
        if (!url.substring(url.lastIndexOf('/') + 1).equals(PAGE_LAYOUT_TYPE)) {
            throw new EncodingException(
                    "page encoding has type URL '" + url + "', expected '/" + PAGE_LAYOUT_TYPE + "'");
        }
        PageLayout layout;
        try {
            layout = PageLayout.parseFrom(any.getValue());
        } catch (InvalidProtocolBufferException e) {
            throw new EncodingException(
                    "page encoding is not a valid lance.encodings21.PageLayout: " + e.getMessage(), e);
        }
        PageBufferSource src = sources.open(p);
        return switch (layout.getLayoutCase()) {
            case MINI_BLOCK_LAYOUT -> new MiniBlockPage(layout.getMiniBlockLayout(), src, pageRows[p], shape);
            case CONSTANT_LAYOUT -> new ConstantPage(layout.getConstantLayout(), src, pageRows[p], shape);
            case FULL_ZIP_LAYOUT -> new FullZipPage(layout.getFullZipLayout(), src, pageRows[p], shape);
            case BLOB_LAYOUT ->
                throw new EncodingException("blob pages (large binary stored out of line) are not supported");
            case SPARSE_LAYOUT ->
                throw new EncodingException(
                        "sparse pages belong to the unstable file version 2.3 and are not supported");
            default -> throw new EncodingException("page layout " + layout.getLayoutCase() + " is unknown");
        };
    }
}
