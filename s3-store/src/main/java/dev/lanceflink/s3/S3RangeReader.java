package dev.lanceflink.s3;

import dev.lanceflink.io.RangeReader;
import dev.lanceflink.io.WrongObjectSizeException;
import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * Random access to one S3 object by ranged GETs. The size and ETag come from the HEAD done when
 * the reader was opened, or, when the caller knew the size (a data file's size in the manifest),
 * the size is the caller's and the ETag is taken from the first GET's response. Once the ETag is
 * known every GET carries {@code If-Match: <etag>}, so if the object is replaced while it is being
 * read the reader fails (412) instead of mixing bytes of two versions.
 *
 * <p>Every response's {@code Content-Range} names the object's total size, which is compared with
 * the size the reader works with: a wrong recorded size fails on the first read with
 * {@link WrongObjectSizeException}, before any byte of a wrongly placed range reaches the caller.
 *
 * <p>{@link #readRanges} coalesces nearby ranges ({@link RangeCoalescer}) and fetches the merged
 * requests in parallel on the store's I/O pool; results are slices of the merged buffers, not
 * copies. A body that breaks off mid-transfer is retried by the SDK like any other I/O failure.
 */
final class S3RangeReader implements RangeReader {
    private static final int RANGE_NOT_SATISFIABLE = 416;
    private final S3ObjectStore store;
    private final String key;
    private final long size;
    /** Whether {@link #size} came from the caller rather than from a HEAD. */
    private final boolean sizeFromCaller;
    /** Null until learned from a response when the reader was opened without a HEAD. */
    private volatile String eTag;

    S3RangeReader(S3ObjectStore store, String key, long size, String eTag) {
        this(store, key, size, eTag, false);
    }

    private S3RangeReader(S3ObjectStore store, String key, long size, String eTag, boolean sizeFromCaller) {
        this.store = store;
        this.key = key;
        this.size = size;
        this.eTag = eTag;
        this.sizeFromCaller = sizeFromCaller;
    }

    /** A reader that trusts {@code knownSize} until the first response confirms or refutes it. */
    static S3RangeReader withKnownSize(S3ObjectStore store, String key, long knownSize) {
        return new S3RangeReader(store, key, knownSize, null, true);
    }

    @Override
    public long size() {
        return size;
    }

    private void checkRange(long offset, int length) throws EOFException {
        if (offset < 0 || length < 0 || offset > size - length) {
            throw new EOFException("Read of " + length + " bytes at offset " + offset + " is outside "
                    + store.location().uriOf(key) + " (" + size + " bytes)");
        }
    }

    @Override
    public ByteBuffer read(long offset, int length) throws IOException {
        checkRange(offset, length);
        return ByteBuffer.wrap(fetch(offset, length));
    }

    @Override
    public ByteBuffer[] readRanges(long[] offsets, int[] lengths) throws IOException {
        if (offsets.length != lengths.length) {
            throw new IllegalArgumentException(
                    "offsets (" + offsets.length + ") and lengths (" + lengths.length + ") differ in count");
        }
        for (int i = 0; i < offsets.length; i++) {
            checkRange(offsets[i], lengths[i]);
        }
        ByteBuffer[] out = new ByteBuffer[offsets.length];
        if (offsets.length == 0) {
            return out;
        }
        S3StoreConfig config = store.config();
        RangeCoalescer.Plan plan =
                RangeCoalescer.plan(offsets, lengths, config.coalesceGapBytes(), config.maxCoalescedBytes());
        byte[][] merged = fetchAll(plan);
        for (int i = 0; i < offsets.length; i++) {
            out[i] = ByteBuffer.wrap(merged[plan.requestOf()[i]], plan.offsetInRequest()[i], lengths[i])
                    .slice();
        }
        return out;
    }

    /** Runs the plan's requests: all but the first on the I/O pool, the first on this thread. */
    private byte[][] fetchAll(RangeCoalescer.Plan plan) throws IOException {
        int n = plan.requestCount();
        byte[][] results = new byte[n][];
        List<Future<byte[]>> futures = new ArrayList<>(n - 1);
        try {
            for (int r = 1; r < n; r++) {
                long off = plan.offsets()[r];
                int len = plan.lengths()[r];
                futures.add(store.executor().submit(() -> fetch(off, len)));
            }
            results[0] = fetch(plan.offsets()[0], plan.lengths()[0]);
            for (int r = 1; r < n; r++) {
                results[r] = futures.get(r - 1).get();
            }
            return results;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException(
                    "Interrupted while reading " + store.location().uriOf(key));
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof IOException io) {
                throw io;
            }
            throw new IOException("Ranged read of " + store.location().uriOf(key) + " failed: " + c, c);
        } finally {
            for (Future<byte[]> f : futures) {
                f.cancel(true); // no-op for finished ones; stops the rest after a failure
            }
        }
    }

    /** One ranged GET straight into a byte array of the exact length. */
    private byte[] fetch(long offset, int length) throws IOException {
        if (length == 0) {
            return new byte[0];
        }
        String range = "bytes=" + offset + "-" + (offset + length - 1);
        GetObjectRequest.Builder req = GetObjectRequest.builder()
                .bucket(store.location().bucket())
                .key(key)
                .range(range);
        String expectedETag = eTag;
        if (expectedETag != null) {
            req.ifMatch(expectedETag);
        }
        String[] contentRange = new String[1];
        byte[] bytes;
        try {
            bytes = store.client().getObject(req.build(), (ResponseTransformer<GetObjectResponse, byte[]>)
                    (resp, in) -> {
                        contentRange[0] = resp.contentRange();
                        if (!isExactRange(contentRange[0], offset, length)) {
                            return null; // judged below; the unread body is discarded with the connection
                        }
                        if (expectedETag == null && resp.eTag() != null) {
                            eTag = resp.eTag(); // later GETs are pinned to the object this one read
                        }
                        return S3Bodies.readExactly(
                                in, length, "GET " + store.location().uriOf(key) + " " + range);
                    });
        } catch (SdkException e) {
            if (S3Errors.isStatus(e, S3Errors.PRECONDITION_FAILED)) {
                throw new IOException(
                        store.location().uriOf(key) + " was replaced while being read (its ETag is no longer "
                                + expectedETag
                                + "); reopen it. Lance data files are immutable, so something overwrote this one",
                        e);
            }
            if (sizeFromCaller && S3Errors.isStatus(e, RANGE_NOT_SATISFIABLE)) {
                throw new WrongObjectSizeException(store.location().uriOf(key), size, -1);
            }
            throw store.error(e, "GET " + range, key);
        }
        long total = totalSize(contentRange[0]);
        if (total >= 0 && total != size) {
            // A recorded size that is wrong (too large, the range ran past the end and came back
            // shortened; or too small). With a HEAD-learned size: the object changed in between.
            throw new WrongObjectSizeException(store.location().uriOf(key), size, total);
        }
        if (bytes == null) {
            // Not retryable: a server that ignores Range would send the whole object every time.
            throw new IllegalStateException("GET " + store.location().uriOf(key) + " range " + offset + "+" + length
                    + " answered with Content-Range '" + contentRange[0] + "' instead of '"
                    + expectedPrefix(offset, length)
                    + size + "': the server does not honour ranged reads");
        }
        return bytes;
    }

    private static String expectedPrefix(long offset, int length) {
        return "bytes " + offset + "-" + (offset + length - 1) + "/";
    }

    private static boolean isExactRange(String contentRange, long offset, int length) {
        return contentRange != null && contentRange.startsWith(expectedPrefix(offset, length));
    }

    /** The total after the '/' of a {@code Content-Range: bytes a-b/total}, or -1 if absent or "*". */
    private static long totalSize(String contentRange) {
        if (contentRange == null) {
            return -1;
        }
        int slash = contentRange.lastIndexOf('/');
        String total = contentRange.substring(slash + 1).trim();
        if (total.equals("*")) {
            return -1;
        }
        try {
            return Long.parseLong(total);
        } catch (NumberFormatException e) {
            return -1; // unparseable: the start/end check above already vouched for the range
        }
    }
}
