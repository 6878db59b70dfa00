package dev.lanceflink.s3;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;

/** Builds the AWS SDK v2 client for an {@link S3StoreConfig}. */
public final class S3ClientFactory {
    private S3ClientFactory() {}

    /** A client with the Apache 5 HTTP client sized for {@code config}. */
    public static S3Client newClient(S3StoreConfig config) {
        return builder(config).httpClient(newHttpClient(config)).build();
    }

    /** The HTTP client {@link #newClient} uses; tests wrap it to inject faults. */
    public static SdkHttpClient newHttpClient(S3StoreConfig config) {
        return Apache5HttpClient.builder()
                .connectionTimeout(config.connectTimeout())
                .socketTimeout(config.requestTimeout())
                // Parallel ranged reads plus parallel part uploads of several open files.
                .maxConnections(Math.max(50, 2 * (config.readParallelism() + config.uploadConcurrency())))
                .tcpKeepAlive(true)
                .build();
    }

    /**
     * A client builder with credentials, region, endpoint, addressing style and retries set from
     * {@code config} but no HTTP client: callers add one ({@link #newHttpClient} or a wrapper).
     */
    public static S3ClientBuilder builder(S3StoreConfig config) {
        S3ClientBuilder b = S3Client.builder()
                .credentialsProvider(credentials(config))
                .region(region(config))
                .forcePathStyle(!config.virtualHostedStyle())
                .overrideConfiguration(ClientOverrideConfiguration.builder()
                        .retryStrategy(S3RetryPolicy.strategy(config))
                        .build());
        if (config.endpoint() != null) {
            b.endpointOverride(config.endpoint());
        }
        return b;
    }

    static AwsCredentialsProvider credentials(S3StoreConfig config) {
        if (config.accessKeyId() == null) {
            // Environment, system properties, web identity, ~/.aws profiles (AWS_PROFILE), container
            // and instance credentials; resolved lazily on the first request.
            return DefaultCredentialsProvider.builder().build();
        }
        return StaticCredentialsProvider.create(
                config.sessionToken() == null
                        ? AwsBasicCredentials.create(config.accessKeyId(), config.secretAccessKey())
                        : AwsSessionCredentials.create(
                                config.accessKeyId(), config.secretAccessKey(), config.sessionToken()));
    }

    static Region region(S3StoreConfig config) {
        if (config.region() != null) {
            return Region.of(config.region());
        }
        if (config.endpoint() != null) {
            // S3-compatible servers accept any signing region. Skipping the region chain also
            // avoids its instance-metadata probe, which stalls for seconds off EC2.
            return Region.US_EAST_1;
        }
        try {
            return new DefaultAwsRegionProviderChain().getRegion();
        } catch (SdkClientException e) {
            throw new IllegalArgumentException(
                    "No AWS region configured: set the storage option " + S3StoreConfig.REGION
                            + " (or AWS_REGION, or a region in the AWS profile)",
                    e);
        }
    }
}
