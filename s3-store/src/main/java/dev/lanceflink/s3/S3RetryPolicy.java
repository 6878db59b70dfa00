package dev.lanceflink.s3;

import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.retries.api.BackoffStrategy;
import software.amazon.awssdk.retries.api.RetryStrategy;

/**
 * The retry strategy every request of a store uses: the SDK's standard AWS conditions (throttling
 * such as 503 SlowDown, 5xx, connection failures and timeouts, and our own retryable stream
 * failures) with a bounded number of attempts and exponential backoff with full jitter, so many
 * writers throttled at once do not retry in lock-step.
 *
 * <p>The SDK's retry-token bucket (its circuit breaker) is disabled: it makes a client stop
 * retrying after a burst of failures, which turns a brief outage into failed commits; the attempt
 * bound already limits the load a failing client adds.
 *
 * <p>Errors that are not retried: 4xx other than throttling, in particular 412 (a conditional put
 * lost to another writer) and 403/404, which retrying cannot fix.
 */
public final class S3RetryPolicy {
    private S3RetryPolicy() {}

    /** The strategy for {@code config}'s attempt bound and backoff delays. */
    public static RetryStrategy strategy(S3StoreConfig config) {
        BackoffStrategy backoff = BackoffStrategy.exponentialDelay(config.retryBaseDelay(), config.retryMaxDelay());
        return AwsRetryStrategy.standardRetryStrategy().toBuilder()
                .maxAttempts(config.maxAttempts())
                .backoffStrategy(backoff)
                .throttlingBackoffStrategy(backoff)
                .circuitBreakerEnabled(false)
                .build();
    }
}
