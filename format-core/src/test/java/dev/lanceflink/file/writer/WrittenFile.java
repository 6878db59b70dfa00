package dev.lanceflink.file.writer;

import com.google.protobuf.Any;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import lance.file.FileDescriptor;
import lance.file.v2.ColumnMetadata;

/**
 * Test-only view of a written data file: footer, offset tables, schema and per-page buffers,
 * parsed independently of the production reader so the writer's bytes can be checked exactly.
 */
final class WrittenFile {
    final byte[] bytes;
    final long columnMetaStart;
    final long cmoStart;
    final long gboStart;
    final int numGlobalBuffers;
    final int numColumns;
    final int major;
    final int minor;
    final FileDescriptor descriptor;
    final long descriptorPos;
    final List<ColumnMetadata> columns = new ArrayList<>();

    WrittenFile(byte[] bytes) throws Exception {
        this.bytes = bytes;
        ByteBuffer f = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        int footer = bytes.length - 40;
        columnMetaStart = f.getLong(footer);
        cmoStart = f.getLong(footer + 8);
        gboStart = f.getLong(footer + 16);
        numGlobalBuffers = f.getInt(footer + 24);
        numColumns = f.getInt(footer + 28);
        major = Short.toUnsignedInt(f.getShort(footer + 32));
        minor = Short.toUnsignedInt(f.getShort(footer + 34));
        if (!new String(bytes, footer + 36, 4, java.nio.charset.StandardCharsets.US_ASCII).equals("LANC")) {
            throw new IllegalStateException("bad magic");
        }
        descriptorPos = f.getLong((int) gboStart);
        long descriptorLen = f.getLong((int) gboStart + 8);
        descriptor = FileDescriptor.parseFrom(
                Arrays.copyOfRange(bytes, (int) descriptorPos, (int) (descriptorPos + descriptorLen)));
        for (int c = 0; c < numColumns; c++) {
            long pos = f.getLong((int) cmoStart + 16 * c);
            long len = f.getLong((int) cmoStart + 16 * c + 8);
            columns.add(ColumnMetadata.parseFrom(Arrays.copyOfRange(bytes, (int) pos, (int) (pos + len))));
        }
    }

    ColumnMetadata.Page page(int column, int page) {
        return columns.get(column).getPages(page);
    }

    byte[] buffer(int column, int page, int buffer) {
        ColumnMetadata.Page p = page(column, page);
        int off = (int) p.getBufferOffsets(buffer);
        return Arrays.copyOfRange(bytes, off, off + (int) p.getBufferSizes(buffer));
    }

    Any encodingAny(int column, int page) throws Exception {
        return Any.parseFrom(page(column, page).getEncoding().getDirect().getEncoding());
    }

    lance.encodings21.PageLayout layout(int column, int page) throws Exception {
        Any any = encodingAny(column, page);
        if (!any.getTypeUrl().equals("/lance.encodings21.PageLayout")) {
            throw new IllegalStateException("type url " + any.getTypeUrl());
        }
        return lance.encodings21.PageLayout.parseFrom(any.getValue());
    }

    lance.encodings.ArrayEncoding arrayEncoding(int column, int page) throws Exception {
        Any any = encodingAny(column, page);
        if (!any.getTypeUrl().equals("/lance.encodings.ArrayEncoding")) {
            throw new IllegalStateException("type url " + any.getTypeUrl());
        }
        return lance.encodings.ArrayEncoding.parseFrom(any.getValue());
    }

    static byte[] hex(String s) {
        String h = s.replaceAll("[^0-9a-fA-F]", "");
        byte[] out = new byte[h.length() / 2];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) Integer.parseInt(h.substring(2 * i, 2 * i + 2), 16);
        }
        return out;
    }
}
