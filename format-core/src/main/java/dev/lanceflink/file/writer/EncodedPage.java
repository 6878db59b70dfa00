package dev.lanceflink.file.writer;

import java.util.List;

/**
 * One encoded page: its buffers in page-buffer order and its page encoding (already wrapped in
 * the {@code google.protobuf.Any} Lance expects), plus the number of top-level rows it holds.
 * A buffer may be the file's shared {@link EncodeBuffer}: write the page out before any other
 * page of the file is encoded.
 */
record EncodedPage(List<ByteBuilder> buffers, byte[] encodingAny, long numRows) {}
