package dev.lanceflink.file;

import java.util.Locale;

/**
 * Versions of the Lance data file format. Note the 2.0 quirk: a 2.0 file's footer says 0.3,
 * while {@code DataFile.file_major/minor_version} and {@code Manifest.data_format} say 2.0.
 */
public enum FileVersion {
    V2_0(2, 0, 0, 3),
    V2_1(2, 1, 2, 1),
    V2_2(2, 2, 2, 2);

    private final int major;
    private final int minor;
    private final int footerMajor;
    private final int footerMinor;

    FileVersion(int major, int minor, int footerMajor, int footerMinor) {
        this.major = major;
        this.minor = minor;
        this.footerMajor = footerMajor;
        this.footerMinor = footerMinor;
    }

    /** The version as the table format records it ({@code DataFile}, {@code data_format}). */
    public int major() {
        return major;
    }

    public int minor() {
        return minor;
    }

    /** The version numbers written in the 40-byte footer of a data file. */
    public int footerMajor() {
        return footerMajor;
    }

    public int footerMinor() {
        return footerMinor;
    }

    /**
     * Whether files of this version can hold map columns: Lance's older decoders have no map
     * type, so Lance reads maps only from 2.2 files on. Every data file of a table has the
     * table's version, so a table older than 2.2 can get no map column.
     */
    public boolean storesMaps() {
        return compareTo(V2_2) >= 0;
    }

    /** "2.0", "2.1", "2.2". */
    public String label() {
        return major + "." + minor;
    }

    /**
     * The file version of a new table when the writer names none: 2.2, what current Lance (pylance
     * 14, its "stable") creates by default, so a table we create is what a Lance user would get.
     */
    public static final FileVersion DEFAULT_FOR_NEW_TABLES = V2_2;

    /** From the table format's numbers (as in {@code DataFile}). */
    public static FileVersion fromTableVersion(int major, int minor) {
        for (FileVersion v : values()) {
            if (v.major == major && v.minor == minor) {
                return v;
            }
        }
        throw new UnsupportedFileVersionException("Lance file version " + major + "." + minor
                + " is not supported (supported: 2.0, 2.1, 2.2; the legacy format 0.1 and the unstable 2.3 are not)");
    }

    /** From the numbers in a data file's footer. */
    public static FileVersion fromFooter(int major, int minor) {
        for (FileVersion v : values()) {
            if (v.footerMajor == major && v.footerMinor == minor) {
                return v;
            }
        }
        throw new UnsupportedFileVersionException("Lance data file footer version " + major + "." + minor
                + " is not supported (supported: 0.3 = 2.0, 2.1, 2.2)");
    }

    /**
     * Parses a data storage version as Lance names it (case ignored, as Lance does): "2.0" (also
     * "0.3", its footer numbers), "2.1", "2.2", and the aliases "stable" = 2.2 and "next" = 2.3
     * that pylance 14 resolves them to. "legacy" / "0.1" and 2.3 exist in Lance but are not
     * read or written here, so they are refused by name rather than as unknown.
     */
    public static FileVersion parse(String s) {
        String v = s.trim().toLowerCase(Locale.ROOT);
        switch (v) {
            case "2.0":
            case "0.3":
                return V2_0;
            case "2.1":
                return V2_1;
            case "stable":
            case "2.2":
                return V2_2;
            case "legacy":
            case "0.1":
                throw new UnsupportedFileVersionException("Lance file version '" + s + "' is the legacy 0.1 format,"
                        + " which this library does not read or write; rewrite the table with Lance as 2.0 or later");
            case "next":
            case "2.3":
                throw new UnsupportedFileVersionException("Lance file version '" + s + "' is 2.3, Lance's unstable"
                        + " next format, which this library does not read or write; use 2.2 ('stable') or earlier");
            default:
                throw new UnsupportedFileVersionException("Lance file version '" + s
                        + "' is not supported (supported: 2.0 (alias 0.3), 2.1, 2.2 (alias stable))");
        }
    }

    /** Thrown for any file version this library does not read or write. */
    public static final class UnsupportedFileVersionException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        public UnsupportedFileVersionException(String message) {
            super(message);
        }
    }
}
