package dev.lanceflink.s3;

import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.services.s3.S3Client;

/** Builds stores on S3Proxy with request counting and optional wire faults, each at a fresh prefix. */
public final class S3TestClients {
    private static final AtomicInteger PREFIXES = new AtomicInteger();

    private S3TestClients() {}

    public static String freshUri(S3ProxyServer server, String bucket) {
        server.createBucket(bucket);
        return "s3://" + bucket + "/p" + PREFIXES.incrementAndGet() + "/table";
    }

    /** A store whose client counts requests and sends them through {@code http} (null: a plain client). */
    public static S3ObjectStore open(String uri, S3StoreConfig config, RequestCounter counter, SdkHttpClient http) {
        S3Client client = S3ClientFactory.builder(config)
                .httpClient(http != null ? http : S3ClientFactory.newHttpClient(config))
                .overrideConfiguration(ClientOverrideConfiguration.builder()
                        .retryStrategy(S3RetryPolicy.strategy(config))
                        .addExecutionInterceptor(counter)
                        .build())
                .build();
        return new S3ObjectStore(client, S3Location.parse(uri), config, true);
    }
}
