package dev.lanceflink.table;

import java.util.Optional;

/**
 * How manifest files under {@code _versions/} are named. A dataset uses exactly one scheme.
 *
 * <p>V2 inverts the version ({@code 2^64-1-v}, 20 zero-padded digits) so that a lexicographic
 * listing of an object store returns the newest manifest first. V1 is the plain decimal version.
 * Detached versions (top bit set) are always named {@code d<version>.manifest}; ordinary writers
 * never create them and this library only recognises them in order to skip them.
 */
public enum ManifestNamingScheme {
    V1,
    V2;

    /** The directory holding manifests, relative to the dataset root. */
    public static final String VERSIONS_DIR = "_versions";

    static final String SUFFIX = ".manifest";
    private static final int V2_DIGITS = 20;
    private static final int V2_NAME_LENGTH = V2_DIGITS + SUFFIX.length();
    static final long DETACHED_BIT = 0x8000_0000_0000_0000L;

    /** The file name (without directory) of {@code version} under this scheme. */
    public String fileName(long version) {
        if (version < 0 && this == V1) {
            // negative as signed = top bit set = detached; V1 never names those
            throw new IllegalArgumentException("Version " + Long.toUnsignedString(version)
                    + " has the detached bit set; detached manifests are named d<version>.manifest");
        }
        return switch (this) {
            case V1 -> Long.toUnsignedString(version) + SUFFIX;
            case V2 -> {
                String digits = Long.toUnsignedString(-1L - version);
                yield "0".repeat(V2_DIGITS - digits.length()) + digits + SUFFIX;
            }
        };
    }

    /** The path of {@code version}'s manifest relative to the dataset root. */
    public String path(long version) {
        return VERSIONS_DIR + "/" + fileName(version);
    }

    /**
     * The scheme of a manifest file name, or empty if the name is not an attached manifest (staging
     * files {@code <name>.manifest-<uuid>}, temp files, the version hint, detached {@code d…}
     * manifests, or names whose stem is not an unsigned decimal).
     */
    public static Optional<ManifestNamingScheme> detect(String fileName) {
        if (!fileName.endsWith(SUFFIX) || fileName.startsWith("d")) {
            return Optional.empty();
        }
        String stem = fileName.substring(0, fileName.length() - SUFFIX.length());
        if (stem.isEmpty() || stem.length() > V2_DIGITS || !stem.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return Optional.empty();
        }
        try {
            Long.parseUnsignedLong(stem);
        } catch (NumberFormatException e) {
            return Optional.empty(); // 20 digits above 2^64-1
        }
        return Optional.of(fileName.length() == V2_NAME_LENGTH ? V2 : V1);
    }

    /**
     * Parses the version from a file name of this scheme.
     *
     * @throws IllegalArgumentException if the name is not a manifest name of this scheme
     */
    public long parseVersion(String fileName) {
        Optional<ManifestNamingScheme> scheme = detect(fileName);
        if (scheme.isEmpty() || scheme.get() != this) {
            throw new IllegalArgumentException("'" + fileName + "' is not a " + this + " manifest file name");
        }
        long n = Long.parseUnsignedLong(fileName.substring(0, fileName.length() - SUFFIX.length()));
        return this == V1 ? n : -1L - n;
    }

    /** Parses a manifest file name of either scheme, or empty if it is none (see {@link #detect}). */
    public static Optional<ManifestLocation> parse(String fileName, long size) {
        return detect(fileName)
                .map(s -> new ManifestLocation(s.parseVersion(fileName), s, VERSIONS_DIR + "/" + fileName, size));
    }
}
