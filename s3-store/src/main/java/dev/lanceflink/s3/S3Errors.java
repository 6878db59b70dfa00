package dev.lanceflink.s3;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InterruptedIOException;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.AbortedException;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * Turns AWS SDK exceptions into {@link IOException}s whose message says which operation on which
 * object failed, why, and what to change. A missing object becomes
 * {@link FileNotFoundException}, as the {@link dev.lanceflink.io.ObjectStore} contract asks; a
 * missing bucket does not, so it is never mistaken for "no such table version".
 */
final class S3Errors {
    private S3Errors() {}

    static final int PRECONDITION_FAILED = 412;

    static boolean isStatus(SdkException e, int status) {
        return e instanceof AwsServiceException a && a.statusCode() == status;
    }

    static String errorCode(SdkException e) {
        if (e instanceof AwsServiceException a && a.awsErrorDetails() != null) {
            return a.awsErrorDetails().errorCode();
        }
        return null;
    }

    /** True when S3 said "no such key" (as opposed to "no such bucket"); HEAD 404s carry no code. */
    static boolean isMissingObject(SdkException e) {
        if (!isStatus(e, 404)) {
            return false;
        }
        String code = errorCode(e);
        return code == null || code.equals("NoSuchKey") || code.equals("NotFound");
    }

    /**
     * @param operation what was attempted, e.g. "GET" or "conditional PUT"
     * @param uri the object or prefix, {@code s3://bucket/key}
     */
    static IOException map(SdkException e, String operation, String uri, S3Location location, S3StoreConfig config) {
        String where = operation + " " + uri + " (" + endpoint(config) + ")";
        if (e instanceof AwsServiceException a) {
            int status = a.statusCode();
            String code = errorCode(e);
            String detail = "HTTP " + status + (code == null ? "" : " " + code)
                    + (a.requestId() == null ? "" : ", request id " + a.requestId());
            String msg = switch (code == null ? "" : code) {
                case "NoSuchBucket" ->
                    "S3 bucket '" + location.bucket() + "' does not exist: " + where
                            + " failed. Create the bucket or correct the table URI";
                case "NoSuchKey" -> null;
                case "InvalidAccessKeyId" ->
                    "The access key id is not known to the S3 server: " + where + " failed. Check "
                            + S3StoreConfig.ACCESS_KEY_ID + " (or AWS_ACCESS_KEY_ID / the AWS profile)";
                case "SignatureDoesNotMatch" ->
                    "The secret key does not match the access key id: " + where + " failed. Check "
                            + S3StoreConfig.SECRET_ACCESS_KEY + " (or AWS_SECRET_ACCESS_KEY / the AWS profile)";
                case "ExpiredToken", "TokenRefreshRequired", "InvalidToken" ->
                    "The session credentials are expired or invalid: " + where + " failed. Refresh "
                            + S3StoreConfig.SESSION_TOKEN + " and the temporary keys";
                case "AccessDenied", "AllAccessDisabled" ->
                    "Access denied: " + where
                            + " failed. The credentials lack the permission for this operation on bucket '"
                            + location.bucket() + "' (s3:GetObject, s3:PutObject, s3:ListBucket, s3:DeleteObject)";
                case "AuthorizationHeaderMalformed", "PermanentRedirect", "IllegalLocationConstraintException" ->
                    "The bucket '" + location.bucket() + "' is in another region or needs another endpoint: " + where
                            + " failed. Set " + S3StoreConfig.REGION + " to the bucket's region";
                case "SlowDown",
                        "RequestLimitExceeded",
                        "Throttling",
                        "ThrottlingException",
                        "TooManyRequestsException" ->
                    "S3 kept throttling after " + config.maxAttempts() + " attempts: " + where
                            + " failed. Reduce the request rate or raise " + S3StoreConfig.CLIENT_MAX_RETRIES;
                case "EntityTooSmall" ->
                    "The S3 server rejected a multipart part as too small: " + where + " failed. Set "
                            + S3StoreConfig.PART_SIZE + " to at least " + S3StoreConfig.MIN_PART_SIZE
                            + " bytes for this server";
                default -> null;
            };
            if (msg == null) {
                if (status == 404 && !"NoSuchBucket".equals(code)) {
                    FileNotFoundException fnf =
                            new FileNotFoundException("Object not found: " + uri + " (" + detail + ")");
                    fnf.initCause(e);
                    return fnf;
                }
                if (status == 403) {
                    // HEAD responses have no body, so no error code: name both likely causes.
                    msg = "Access denied: " + where + " failed. Either the credentials are wrong ("
                            + S3StoreConfig.ACCESS_KEY_ID + "/" + S3StoreConfig.SECRET_ACCESS_KEY
                            + ", AWS_* variables or the AWS profile) or they lack permission on bucket '"
                            + location.bucket() + "'";
                } else if (status == 301 || status == 307) {
                    msg = "The bucket '" + location.bucket()
                            + "' must be addressed through another region or endpoint: " + where + " failed. Set "
                            + S3StoreConfig.REGION + " to the bucket's region";
                } else if (status >= 500) {
                    msg = "The S3 server kept failing after " + config.maxAttempts() + " attempts: " + where
                            + " failed";
                } else {
                    msg = where + " failed: "
                            + (a.awsErrorDetails() == null
                                    ? a.getMessage()
                                    : a.awsErrorDetails().errorMessage());
                }
            }
            return new IOException(msg + " [" + detail + "]", e);
        }
        if (e instanceof AbortedException) {
            InterruptedIOException io = new InterruptedIOException(where + " was interrupted");
            io.initCause(e);
            return io;
        }
        if (e instanceof ApiCallTimeoutException || e instanceof ApiCallAttemptTimeoutException) {
            return new IOException(
                    where + " timed out after " + config.maxAttempts() + " attempts; raise "
                            + S3StoreConfig.REQUEST_TIMEOUT + " or check the network: " + e.getMessage(),
                    e);
        }
        if (e instanceof SdkClientException) {
            String m = String.valueOf(e.getMessage());
            if (m.contains("Unable to load credentials")) {
                return new IOException(
                        "No AWS credentials found for " + where + ": set " + S3StoreConfig.ACCESS_KEY_ID
                                + " and " + S3StoreConfig.SECRET_ACCESS_KEY
                                + " storage options, the AWS_ACCESS_KEY_ID and "
                                + "AWS_SECRET_ACCESS_KEY variables, or an AWS profile. " + m,
                        e);
            }
            if (hasCause(e, IOException.class)) {
                return new IOException(
                        where + " failed after " + config.maxAttempts() + " attempts; is the endpoint reachable? " + m,
                        e);
            }
            return new IOException(where + " failed: " + m, e);
        }
        return new IOException(where + " failed: " + e.getMessage(), e);
    }

    private static boolean hasCause(Throwable t, Class<? extends Throwable> type) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (type.isInstance(c)) {
                return true;
            }
        }
        return false;
    }

    static String endpoint(S3StoreConfig config) {
        return config.endpoint() == null
                ? "AWS S3" + (config.region() == null ? "" : " " + config.region())
                : "endpoint " + config.endpoint();
    }
}
