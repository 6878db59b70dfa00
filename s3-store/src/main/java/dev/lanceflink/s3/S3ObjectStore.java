package dev.lanceflink.s3;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.io.ObjectInfo;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.RangeReader;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;

/**
 * An {@link ObjectStore} on S3 (or an S3-compatible server) through the AWS SDK v2.
 *
 * <ul>
 *   <li>{@link #putIfAbsent}: {@code PUT} with {@code If-None-Match: *}, a creation id to tell a
 *       lost response of our own write from another writer's object ({@link S3ConditionalPut}).
 *   <li>{@link #create}: buffered; one {@code PUT} below the part size, else a multipart upload
 *       that is aborted on failure ({@link S3MultipartOutputStream}).
 *   <li>{@link #openReader}: ranged {@code GET}s, coalesced and parallel ({@link S3RangeReader}).
 *   <li>{@link #openReader(String, long)}: the same without the HEAD when the size is known.
 *   <li>{@link #list}: {@code ListObjectsV2} with delimiter, one page at a time;
 *       {@link #listDirectories}: its common prefixes.
 * </ul>
 *
 * <p>Thread-safe; one store (and its HTTP connection pool) is meant to be shared by all readers
 * and writers of a table in one JVM.
 */
public final class S3ObjectStore implements ObjectStore {
    private final S3Client client;
    private final boolean ownsClient;
    private final S3Location location;
    private final S3StoreConfig config;
    private final ThreadPoolExecutor executor;
    private final S3ConditionalPut conditionalPut;
    /**
     * Set once the bucket is known to exist: a HeadBucket, or any GET or LIST of it, succeeded. A
     * HEAD 404 cannot tell a missing key from a missing bucket; until then it costs a HeadBucket.
     */
    private volatile boolean bucketVerified;

    /**
     * A store on an existing client.
     *
     * @param ownsClient whether {@link #close} closes {@code client}
     */
    public S3ObjectStore(S3Client client, S3Location location, S3StoreConfig config, boolean ownsClient) {
        this.client = requireNonNull(client, "client is null");
        this.location = requireNonNull(location, "location is null");
        this.config = requireNonNull(config, "config is null");
        this.ownsClient = ownsClient;
        int threads = Math.max(config.readParallelism(), config.uploadConcurrency());
        this.executor = new ThreadPoolExecutor(
                threads,
                threads,
                30,
                TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(),
                daemonThreads("lance-s3-io-" + location.bucket()));
        this.executor.allowCoreThreadTimeOut(true);
        this.conditionalPut = new S3ConditionalPut(this);
    }

    /** Opens a store at {@code s3://bucket/prefix} with its own client. */
    public static S3ObjectStore open(String uri, S3StoreConfig config) {
        S3Location location = S3Location.parse(uri);
        return new S3ObjectStore(S3ClientFactory.newClient(config), location, config, true);
    }

    private static ThreadFactory daemonThreads(String name) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, name + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    S3Client client() {
        return client;
    }

    public S3Location location() {
        return location;
    }

    public S3StoreConfig config() {
        return config;
    }

    /** Called after a successful request that names the bucket (a LIST page): the bucket exists. */
    void bucketExists() {
        bucketVerified = true;
    }

    ExecutorService executor() {
        return executor;
    }

    IOException error(SdkException e, String operation, String key) {
        return S3Errors.map(e, operation, location.uriOf(key), location, config);
    }

    @Override
    public String rootUri() {
        return location.rootUri();
    }

    @Override
    public byte[] readAll(String path) throws IOException {
        String key = location.key(path);
        try {
            byte[] content = client.getObject(
                    b -> b.bucket(location.bucket()).key(key), (ResponseTransformer<GetObjectResponse, byte[]>)
                            (resp, in) -> S3Bodies.readExactly(in, resp.contentLength(), "GET " + location.uriOf(key)));
            bucketVerified = true;
            return content;
        } catch (SdkException e) {
            throw error(e, "GET", key);
        }
    }

    @Override
    public RangeReader openReader(String path) throws IOException {
        String key = location.key(path);
        HeadObjectResponse head = headObject(key)
                .orElseThrow(() -> new FileNotFoundException("Object not found: " + location.uriOf(key)));
        return new S3RangeReader(this, key, head.contentLength(), head.eTag());
    }

    /**
     * No HEAD: the first ranged GET returns the ETag that pins the later ones and, in its
     * {@code Content-Range}, the object's size, which is checked against {@code knownSize}
     * ({@link S3RangeReader}). Saves one request per data file of a scan.
     */
    @Override
    public RangeReader openReader(String path, long knownSize) throws IOException {
        if (knownSize <= 0) {
            return openReader(path);
        }
        return S3RangeReader.withKnownSize(this, location.key(path), knownSize);
    }

    @Override
    public Optional<ObjectInfo> head(String path) throws IOException {
        String key = location.key(path);
        return headObject(key)
                .map(h -> new ObjectInfo(
                        path,
                        h.contentLength(),
                        h.lastModified() == null ? 0 : h.lastModified().toEpochMilli()));
    }

    /** HEAD of a key; empty if it does not exist (after making sure the bucket does). */
    Optional<HeadObjectResponse> headObject(String key) throws IOException {
        try {
            HeadObjectResponse head =
                    client.headObject(b -> b.bucket(location.bucket()).key(key));
            bucketVerified = true;
            return Optional.of(head);
        } catch (SdkException e) {
            if (S3Errors.isMissingObject(e)) {
                verifyBucketExists(key);
                return Optional.empty();
            }
            throw error(e, "HEAD", key);
        }
    }

    /**
     * A HEAD of a key in a missing bucket is a bare 404, like a missing key. Checking the bucket
     * once per store turns "table not found" into the real cause, "bucket not found".
     */
    private void verifyBucketExists(String key) throws IOException {
        if (bucketVerified) {
            return;
        }
        try {
            client.headBucket(b -> b.bucket(location.bucket()));
            bucketVerified = true;
        } catch (SdkException e) {
            if (S3Errors.isStatus(e, 404)) {
                throw new IOException(
                        "S3 bucket '" + location.bucket() + "' does not exist (" + S3Errors.endpoint(config) + "), so "
                                + location.uriOf(key) + " cannot be read. Create the bucket or correct the table URI",
                        e);
            }
            throw error(e, "HEAD bucket", "");
        }
    }

    @Override
    public OutputStream create(String path) throws IOException {
        return new S3MultipartOutputStream(this, location.key(path));
    }

    @Override
    public void put(String path, byte[] content) throws IOException {
        String key = location.key(path);
        try {
            client.putObject(
                    b -> b.bucket(location.bucket()).key(key).contentLength((long) content.length),
                    RequestBody.fromBytes(content));
        } catch (SdkException e) {
            throw error(e, "PUT", key);
        }
    }

    @Override
    public boolean putIfAbsent(String path, byte[] content) throws IOException {
        return conditionalPut.putIfAbsent(location.key(path), content);
    }

    @Override
    public Iterator<ObjectInfo> list(String directory) throws IOException {
        return new S3ListingIterator(this, location.directoryPrefix(directory), true);
    }

    @Override
    public Iterator<ObjectInfo> listRecursive(String prefix) throws IOException {
        String keyPrefix = prefix.isEmpty() ? location.directoryPrefix("") : location.key(prefix);
        return new S3ListingIterator(this, keyPrefix, false);
    }

    /** A {@code ListObjectsV2} with delimiter "/": its common prefixes, page by page; no keys are read. */
    @Override
    public List<String> listDirectories(String directory) throws IOException {
        String keyPrefix = location.directoryPrefix(directory);
        List<String> out = new ArrayList<>();
        String token = null;
        do {
            ListObjectsV2Request.Builder req = ListObjectsV2Request.builder()
                    .bucket(location.bucket())
                    .prefix(keyPrefix)
                    .delimiter("/")
                    .maxKeys(config.listPageSize());
            if (token != null) {
                req.continuationToken(token);
            }
            ListObjectsV2Response resp;
            try {
                resp = client.listObjectsV2(req.build());
            } catch (SdkException e) {
                throw error(e, "LIST directories", keyPrefix);
            }
            bucketVerified = true;
            for (CommonPrefix p : resp.commonPrefixes()) {
                String name =
                        p.prefix().substring(keyPrefix.length(), p.prefix().length() - 1);
                if (!name.isEmpty()) { // "a//b" keys make an empty-named prefix: no directory a caller can use
                    out.add(name);
                }
            }
            token = Boolean.TRUE.equals(resp.isTruncated()) ? resp.nextContinuationToken() : null;
            if (Boolean.TRUE.equals(resp.isTruncated()) && token == null) {
                throw new IOException(
                        "LIST " + location.uriOf(keyPrefix)
                                + " returned a truncated page without a continuation token; the server is not S3-compatible here");
            }
        } while (token != null);
        out.sort(null); // S3 lists in UTF-8 byte order; the contract is String order
        return out;
    }

    @Override
    public void delete(String path) throws IOException {
        String key = location.key(path);
        try {
            client.deleteObject(b -> b.bucket(location.bucket()).key(key));
        } catch (SdkException e) {
            if (S3Errors.isMissingObject(e)) {
                return;
            }
            throw error(e, "DELETE", key);
        }
    }

    /**
     * An {@code s3://} (or {@code s3a://}) location, e.g. the source of a shallow clone, is opened
     * on this store's client: the base path URI carries no endpoint or credentials, and the
     * table's storage options are what reach its files. The returned store does not own the
     * client, so it must be closed before this one. Other schemes open as the interface says.
     */
    @Override
    public ObjectStore openAt(String uri) throws IOException {
        String scheme =
                uri.contains("://") ? uri.substring(0, uri.indexOf("://")).toLowerCase(Locale.ROOT) : "";
        if (!scheme.equals("s3") && !scheme.equals("s3a")) {
            return ObjectStore.super.openAt(uri);
        }
        try {
            return new S3ObjectStore(client, S3Location.parse(uri), config, false);
        } catch (IllegalArgumentException e) {
            throw new IOException(
                    "Cannot open " + uri + " with the settings of " + rootUri() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        executor.shutdown();
        if (ownsClient) {
            client.close();
        }
    }

    @Override
    public String toString() {
        return "S3ObjectStore[" + rootUri() + ", " + config + "]";
    }
}
