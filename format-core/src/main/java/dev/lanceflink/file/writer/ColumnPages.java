package dev.lanceflink.file.writer;

import com.google.protobuf.ByteString;
import java.io.IOException;
import lance.file.v2.ColumnMetadata;
import lance.file.v2.DirectEncoding;
import lance.file.v2.Encoding;

/**
 * The pages written so far for one column of the file; becomes its {@code ColumnMetadata}.
 * Pages are appended in row order. {@code priority} is by default the column's row number of the
 * page's first row (2.1: each column counts its own rows); 2.0 item columns of lists pass the
 * top-level row instead, as Lance does. Readers locate rows by the running sum of page lengths;
 * Lance uses priority only to order I/O.
 */
final class ColumnPages {
    private final ColumnMetadata.Builder metadata = ColumnMetadata.newBuilder();
    private long rows;

    ColumnPages() {
        metadata.setEncoding(direct(Encodings.plainColumnEncoding()));
    }

    long rows() {
        return rows;
    }

    /** Writes the page's buffers (64-byte aligned) and records the page with priority = its first row. */
    void write(FileSink sink, EncodedPage page) throws IOException {
        write(sink, page, rows);
    }

    /** Writes the page's buffers (64-byte aligned) and records the page with the given priority. */
    void write(FileSink sink, EncodedPage page, long priority) throws IOException {
        ColumnMetadata.Page.Builder p = ColumnMetadata.Page.newBuilder();
        for (ByteBuilder buffer : page.buffers()) {
            long offset = sink.writePadded(buffer);
            p.addBufferOffsets(offset).addBufferSizes(buffer.size());
        }
        p.setLength(page.numRows()).setPriority(priority).setEncoding(direct(page.encodingAny()));
        metadata.addPages(p);
        rows += page.numRows();
    }

    byte[] toBytes() {
        return metadata.build().toByteArray();
    }

    private static Encoding direct(byte[] any) {
        return Encoding.newBuilder()
                .setDirect(DirectEncoding.newBuilder().setEncoding(ByteString.copyFrom(any)))
                .build();
    }
}
