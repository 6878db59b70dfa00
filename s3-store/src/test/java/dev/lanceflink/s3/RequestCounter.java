package dev.lanceflink.s3;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;

/**
 * Counts HTTP requests per S3 operation name (GetObject, HeadObject, ListObjectsV2, PutObject,
 * UploadPart, ...) as an SDK execution interceptor: it sees every attempt the SDK transmits,
 * retries included, i.e. what the server is billed for. GETs with a {@code Range} header are
 * also counted separately under {@value #RANGED_GET}, so a scan's ranged reads can be told apart
 * from whole-object reads (manifests, transaction files, deletion files).
 */
public final class RequestCounter implements ExecutionInterceptor {
    /** The key under which GetObject requests with a {@code Range} header are counted (as well). */
    public static final String RANGED_GET = "GetObject(ranged)";

    private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        String operation = attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME);
        counts.computeIfAbsent(operation, k -> new AtomicInteger()).incrementAndGet();
        if ("GetObject".equals(operation)
                && context.httpRequest().firstMatchingHeader("Range").isPresent()) {
            counts.computeIfAbsent(RANGED_GET, k -> new AtomicInteger()).incrementAndGet();
        }
    }

    /** Requests of one operation (or {@link #RANGED_GET}) since the last {@link #reset}. */
    public int count(String operation) {
        AtomicInteger n = counts.get(operation);
        return n == null ? 0 : n.get();
    }

    /** All HTTP requests since the last {@link #reset} ({@link #RANGED_GET} not counted twice). */
    public int total() {
        int n = 0;
        for (Map.Entry<String, AtomicInteger> e : counts.entrySet()) {
            if (!e.getKey().equals(RANGED_GET)) {
                n += e.getValue().get();
            }
        }
        return n;
    }

    /** The counts by operation name, sorted by name. */
    public Map<String, Integer> snapshot() {
        Map<String, Integer> out = new TreeMap<>();
        counts.forEach((k, v) -> out.put(k, v.get()));
        return out;
    }

    public void reset() {
        counts.clear();
    }

    @Override
    public String toString() {
        return snapshot().toString();
    }
}
