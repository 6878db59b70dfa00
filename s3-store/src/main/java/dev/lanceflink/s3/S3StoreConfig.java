package dev.lanceflink.s3;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Validated settings of one S3 store, read from Lance's storage option keys and the standard
 * {@code AWS_*} environment variables.
 *
 * <p>Precedence: a storage option beats the environment variable, which beats the AWS SDK's
 * defaults (default credential chain with profiles, default region chain). Keys are matched
 * case-insensitively, with the same aliases Lance accepts (for example {@code aws_endpoint},
 * {@code aws_endpoint_url} and {@code endpoint} all set the endpoint). Keys this class does not
 * know are ignored, because Lance's storage options also carry settings for other layers.
 *
 * @param endpoint custom S3 endpoint such as {@code http://127.0.0.1:9000}; null for AWS itself
 * @param region signing region; null means the SDK's region chain (or {@code us-east-1} when a
 *     custom endpoint is set, as S3-compatible servers accept any region)
 * @param accessKeyId static access key id; null means the SDK's default credential chain
 * @param secretAccessKey secret for {@code accessKeyId}; never printed
 * @param sessionToken optional session token for temporary credentials; never printed
 * @param allowHttp whether a plain-http endpoint is permitted (Lance's {@code allow_http})
 * @param virtualHostedStyle bucket in the host name (true) or in the path (false, path-style)
 * @param partSizeBytes size of each multipart-upload part, and the threshold above which
 *     {@link dev.lanceflink.io.ObjectStore#create} switches from one PUT to a multipart upload
 * @param uploadConcurrency parts of one upload in flight at once
 * @param maxAttempts attempts per request including the first (Lance's {@code client_max_retries} + 1)
 * @param retryBaseDelay first backoff delay; it doubles per attempt, with full jitter
 * @param retryMaxDelay cap of one backoff delay
 * @param connectTimeout TCP connect timeout
 * @param requestTimeout socket read timeout: the longest silence tolerated within a response
 * @param readParallelism ranged GETs of one {@code readRanges} call in flight at once
 * @param coalesceGapBytes ranges closer than this are fetched with one GET
 * @param maxCoalescedBytes upper bound of one coalesced GET
 * @param listPageSize keys per ListObjectsV2 page (S3's maximum is 1000)
 */
public record S3StoreConfig(
        URI endpoint,
        String region,
        String accessKeyId,
        String secretAccessKey,
        String sessionToken,
        boolean allowHttp,
        boolean virtualHostedStyle,
        long partSizeBytes,
        int uploadConcurrency,
        int maxAttempts,
        Duration retryBaseDelay,
        Duration retryMaxDelay,
        Duration connectTimeout,
        Duration requestTimeout,
        int readParallelism,
        int coalesceGapBytes,
        int maxCoalescedBytes,
        int listPageSize) {

    /**
     * The smallest part size: S3 (and S3Proxy, MinIO) reject a completed upload whose parts other
     * than the last are below 5 MiB.
     */
    public static final long MIN_PART_SIZE = 5L << 20;
    /** S3's largest part. */
    public static final long MAX_PART_SIZE = 5L << 30;

    public static final long DEFAULT_PART_SIZE = 16L << 20;
    public static final int DEFAULT_UPLOAD_CONCURRENCY = 4;
    /** Lance's default {@code client_max_retries} is 10, so 11 attempts. */
    public static final int DEFAULT_MAX_ATTEMPTS = 11;

    public static final Duration DEFAULT_RETRY_BASE_DELAY = Duration.ofMillis(100);
    public static final Duration DEFAULT_RETRY_MAX_DELAY = Duration.ofSeconds(15);
    /** Lance's default {@code connect_timeout}. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
    /** Lance's default {@code request_timeout}. */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(30);

    public static final int DEFAULT_READ_PARALLELISM = 8;
    /** Lance coalesces ranges up to 1 MiB apart; fetching a gap is cheaper than another request. */
    public static final int DEFAULT_COALESCE_GAP = 1 << 20;

    public static final int DEFAULT_MAX_COALESCED = 16 << 20;
    public static final int DEFAULT_LIST_PAGE_SIZE = 1000;

    // Option keys (lower case). The aws_* names and their aliases are Lance's (object_store's).
    public static final String ENDPOINT = "aws_endpoint";
    public static final String REGION = "aws_region";
    public static final String ACCESS_KEY_ID = "aws_access_key_id";
    public static final String SECRET_ACCESS_KEY = "aws_secret_access_key";
    public static final String SESSION_TOKEN = "aws_session_token";
    public static final String ALLOW_HTTP = "allow_http";
    public static final String VIRTUAL_HOSTED_STYLE = "aws_virtual_hosted_style_request";
    public static final String CLIENT_MAX_RETRIES = "client_max_retries";
    public static final String CONNECT_TIMEOUT = "connect_timeout";
    public static final String REQUEST_TIMEOUT = "request_timeout";
    // Settings of this connector, which Lance has no key for.
    public static final String PART_SIZE = "s3_part_size";
    public static final String UPLOAD_CONCURRENCY = "s3_upload_concurrency";
    public static final String RETRY_BASE_DELAY = "s3_retry_base_delay";
    public static final String RETRY_MAX_DELAY = "s3_retry_max_delay";
    public static final String READ_PARALLELISM = "s3_read_parallelism";
    public static final String COALESCE_GAP = "s3_coalesce_gap";
    public static final String MAX_COALESCED = "s3_max_coalesced_size";
    public static final String LIST_PAGE_SIZE = "s3_list_page_size";

    /** Alias → canonical key, following object_store's AmazonS3ConfigKey / ClientConfigKey parsing. */
    private static final Map<String, String> ALIASES = aliases();

    private static Map<String, String> aliases() {
        Map<String, String> m = new HashMap<>();
        for (String k : List.of(ENDPOINT, "aws_endpoint_url", "endpoint", "endpoint_url")) {
            m.put(k, ENDPOINT);
        }
        for (String k : List.of(REGION, "region", "aws_default_region", "default_region")) {
            m.put(k, REGION);
        }
        m.put(ACCESS_KEY_ID, ACCESS_KEY_ID);
        m.put("access_key_id", ACCESS_KEY_ID);
        m.put(SECRET_ACCESS_KEY, SECRET_ACCESS_KEY);
        m.put("secret_access_key", SECRET_ACCESS_KEY);
        for (String k : List.of(SESSION_TOKEN, "aws_token", "session_token", "token")) {
            m.put(k, SESSION_TOKEN);
        }
        m.put(ALLOW_HTTP, ALLOW_HTTP);
        m.put("aws_allow_http", ALLOW_HTTP);
        m.put(VIRTUAL_HOSTED_STYLE, VIRTUAL_HOSTED_STYLE);
        m.put("virtual_hosted_style_request", VIRTUAL_HOSTED_STYLE);
        for (String k : List.of(
                CLIENT_MAX_RETRIES,
                CONNECT_TIMEOUT,
                REQUEST_TIMEOUT,
                PART_SIZE,
                UPLOAD_CONCURRENCY,
                RETRY_BASE_DELAY,
                RETRY_MAX_DELAY,
                READ_PARALLELISM,
                COALESCE_GAP,
                MAX_COALESCED,
                LIST_PAGE_SIZE)) {
            m.put(k, k);
        }
        m.put("timeout", REQUEST_TIMEOUT);
        return Map.copyOf(m);
    }

    /** Environment variable → canonical key; AWS_ENDPOINT_URL is the SDKs' name, AWS_ENDPOINT object_store's. */
    private static final Map<String, String> ENV = Map.of(
            "AWS_ENDPOINT_URL", ENDPOINT,
            "AWS_ENDPOINT", ENDPOINT,
            "AWS_REGION", REGION,
            "AWS_DEFAULT_REGION", REGION,
            "AWS_ACCESS_KEY_ID", ACCESS_KEY_ID,
            "AWS_SECRET_ACCESS_KEY", SECRET_ACCESS_KEY,
            "AWS_SESSION_TOKEN", SESSION_TOKEN,
            "AWS_ALLOW_HTTP", ALLOW_HTTP,
            "AWS_VIRTUAL_HOSTED_STYLE_REQUEST", VIRTUAL_HOSTED_STYLE);

    /** Environment variables in the order they are consulted (the first one set wins). */
    private static final List<String> ENV_ORDER = List.of(
            "AWS_ENDPOINT_URL",
            "AWS_ENDPOINT",
            "AWS_REGION",
            "AWS_DEFAULT_REGION",
            "AWS_ACCESS_KEY_ID",
            "AWS_SECRET_ACCESS_KEY",
            "AWS_SESSION_TOKEN",
            "AWS_ALLOW_HTTP",
            "AWS_VIRTUAL_HOSTED_STYLE_REQUEST");

    public S3StoreConfig {
        region = blankToNull(region);
        accessKeyId = blankToNull(accessKeyId);
        secretAccessKey = blankToNull(secretAccessKey);
        sessionToken = blankToNull(sessionToken);
        if ((accessKeyId == null) != (secretAccessKey == null)) {
            throw new IllegalArgumentException(
                    accessKeyId == null
                            ? SECRET_ACCESS_KEY + " is set but " + ACCESS_KEY_ID
                                    + " is not: set both, or neither to use the AWS default credential chain"
                            : ACCESS_KEY_ID + " is set but " + SECRET_ACCESS_KEY
                                    + " is not: set both, or neither to use the AWS default credential chain");
        }
        if (sessionToken != null && accessKeyId == null) {
            throw new IllegalArgumentException(SESSION_TOKEN + " is set without " + ACCESS_KEY_ID + "/"
                    + SECRET_ACCESS_KEY + ": a session token only completes temporary static credentials");
        }
        if (endpoint != null) {
            String scheme =
                    endpoint.getScheme() == null ? "" : endpoint.getScheme().toLowerCase(Locale.ROOT);
            if (!scheme.equals("http") && !scheme.equals("https") || endpoint.getHost() == null) {
                throw new IllegalArgumentException(ENDPOINT + " '" + endpoint
                        + "' is not an http(s) URL with a host, e.g. https://s3.example.com or http://127.0.0.1:9000");
            }
            if (scheme.equals("http") && !allowHttp) {
                throw new IllegalArgumentException(
                        ENDPOINT + " '" + endpoint + "' uses plain http, which is refused unless " + ALLOW_HTTP
                                + "=true (or AWS_ALLOW_HTTP=true) is set");
            }
        }
        if (partSizeBytes < MIN_PART_SIZE || partSizeBytes > MAX_PART_SIZE) {
            throw new IllegalArgumentException(PART_SIZE + " must be between " + MIN_PART_SIZE + " and " + MAX_PART_SIZE
                    + " bytes (S3's limits for multipart parts), was " + partSizeBytes);
        }
        requireRange(UPLOAD_CONCURRENCY, uploadConcurrency, 1, 64);
        requireRange("maxAttempts (" + CLIENT_MAX_RETRIES + " + 1)", maxAttempts, 1, 101);
        requirePositive(RETRY_BASE_DELAY, retryBaseDelay);
        requirePositive(RETRY_MAX_DELAY, retryMaxDelay);
        if (retryMaxDelay.compareTo(retryBaseDelay) < 0) {
            throw new IllegalArgumentException(RETRY_MAX_DELAY + " (" + retryMaxDelay + ") is below " + RETRY_BASE_DELAY
                    + " (" + retryBaseDelay + ")");
        }
        requirePositive(CONNECT_TIMEOUT, connectTimeout);
        requirePositive(REQUEST_TIMEOUT, requestTimeout);
        requireRange(READ_PARALLELISM, readParallelism, 1, 256);
        requireRange(COALESCE_GAP, coalesceGapBytes, 0, 64 << 20);
        requireRange(MAX_COALESCED, maxCoalescedBytes, 64 << 10, 1 << 30);
        requireRange(LIST_PAGE_SIZE, listPageSize, 1, 1000);
    }

    /** Settings from the storage options alone, with defaults for the rest (no environment). */
    public static S3StoreConfig fromOptions(Map<String, String> storageOptions) {
        return fromOptions(storageOptions, Map.of());
    }

    /** Settings from the storage options, then the process environment, then defaults. */
    public static S3StoreConfig fromOptionsAndEnvironment(Map<String, String> storageOptions) {
        return fromOptions(storageOptions, System.getenv());
    }

    /**
     * Settings from {@code storageOptions} (Lance keys, any case, with aliases), falling back to
     * the {@code AWS_*} variables in {@code environment}, then to defaults.
     *
     * @throws IllegalArgumentException naming the key whose value is invalid
     */
    public static S3StoreConfig fromOptions(Map<String, String> storageOptions, Map<String, String> environment) {
        Map<String, String> v = new HashMap<>();
        for (String env : ENV_ORDER) {
            String value = environment.get(env);
            if (value != null && !value.isBlank()) {
                v.putIfAbsent(ENV.get(env), value.trim());
            }
        }
        // Options beat the environment. Two aliases of one key in the options are a mistake.
        Map<String, String> fromOptions = new HashMap<>();
        for (Map.Entry<String, String> e : storageOptions.entrySet()) {
            String canonical = ALIASES.get(e.getKey().trim().toLowerCase(Locale.ROOT));
            if (canonical == null || e.getValue() == null) {
                continue;
            }
            String previous = fromOptions.put(canonical, e.getValue().trim());
            if (previous != null && !previous.equals(e.getValue().trim())) {
                throw new IllegalArgumentException("Storage options set " + canonical
                        + " twice (through aliases) with different values: keep one of them");
            }
        }
        v.putAll(fromOptions);

        URI endpoint = null;
        String endpointText = v.get(ENDPOINT);
        if (endpointText != null && !endpointText.isEmpty()) {
            try {
                endpoint = new URI(endpointText);
            } catch (URISyntaxException e) {
                throw new IllegalArgumentException(
                        ENDPOINT + " '" + endpointText + "' is not a valid URL: " + e.getMessage(), e);
            }
        }
        boolean allowHttp = parseBoolean(ALLOW_HTTP, v.get(ALLOW_HTTP), false);
        // Lance's key: false = path-style. Unset: path-style for custom endpoints (MinIO, S3Proxy,
        // Ceph rarely resolve bucket sub-domains), the SDK's virtual-hosted style for AWS itself.
        boolean virtualHosted = parseBoolean(VIRTUAL_HOSTED_STYLE, v.get(VIRTUAL_HOSTED_STYLE), endpoint == null);
        long maxRetries = parseLong(CLIENT_MAX_RETRIES, v.get(CLIENT_MAX_RETRIES), DEFAULT_MAX_ATTEMPTS - 1);
        requireRange(CLIENT_MAX_RETRIES, maxRetries, 0, 100);
        return new S3StoreConfig(
                endpoint,
                v.get(REGION),
                v.get(ACCESS_KEY_ID),
                v.get(SECRET_ACCESS_KEY),
                v.get(SESSION_TOKEN),
                allowHttp,
                virtualHosted,
                parseSize(PART_SIZE, v.get(PART_SIZE), DEFAULT_PART_SIZE),
                (int) parseLong(UPLOAD_CONCURRENCY, v.get(UPLOAD_CONCURRENCY), DEFAULT_UPLOAD_CONCURRENCY),
                (int) maxRetries + 1,
                parseDuration(RETRY_BASE_DELAY, v.get(RETRY_BASE_DELAY), DEFAULT_RETRY_BASE_DELAY),
                parseDuration(RETRY_MAX_DELAY, v.get(RETRY_MAX_DELAY), DEFAULT_RETRY_MAX_DELAY),
                parseDuration(CONNECT_TIMEOUT, v.get(CONNECT_TIMEOUT), DEFAULT_CONNECT_TIMEOUT),
                parseDuration(REQUEST_TIMEOUT, v.get(REQUEST_TIMEOUT), DEFAULT_REQUEST_TIMEOUT),
                (int) parseLong(READ_PARALLELISM, v.get(READ_PARALLELISM), DEFAULT_READ_PARALLELISM),
                (int) Math.min(Integer.MAX_VALUE, parseSize(COALESCE_GAP, v.get(COALESCE_GAP), DEFAULT_COALESCE_GAP)),
                (int) Math.min(
                        Integer.MAX_VALUE, parseSize(MAX_COALESCED, v.get(MAX_COALESCED), DEFAULT_MAX_COALESCED)),
                (int) parseLong(LIST_PAGE_SIZE, v.get(LIST_PAGE_SIZE), DEFAULT_LIST_PAGE_SIZE));
    }

    /** A copy with another part size (tests and large-file writers tune it). */
    public S3StoreConfig withPartSize(long bytes) {
        return new S3StoreConfig(
                endpoint,
                region,
                accessKeyId,
                secretAccessKey,
                sessionToken,
                allowHttp,
                virtualHostedStyle,
                bytes,
                uploadConcurrency,
                maxAttempts,
                retryBaseDelay,
                retryMaxDelay,
                connectTimeout,
                requestTimeout,
                readParallelism,
                coalesceGapBytes,
                maxCoalescedBytes,
                listPageSize);
    }

    /** A copy with another retry budget and backoff. */
    public S3StoreConfig withRetries(int attempts, Duration baseDelay, Duration maxDelay) {
        return new S3StoreConfig(
                endpoint,
                region,
                accessKeyId,
                secretAccessKey,
                sessionToken,
                allowHttp,
                virtualHostedStyle,
                partSizeBytes,
                uploadConcurrency,
                attempts,
                baseDelay,
                maxDelay,
                connectTimeout,
                requestTimeout,
                readParallelism,
                coalesceGapBytes,
                maxCoalescedBytes,
                listPageSize);
    }

    /** A copy with other read coalescing settings. */
    public S3StoreConfig withCoalescing(int gapBytes, int maxBytes) {
        return new S3StoreConfig(
                endpoint,
                region,
                accessKeyId,
                secretAccessKey,
                sessionToken,
                allowHttp,
                virtualHostedStyle,
                partSizeBytes,
                uploadConcurrency,
                maxAttempts,
                retryBaseDelay,
                retryMaxDelay,
                connectTimeout,
                requestTimeout,
                readParallelism,
                gapBytes,
                maxBytes,
                listPageSize);
    }

    /** A copy with another listing page size. */
    public S3StoreConfig withListPageSize(int keys) {
        return new S3StoreConfig(
                endpoint,
                region,
                accessKeyId,
                secretAccessKey,
                sessionToken,
                allowHttp,
                virtualHostedStyle,
                partSizeBytes,
                uploadConcurrency,
                maxAttempts,
                retryBaseDelay,
                retryMaxDelay,
                connectTimeout,
                requestTimeout,
                readParallelism,
                coalesceGapBytes,
                maxCoalescedBytes,
                keys);
    }

    /** A copy with other static credentials (null, null for the default chain). */
    public S3StoreConfig withCredentials(String keyId, String secret) {
        return new S3StoreConfig(
                endpoint,
                region,
                keyId,
                secret,
                null,
                allowHttp,
                virtualHostedStyle,
                partSizeBytes,
                uploadConcurrency,
                maxAttempts,
                retryBaseDelay,
                retryMaxDelay,
                connectTimeout,
                requestTimeout,
                readParallelism,
                coalesceGapBytes,
                maxCoalescedBytes,
                listPageSize);
    }

    /** Secrets are redacted: configurations end up in logs and exception messages. */
    @Override
    public String toString() {
        return "S3StoreConfig[endpoint=" + (endpoint == null ? "(AWS)" : endpoint)
                + ", region=" + (region == null ? "(default chain)" : region)
                + ", credentials="
                + (accessKeyId == null
                        ? "(default chain)"
                        : "static key " + accessKeyId + (sessionToken == null ? "" : " with session token"))
                + ", allowHttp=" + allowHttp
                + ", " + (virtualHostedStyle ? "virtual-hosted style" : "path style")
                + ", partSize=" + partSizeBytes + ", uploadConcurrency=" + uploadConcurrency
                + ", maxAttempts=" + maxAttempts + ", retryDelay=" + retryBaseDelay + ".." + retryMaxDelay
                + ", connectTimeout=" + connectTimeout + ", requestTimeout=" + requestTimeout
                + ", readParallelism=" + readParallelism + ", coalesceGap=" + coalesceGapBytes
                + ", maxCoalesced=" + maxCoalescedBytes + ", listPageSize=" + listPageSize + "]";
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.trim();
    }

    private static void requireRange(String key, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(key + " must be between " + min + " and " + max + ", was " + value);
        }
    }

    private static void requirePositive(String key, Duration d) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(key + " must be a positive duration, was " + d);
        }
    }

    static boolean parseBoolean(String key, String value, boolean dflt) {
        if (value == null || value.isEmpty()) {
            return dflt;
        }
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "true", "1", "yes", "on" -> true;
            case "false", "0", "no", "off" -> false;
            default -> throw new IllegalArgumentException(key + " must be true or false, was '" + value + "'");
        };
    }

    static long parseLong(String key, String value, long dflt) {
        if (value == null || value.isEmpty()) {
            return dflt;
        }
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be an integer, was '" + value + "'", e);
        }
    }

    /** Durations as Lance writes them: {@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h}; a bare number is seconds. */
    static Duration parseDuration(String key, String value, Duration dflt) {
        if (value == null || value.isEmpty()) {
            return dflt;
        }
        String s = value.toLowerCase(Locale.ROOT).replace(" ", "");
        int i = 0;
        while (i < s.length() && (Character.isDigit(s.charAt(i)) || s.charAt(i) == '.')) {
            i++;
        }
        String unit = s.substring(i);
        double amount;
        try {
            amount = Double.parseDouble(s.substring(0, i));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    key + " must be a duration such as 500ms, 30s or 2m, was '" + value + "'", e);
        }
        double millis = switch (unit) {
            case "ms", "msec", "millis" -> amount;
            case "", "s", "sec", "secs", "second", "seconds" -> amount * 1_000;
            case "m", "min", "mins", "minute", "minutes" -> amount * 60_000;
            case "h", "hr", "hour", "hours" -> amount * 3_600_000;
            default ->
                throw new IllegalArgumentException(
                        key + " has an unknown time unit '" + unit + "' in '" + value + "': use ms, s, m or h");
        };
        return Duration.ofMillis(Math.round(millis));
    }

    /** Sizes: plain bytes or with a binary suffix, e.g. {@code 8MiB}, {@code 64KiB}, {@code 1GiB} (also k/m/g). */
    static long parseSize(String key, String value, long dflt) {
        if (value == null || value.isEmpty()) {
            return dflt;
        }
        String s = value.toLowerCase(Locale.ROOT).replace(" ", "");
        int i = 0;
        while (i < s.length() && Character.isDigit(s.charAt(i))) {
            i++;
        }
        long shift = switch (s.substring(i)) {
            case "", "b" -> 0;
            case "k", "kb", "kib" -> 10;
            case "m", "mb", "mib" -> 20;
            case "g", "gb", "gib" -> 30;
            default ->
                throw new IllegalArgumentException(
                        key + " must be a size such as 8388608, 8MiB or 64KiB, was '" + value + "'");
        };
        try {
            long n = Long.parseLong(s.substring(0, i));
            if (n > (Long.MAX_VALUE >> shift)) {
                throw new IllegalArgumentException(key + " is too large: '" + value + "'");
            }
            return n << shift;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    key + " must be a size such as 8388608, 8MiB or 64KiB, was '" + value + "'", e);
        }
    }
}
