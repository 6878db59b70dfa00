package dev.lanceflink.s3;

import java.util.Locale;

/**
 * Where a store lives: a bucket and a key prefix, parsed from {@code s3://bucket/prefix}.
 * Store paths are joined to the prefix with '/', so {@code s3://b/t} and path
 * {@code _versions/1.manifest} give the key {@code t/_versions/1.manifest}.
 *
 * @param bucket bucket name
 * @param prefix key prefix without leading or trailing '/'; empty for the bucket root
 */
public record S3Location(String bucket, String prefix) {

    public S3Location {
        if (bucket == null || bucket.isEmpty()) {
            throw new IllegalArgumentException("S3 bucket name is empty");
        }
        for (int i = 0; i < bucket.length(); i++) {
            char c = bucket.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || c == '.'
                    || c == '-'
                    || c == '_';
            if (!ok) {
                throw new IllegalArgumentException(
                        "S3 bucket name '" + bucket + "' has the invalid character '" + c + "' at index " + i
                                + ": bucket names use letters, digits, '.', '-' (and '_' in legacy buckets)");
            }
        }
        if (prefix == null) {
            prefix = "";
        }
        if (prefix.startsWith("/") || prefix.endsWith("/")) {
            throw new IllegalArgumentException("S3 key prefix '" + prefix + "' must not start or end with '/'");
        }
    }

    /**
     * Parses {@code s3://bucket[/prefix][/]} (also {@code s3a://}). Repeated and trailing slashes
     * in the prefix are dropped, as object_store does.
     */
    public static S3Location parse(String uri) {
        if (uri == null) {
            throw new IllegalArgumentException("S3 URI is null");
        }
        int sep = uri.indexOf("://");
        String scheme = sep < 0 ? "" : uri.substring(0, sep).toLowerCase(Locale.ROOT);
        if (!scheme.equals("s3") && !scheme.equals("s3a")) {
            throw new IllegalArgumentException("Not an S3 URI: '" + uri + "'; expected s3://bucket/prefix");
        }
        String rest = uri.substring(sep + 3);
        int q = indexOfAny(rest, '?', '#');
        if (q >= 0) {
            throw new IllegalArgumentException(
                    "S3 URI '" + uri + "' has a query or fragment; pass settings as storage options instead");
        }
        int slash = rest.indexOf('/');
        String bucket = slash < 0 ? rest : rest.substring(0, slash);
        if (bucket.isEmpty()) {
            throw new IllegalArgumentException("S3 URI '" + uri + "' has no bucket; expected s3://bucket/prefix");
        }
        StringBuilder prefix = new StringBuilder();
        if (slash >= 0) {
            for (String segment : rest.substring(slash + 1).split("/")) {
                if (segment.isEmpty()) {
                    continue;
                }
                if (segment.equals(".") || segment.equals("..")) {
                    throw new IllegalArgumentException(
                            "S3 URI '" + uri + "' has a '" + segment + "' segment; write the prefix literally");
                }
                if (prefix.length() > 0) {
                    prefix.append('/');
                }
                prefix.append(segment);
            }
        }
        return new S3Location(bucket, prefix.toString());
    }

    /** The key of a store path. */
    public String key(String path) {
        if (path == null) {
            throw new IllegalArgumentException("path is null");
        }
        if (path.startsWith("/")) {
            throw new IllegalArgumentException(
                    "Store path '" + path + "' must be relative to the store root (no leading '/')");
        }
        return prefix.isEmpty() ? path : path.isEmpty() ? prefix : prefix + "/" + path;
    }

    /** The key prefix that lists the objects directly under (or at any depth below) a store directory. */
    public String directoryPrefix(String directory) {
        String d = directory.endsWith("/") ? directory.substring(0, directory.length() - 1) : directory;
        String key = key(d);
        return key.isEmpty() ? "" : key + "/";
    }

    /** The store path of a key returned by a listing (the inverse of {@link #key}). */
    public String pathOf(String key) {
        if (prefix.isEmpty()) {
            return key;
        }
        if (!key.startsWith(prefix + "/")) {
            throw new IllegalStateException("Listed key '" + key + "' is outside the store prefix '" + prefix + "/'");
        }
        return key.substring(prefix.length() + 1);
    }

    /** {@code s3://bucket/key} for messages. */
    public String uriOf(String key) {
        return "s3://" + bucket + "/" + key;
    }

    /** The root URI, {@code s3://bucket/prefix}. */
    public String rootUri() {
        return prefix.isEmpty() ? "s3://" + bucket : "s3://" + bucket + "/" + prefix;
    }

    private static int indexOfAny(String s, char a, char b) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) == a || s.charAt(i) == b) {
                return i;
            }
        }
        return -1;
    }
}
