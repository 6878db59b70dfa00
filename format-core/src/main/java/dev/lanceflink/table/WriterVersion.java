package dev.lanceflink.table;

import static java.util.Objects.requireNonNull;

/**
 * The library that wrote a manifest ({@code Manifest.WriterVersion}). Lance applies workarounds
 * for bugs of old versions of its own writer when {@code library} is {@code "lance"}, and
 * distrusts cached counts when the field is absent, so this library always writes its own name.
 *
 * @param version semver core {@code major.minor.patch}
 * @param prerelease e.g. {@code beta.3}, null if absent
 * @param buildMetadata null if absent
 */
public record WriterVersion(String library, String version, String prerelease, String buildMetadata) {
    /** Library name this project writes. */
    public static final String LIBRARY = "lance-flink";
    /** This library's version, semver core. */
    public static final String VERSION = "0.1.0";
    /** Prerelease part of this library's version. */
    public static final String PRERELEASE = "SNAPSHOT";

    public WriterVersion {
        requireNonNull(library, "library is null");
        requireNonNull(version, "version is null");
    }

    /** The writer version stamped into every manifest this library commits. */
    public static WriterVersion thisLibrary() {
        return new WriterVersion(LIBRARY, VERSION, PRERELEASE, null);
    }
}
