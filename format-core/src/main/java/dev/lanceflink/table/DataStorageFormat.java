package dev.lanceflink.table;

import static java.util.Objects.requireNonNull;

/**
 * {@code Manifest.DataStorageFormat}: the file format and exact version ("2.0", "2.1", …) that
 * every data file of the table must use.
 */
public record DataStorageFormat(String fileFormat, String version) {
    public DataStorageFormat {
        requireNonNull(fileFormat, "fileFormat is null");
        requireNonNull(version, "version is null");
    }

    public static DataStorageFormat lance(String version) {
        return new DataStorageFormat("lance", version);
    }

    /** The (major, minor) a {@link DataFile} of this format carries, e.g. 2.1 → {2, 1}. */
    public int[] majorMinor() {
        int dot = version.indexOf('.');
        if (dot < 0) {
            throw new IllegalArgumentException("Data storage version '" + version + "' is not <major>.<minor>");
        }
        return new int[] {Integer.parseInt(version.substring(0, dot)), Integer.parseInt(version.substring(dot + 1))};
    }
}
