package dev.lanceflink.s3;

import dev.lanceflink.io.RangeReader;
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
 * the reader was opened; every GET carries {@code If-Match: <etag>}, so if the object is replaced
 * while it is being read the reader fails (412) instead of mixing bytes of two versions.
 *
 * <p>{@link #readRanges} coalesces nearby ranges ({@link RangeCoalescer}) and fetches the merged
 * requests in parallel on the store's I/O pool; results are slices of the merged buffers, not
 * copies. A body that breaks off mid-transfer is retried by the SDK like any other I/O failure.
 */
final class S3RangeReader implements RangeReader {
    private final S3ObjectStore store;
    private final String key;
    private final long size;
    private final String eTag;

    S3RangeReader(S3ObjectStore store, String key, long size, String eTag) {
        this.store = store;
        this.key = key;
        this.size = size;
        this.eTag = eTag;
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
            throw new IllegalArgumentException("offsets (" + offsets.length + ") and lengths (" + lengths.length
                    + ") differ in count");
        }
        for (int i = 0; i < offsets.length; i++) {
            checkRange(offsets[i], lengths[i]);
        }
        ByteBuffer[] out = new ByteBuffer[offsets.length];
        if (offsets.length == 0) {
            return out;
        }
        S3StoreConfig config = store.config();
        RangeCoalescer.Plan plan = RangeCoalescer.plan(offsets, lengths, config.coalesceGapBytes(), config.maxCoalescedBytes());
        byte[][] merged = fetchAll(plan);
        for (int i = 0; i < offsets.length; i++) {
            out[i] = ByteBuffer.wrap(merged[plan.requestOf()[i]], plan.offsetInRequest()[i], lengths[i]).slice();
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
            throw new InterruptedIOException("Interrupted while reading " + store.location().uriOf(key));
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
        if (eTag != null) {
            req.ifMatch(eTag);
        }
        try {
            return store.client().getObject(req.build(), (ResponseTransformer<GetObjectResponse, byte[]>) (resp, in) -> {
                checkContentRange(resp, offset, length);
                return S3Bodies.readExactly(in, length, "GET " + store.location().uriOf(key) + " " + range);
            });
        } catch (SdkException e) {
            if (S3Errors.isStatus(e, S3Errors.PRECONDITION_FAILED)) {
                throw new IOException(store.location().uriOf(key) + " was replaced while being read (its ETag is no longer "
                        + eTag + "); reopen it. Lance data files are immutable, so something overwrote this one", e);
            }
            throw store.error(e, "GET " + range, key);
        }
    }

    private void checkContentRange(GetObjectResponse resp, long offset, int length) {
        String cr = resp.contentRange();
        String expected = "bytes " + offset + "-" + (offset + length - 1) + "/";
        if (cr == null || !cr.startsWith(expected)) {
            // Not retryable: a server that ignores Range would send the whole object every time.
            throw new IllegalStateException("GET " + store.location().uriOf(key) + " range " + offset + "+" + length
                    + " answered with Content-Range '" + cr + "' instead of '" + expected + size
                    + "': the server does not honour ranged reads");
        }
    }
}
