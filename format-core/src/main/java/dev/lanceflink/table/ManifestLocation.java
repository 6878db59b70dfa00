package dev.lanceflink.table;

import static java.util.Objects.requireNonNull;

/**
 * Where the manifest of one table version lives.
 *
 * @param version the table version
 * @param scheme the naming scheme of the file
 * @param path path relative to the dataset root, e.g. {@code _versions/18446744073709551614.manifest}
 * @param size the file size in bytes, or -1 if not known yet (the reader then asks the store)
 */
public record ManifestLocation(long version, ManifestNamingScheme scheme, String path, long size) {
    public ManifestLocation {
        requireNonNull(scheme, "scheme is null");
        requireNonNull(path, "path is null");
    }

    /** The location of {@code version} under {@code scheme}, size unknown. */
    public static ManifestLocation of(long version, ManifestNamingScheme scheme) {
        return new ManifestLocation(version, scheme, scheme.path(version), -1);
    }
}
