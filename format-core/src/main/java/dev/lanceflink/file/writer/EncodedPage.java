package dev.lanceflink.file.writer;

import java.util.List;

/**
 * One encoded page: its buffers in page-buffer order and its page encoding (already wrapped in
 * the {@code google.protobuf.Any} Lance expects), plus the number of top-level rows it holds.
 */
record EncodedPage(List<ByteBuilder> buffers, byte[] encodingAny, long numRows) {}
