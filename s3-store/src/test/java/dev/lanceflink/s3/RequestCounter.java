package dev.lanceflink.s3;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;

/** Counts HTTP attempts per S3 operation name (GetObject, ListObjectsV2, UploadPart, ...). */
final class RequestCounter implements ExecutionInterceptor {
    private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        counts.computeIfAbsent(attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME), k -> new AtomicInteger())
                .incrementAndGet();
    }

    int count(String operation) {
        AtomicInteger n = counts.get(operation);
        return n == null ? 0 : n.get();
    }

    void reset() {
        counts.clear();
    }

    @Override
    public String toString() {
        return counts.toString();
    }
}
