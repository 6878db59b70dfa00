package dev.lanceflink.s3;

import dev.lanceflink.io.AbortableOutputStream;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.services.s3.model.CompletedPart;

/**
 * The stream of {@link S3ObjectStore#create}: the object appears only when {@link #close}
 * succeeds, and a failed write leaves nothing behind.
 *
 * <p>Bytes are buffered up to the part size. An object smaller than one part is written with a
 * single PUT at close. A larger one becomes a multipart upload: each full part is uploaded on the
 * store's I/O pool (at most {@code uploadConcurrency} in flight, so memory stays at
 * {@code (uploadConcurrency + 1) × partSize}), and close uploads the tail and completes the
 * upload. Any failure aborts the upload, so no invisible parts keep costing storage; {@link
 * #abort} does the same for a writer that gives up.
 */
public final class S3MultipartOutputStream extends OutputStream implements AbortableOutputStream {
    private static final Logger LOG = LoggerFactory.getLogger(S3MultipartOutputStream.class);
    /** S3's limit on parts per upload. */
    static final int MAX_PARTS = 10_000;
    /** First buffer size: small objects (deletion files, manifests) do not pay for a whole part. */
    private static final int INITIAL_BUFFER = 64 << 10;

    private final S3ObjectStore store;
    private final String key;
    private final int partSize;
    private final int maxInFlight;
    private final ArrayDeque<Future<CompletedPart>> inFlight = new ArrayDeque<>();
    private final List<CompletedPart> completed = new ArrayList<>();
    /** Part buffers returned by finished uploads, reused instead of allocating a part per part. */
    private final ArrayDeque<byte[]> spare = new ArrayDeque<>();

    private byte[] buffer;
    private int count;
    private int nextPartNumber = 1;
    private String uploadId;
    private long bytesWritten;
    private boolean closed;
    private boolean failed;

    S3MultipartOutputStream(S3ObjectStore store, String key) {
        this.store = store;
        this.key = key;
        this.partSize = (int) Math.min(Integer.MAX_VALUE - 16, store.config().partSizeBytes());
        this.maxInFlight = store.config().uploadConcurrency();
        this.buffer = new byte[Math.min(INITIAL_BUFFER, partSize)];
    }

    @Override
    public void write(int b) throws IOException {
        ensureOpen();
        if (count == buffer.length) {
            makeRoom();
        }
        buffer[count++] = (byte) b;
        bytesWritten++;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        ensureOpen();
        Objects.checkFromIndexSize(off, len, b.length);
        while (len > 0) {
            if (count == buffer.length) {
                makeRoom();
            }
            int n = Math.min(len, buffer.length - count);
            System.arraycopy(b, off, buffer, count, n);
            count += n;
            off += n;
            len -= n;
            bytesWritten += n;
        }
    }

    /** Grows the buffer up to a part, or ships the full part. */
    private void makeRoom() throws IOException {
        if (buffer.length < partSize) {
            buffer = Arrays.copyOf(buffer, (int) Math.min(partSize, 2L * buffer.length));
            return;
        }
        try {
            uploadPart(false);
        } catch (IOException | RuntimeException e) {
            fail(e);
            throw e;
        }
    }

    private void ensureOpen() throws IOException {
        if (failed) {
            throw new IOException("The write to " + store.location().uriOf(key)
                    + " failed or was aborted, and nothing was stored; write the file again");
        }
        if (closed) {
            throw new IOException("Stream for " + store.location().uriOf(key) + " is closed");
        }
    }

    private void uploadPart(boolean last) throws IOException {
        if (uploadId == null) {
            try {
                uploadId = store.client()
                        .createMultipartUpload(
                                b -> b.bucket(store.location().bucket()).key(key))
                        .uploadId();
            } catch (SdkException e) {
                throw store.error(e, "CreateMultipartUpload", key);
            }
        }
        if (nextPartNumber > MAX_PARTS) {
            throw new IOException(store.location().uriOf(key) + " needs more than " + MAX_PARTS + " parts of "
                    + partSize + " bytes; raise " + S3StoreConfig.PART_SIZE);
        }
        while (inFlight.size() >= maxInFlight) {
            awaitOldest();
        }
        int partNumber = nextPartNumber++;
        byte[] data = buffer;
        int length = count;
        String id = uploadId;
        inFlight.add(store.executor().submit(() -> uploadPartNow(id, partNumber, data, length)));
        if (!last) {
            byte[] reuse;
            synchronized (spare) {
                reuse = spare.poll();
            }
            buffer = reuse != null ? reuse : new byte[partSize];
            count = 0;
        }
    }

    private CompletedPart uploadPartNow(String id, int partNumber, byte[] data, int length) throws IOException {
        // A content provider, not RequestBody.fromBytes, which would copy the whole part.
        ContentStreamProvider body = () -> new ByteArrayInputStream(data, 0, length);
        try {
            String eTag = store.client()
                    .uploadPart(
                            b -> b.bucket(store.location().bucket())
                                    .key(key)
                                    .uploadId(id)
                                    .partNumber(partNumber)
                                    .contentLength((long) length),
                            RequestBody.fromContentProvider(body, length, "application/octet-stream"))
                    .eTag();
            synchronized (spare) {
                if (spare.size() < maxInFlight) {
                    spare.add(data);
                }
            }
            return CompletedPart.builder().partNumber(partNumber).eTag(eTag).build();
        } catch (SdkException e) {
            throw store.error(e, "UploadPart " + partNumber, key);
        }
    }

    private void awaitOldest() throws IOException {
        Future<CompletedPart> f = inFlight.poll();
        try {
            completed.add(f.get());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException(
                    "Interrupted while uploading " + store.location().uriOf(key));
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof IOException io) {
                throw io;
            }
            throw new IOException("Uploading a part of " + store.location().uriOf(key) + " failed: " + c, c);
        }
    }

    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        if (failed) {
            closed = true;
            throw new IOException("Write to " + store.location().uriOf(key) + " failed earlier; nothing was stored");
        }
        closed = true;
        try {
            if (uploadId == null) {
                putWhole();
                return;
            }
            if (count > 0) {
                uploadPart(true);
            }
            while (!inFlight.isEmpty()) {
                awaitOldest();
            }
            completed.sort((a, b) -> Integer.compare(a.partNumber(), b.partNumber()));
            try {
                store.client()
                        .completeMultipartUpload(b -> b.bucket(store.location().bucket())
                                .key(key)
                                .uploadId(uploadId)
                                .multipartUpload(m -> m.parts(completed)));
            } catch (SdkException e) {
                if (!completedDespite(e)) {
                    throw store.error(
                            e,
                            "CompleteMultipartUpload (" + completed.size() + " parts, " + bytesWritten + " bytes)",
                            key);
                }
            }
        } catch (IOException | RuntimeException e) {
            fail(e);
            throw e;
        } finally {
            buffer = null;
            synchronized (spare) {
                spare.clear();
            }
        }
    }

    /**
     * Whether a CompleteMultipartUpload that reported failure did complete: when its response was
     * lost, the SDK's retry finds the upload gone (404 NoSuchUpload) although the object exists.
     * The key is new and unique (the {@code create} contract), so an object of exactly our size
     * under it is ours.
     */
    private boolean completedDespite(SdkException e) {
        if (S3Errors.isStatus(e, 400) || S3Errors.isStatus(e, 403)) {
            return false; // refused outright (e.g. EntityTooSmall, InvalidPart, AccessDenied)
        }
        try {
            return store.headObject(key)
                    .map(h -> h.contentLength() == bytesWritten)
                    .orElse(false);
        } catch (IOException headFailed) {
            e.addSuppressed(headFailed);
            return false;
        }
    }

    private void putWhole() throws IOException {
        byte[] data = buffer;
        int length = count;
        ContentStreamProvider body = () -> new ByteArrayInputStream(data, 0, length);
        try {
            store.client()
                    .putObject(
                            b -> b.bucket(store.location().bucket()).key(key).contentLength((long) length),
                            RequestBody.fromContentProvider(body, length, "application/octet-stream"));
        } catch (SdkException e) {
            throw store.error(e, "PUT (" + length + " bytes)", key);
        }
    }

    /**
     * Gives up the write: aborts the multipart upload (if one was started) so no parts remain,
     * and makes the stream unusable. Nothing appears under the key. Idempotent.
     */
    public void abort() {
        if (closed && !failed) {
            return;
        }
        closed = true;
        fail(null);
    }

    private void fail(Throwable cause) {
        failed = true;
        // Let running part uploads finish first: S3 may keep a part that completes after the
        // abort, and such a part would be billed debris.
        for (Future<CompletedPart> f : inFlight) {
            try {
                f.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (ExecutionException e) {
                // the part failed; nothing of it remains to clean up
            }
        }
        inFlight.clear();
        buffer = null;
        if (uploadId != null) {
            String id = uploadId;
            uploadId = null;
            try {
                store.client()
                        .abortMultipartUpload(b ->
                                b.bucket(store.location().bucket()).key(key).uploadId(id));
            } catch (SdkException e) {
                // The original failure matters more; the bucket's lifecycle rule for incomplete
                // uploads is the backstop for a failed abort.
                IOException io = store.error(e, "AbortMultipartUpload " + id, key);
                if (cause != null) {
                    cause.addSuppressed(io);
                }
                LOG.warn(
                        "Could not abort multipart upload {} of {}; its parts stay until a lifecycle rule removes them",
                        id,
                        store.location().uriOf(key),
                        io);
            }
        }
    }
}
