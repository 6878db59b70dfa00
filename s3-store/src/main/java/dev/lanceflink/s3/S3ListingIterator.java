package dev.lanceflink.s3;

import dev.lanceflink.io.ObjectInfo;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * A ListObjectsV2 listing fetched one page at a time, as the caller advances. S3 returns keys in
 * ascending UTF-8 byte order, which is the order {@link dev.lanceflink.io.ObjectStore#list}
 * promises, so a reader that wants the newest V2 manifest (whose names sort newest first) stops
 * after the first page.
 *
 * <p>The first page is requested by the constructor, so a missing bucket or bad credentials
 * surface as a checked {@link IOException} from {@code list}; later pages can only fail with
 * {@link UncheckedIOException} (an Iterator cannot throw checked exceptions).
 */
final class S3ListingIterator implements Iterator<ObjectInfo> {
    private final S3ObjectStore store;
    private final String keyPrefix;
    private final boolean directChildrenOnly;
    private List<S3Object> page;
    private int index;
    private String continuationToken;
    private ObjectInfo next;

    S3ListingIterator(S3ObjectStore store, String keyPrefix, boolean directChildrenOnly) throws IOException {
        this.store = store;
        this.keyPrefix = keyPrefix;
        this.directChildrenOnly = directChildrenOnly;
        fetchPage(null);
        advance();
    }

    private void fetchPage(String token) throws IOException {
        ListObjectsV2Request.Builder req = ListObjectsV2Request.builder()
                .bucket(store.location().bucket())
                .prefix(keyPrefix)
                .maxKeys(store.config().listPageSize());
        if (directChildrenOnly) {
            req.delimiter("/");
        }
        if (token != null) {
            req.continuationToken(token);
        }
        ListObjectsV2Response resp;
        try {
            resp = store.client().listObjectsV2(req.build());
        } catch (SdkException e) {
            throw store.error(e, "LIST", keyPrefix);
        }
        store.bucketExists();
        page = resp.contents();
        index = 0;
        continuationToken = Boolean.TRUE.equals(resp.isTruncated()) ? resp.nextContinuationToken() : null;
        if (Boolean.TRUE.equals(resp.isTruncated()) && continuationToken == null) {
            throw new IOException("LIST " + store.location().uriOf(keyPrefix)
                    + " returned a truncated page without a continuation token; the server is not S3-compatible here");
        }
    }

    private void advance() throws IOException {
        next = null;
        while (true) {
            while (index < page.size()) {
                S3Object o = page.get(index++);
                String key = o.key();
                if (key.endsWith("/")) {
                    continue; // a "directory marker" some tools create; not an object of the table
                }
                next = new ObjectInfo(
                        store.location().pathOf(key),
                        o.size() == null ? 0 : o.size(),
                        o.lastModified() == null ? 0 : o.lastModified().toEpochMilli());
                return;
            }
            if (continuationToken == null) {
                return;
            }
            fetchPage(continuationToken);
        }
    }

    @Override
    public boolean hasNext() {
        if (next == null && (index < page.size() || continuationToken != null)) {
            try {
                // Fetches the next page only now that the caller asks past the current one.
                advance();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return next != null;
    }

    @Override
    public ObjectInfo next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        ObjectInfo current = next;
        next = null;
        return current;
    }
}
