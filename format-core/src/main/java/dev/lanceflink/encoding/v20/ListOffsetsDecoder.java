package dev.lanceflink.encoding.v20;

import dev.lanceflink.io.RangeReader;
import java.io.IOException;
import java.util.List;
import lance.encodings.ArrayEncoding;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;

/**
 * Decodes the offsets column of a 2.0 list field ({@code ArrayEncoding.list}) into Arrow list
 * offsets and validity, and reports which item rows the requested lists cover.
 *
 * <p>Semantics (file-format.md §7.2, confirmed by Lance's 2.0 list decoder): every offsets page
 * restarts at item 0; its {@code num_items} items follow those of the previous pages in the item
 * column. Offsets are u64 end positions without a leading 0. A null list stores
 * {@code previous end + null_offset_adjustment}, so a stored value is null iff it is
 * {@code ≥ null_offset_adjustment} and its end position is the stored value modulo the
 * adjustment.
 */
final class ListOffsetsDecoder implements AutoCloseable {
    /** Item rows {@code [start, end)} of the item column referenced by the decoded lists. */
    record ItemRange(long start, long end) {
        long count() {
            return end - start;
        }
    }

    final long rows;
    final int offsetWidth;
    final ArrowBuf validity;
    final ArrowBuf offsets;

    private ListOffsetsDecoder(long rows, int offsetWidth, ArrowBuf validity, ArrowBuf offsets) {
        this.rows = rows;
        this.offsetWidth = offsetWidth;
        this.validity = validity;
        this.offsets = offsets;
    }

    static ListOffsetsDecoder allocate(FieldVector listVector, long rows, BufferAllocator allocator) {
        int width = listVector instanceof LargeListVector ? 8 : 4;
        ArrowBuf validity = FixedWidthTarget.zeroed(allocator, (rows + 7) / 8);
        try {
            return new ListOffsetsDecoder(
                    rows, width, validity, FixedWidthTarget.zeroed(allocator, (rows + 1) * width));
        } catch (RuntimeException e) {
            validity.close();
            throw e;
        }
    }

    /**
     * Decodes lists {@code [start, end)} of the column; returns the item rows they reference.
     */
    ItemRange decode(ColumnPages col, RangeReader data, long start, long end) throws IOException {
        col.checkRange(start, end);
        if (start == end) {
            return new ItemRange(0, 0);
        }
        long itemsBefore = 0;
        int firstPage = col.pageOf(start);
        for (int p = 0; p < firstPage; p++) {
            itemsBefore += listEncoding(col, p).getNumItems();
        }
        long rangeStart = -1;
        long runningEnd = -1;
        long out = 0;
        for (int p = firstPage; p < col.pageCount() && col.pageStart(p) < end; p++) {
            lance.encodings.List list = listEncoding(col, p);
            long ps = col.pageStart(p);
            long a = Math.max(start, ps) - ps;
            long b = Math.min(end, ps + col.pageLength(p)) - ps;
            long count = b - a;
            if (count > 0) {
                PageBuffers page = col.buffers(p, data);
                int skip = a > 0 ? 1 : 0;
                long[] stored =
                        FixedWidthDecoder.readUnsigned(list.getOffsets(), page, a - skip, count + skip, "list offsets");
                long adj = list.getNullOffsetAdjustment();
                long first = itemsBefore + (skip == 1 ? mod(stored[0], adj) : 0);
                if (rangeStart < 0) {
                    rangeStart = first;
                    runningEnd = first;
                } else if (first != runningEnd) {
                    throw new V20DecodeException(page.where() + ": the first list of the page starts at item " + first
                            + " but the previous page's lists end at item " + runningEnd
                            + "; the list items are not contiguous (num_items of an earlier page is wrong?)");
                }
                for (int i = 0; i < count; i++) {
                    long s = stored[skip + i];
                    boolean valid = adj == 0 || Long.compareUnsigned(s, adj) < 0;
                    long e = itemsBefore + mod(s, adj);
                    if (e < runningEnd) {
                        throw new V20DecodeException(
                                page.where() + ": list offset of page row " + (a + i) + " ends at item " + e
                                        + ", before the previous list's end " + runningEnd + "; the page is corrupt");
                    }
                    runningEnd = e;
                    setOffset(out + i + 1, e - rangeStart, page);
                    if (valid) {
                        BitVectorHelper.setBit(validity, out + i);
                    }
                }
                out += count;
            }
            itemsBefore += list.getNumItems();
        }
        return new ItemRange(rangeStart, runningEnd);
    }

    private static long mod(long stored, long adj) {
        return adj == 0 ? stored : Long.remainderUnsigned(stored, adj);
    }

    private void setOffset(long index, long value, PageBuffers page) throws V20DecodeException {
        if (offsetWidth == 4) {
            if (value > Integer.MAX_VALUE) {
                throw new V20DecodeException(page.where() + ": the requested lists hold more than 2^31-1 items, more"
                        + " than a list vector with 32-bit offsets can address; read fewer rows at a time");
            }
            offsets.setInt(index * 4, (int) value);
        } else {
            offsets.setLong(index * 8, value);
        }
    }

    private static lance.encodings.List listEncoding(ColumnPages col, int page) throws V20DecodeException {
        ArrayEncoding enc = col.encoding(page);
        if (enc.getArrayEncodingCase() != ArrayEncoding.ArrayEncodingCase.LIST) {
            throw new V20DecodeException(
                    col.where() + ", page " + page + ": the offsets column of a list field must use"
                            + " the list encoding, found " + FixedWidthDecoder.describe(enc));
        }
        return enc.getList();
    }

    /** Hands offsets and validity to the list vector (its items are loaded separately). */
    void loadInto(FieldVector listVector) {
        int n = Math.toIntExact(rows);
        int nulls = BitVectorHelper.getNullCount(validity, n);
        listVector.loadFieldBuffers(new ArrowFieldNode(n, nulls), List.of(validity, offsets));
    }

    @Override
    public void close() {
        validity.close();
        offsets.close();
    }
}
