package dev.lanceflink.encoding.v20;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.lanceflink.io.RangeReader;
import java.util.Arrays;
import lance.encodings.ArrayEncoding;
import lance.file.v2.ColumnMetadata;

/**
 * One column of a 2.0 file seen as a sequence of pages: where each page starts in the column's
 * row space, and (decoded on first use) each page's {@link ArrayEncoding}.
 *
 * <p>Row positions come from the cumulative {@code Page.length}, not from {@code priority}:
 * item columns of lists count items, and their {@code priority} is not a position in that space.
 */
final class ColumnPages {
    private static final String ARRAY_ENCODING_TYPE = "lance.encodings.ArrayEncoding";

    private final ColumnMetadata meta;
    private final String where;
    /** pageStart[p] = first row of page p; pageStart[pageCount] = rows in the column. */
    private final long[] pageStart;

    private final ArrayEncoding[] encodings;

    ColumnPages(ColumnMetadata meta, String where) {
        this.meta = meta;
        this.where = where;
        int n = meta.getPagesCount();
        this.pageStart = new long[n + 1];
        for (int p = 0; p < n; p++) {
            pageStart[p + 1] = pageStart[p] + meta.getPages(p).getLength();
        }
        this.encodings = new ArrayEncoding[n];
    }

    /** Human-readable location for error messages, e.g. {@code field 'l' (id 5), column 1 of 2}. */
    String where() {
        return where;
    }

    long numRows() {
        return pageStart[pageStart.length - 1];
    }

    int pageCount() {
        return encodings.length;
    }

    long pageStart(int page) {
        return pageStart[page];
    }

    long pageLength(int page) {
        return pageStart[page + 1] - pageStart[page];
    }

    /** The page holding {@code row}; {@code row} must be in {@code [0, numRows())}. */
    int pageOf(long row) {
        int i = Arrays.binarySearch(pageStart, row);
        if (i >= 0) {
            // Skip empty pages that start at the same row.
            while (i + 1 < pageStart.length && pageStart[i + 1] == row) {
                i++;
            }
            return i;
        }
        return -i - 2;
    }

    /** Fails unless {@code [start, end)} lies inside the column. */
    void checkRange(long start, long end) throws V20DecodeException {
        if (start < 0 || end < start || end > numRows()) {
            throw new V20DecodeException(where + ": requested rows [" + start + ", " + end + ") but the column has "
                    + numRows() + " rows (sum of its page lengths)");
        }
    }

    ArrayEncoding encoding(int page) throws V20DecodeException {
        ArrayEncoding e = encodings[page];
        if (e == null) {
            e = parseEncoding(page);
            encodings[page] = e;
        }
        return e;
    }

    PageBuffers buffers(int page, RangeReader data) {
        return new PageBuffers(meta, meta.getPages(page), data, where + ", page " + page);
    }

    private ArrayEncoding parseEncoding(int page) throws V20DecodeException {
        ColumnMetadata.Page p = meta.getPages(page);
        String at = where + ", page " + page;
        if (!p.hasEncoding()) {
            throw new V20DecodeException(at + ": the page has no encoding");
        }
        switch (p.getEncoding().getLocationCase()) {
            case DIRECT:
                break;
            case INDIRECT:
                throw new V20DecodeException(
                        at + ": the page encoding is stored indirectly (DeferredEncoding at offset "
                                + p.getEncoding().getIndirect().getBufferLocation()
                                + "); Lance never writes that and this reader does not support it");
            default:
                throw new V20DecodeException(
                        at + ": the page encoding is '" + p.getEncoding().getLocationCase()
                                + "'; a 2.0 page needs a direct lance.encodings.ArrayEncoding");
        }
        try {
            Any any = Any.parseFrom(p.getEncoding().getDirect().getEncoding());
            String url = any.getTypeUrl();
            String type = url.substring(url.lastIndexOf('/') + 1);
            if (!ARRAY_ENCODING_TYPE.equals(type)) {
                throw new V20DecodeException(at + ": the page encoding has type URL '" + url + "', expected '/"
                        + ARRAY_ENCODING_TYPE + "' in a 2.0 file (is the footer version wrong?)");
            }
            return ArrayEncoding.parseFrom(any.getValue());
        } catch (InvalidProtocolBufferException e) {
            throw new V20DecodeException(
                    at + ": the page encoding is not a valid protobuf (" + e.getMessage() + "); the file is corrupt",
                    e);
        }
    }
}
