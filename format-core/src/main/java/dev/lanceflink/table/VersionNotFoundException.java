package dev.lanceflink.table;

import java.io.FileNotFoundException;

/** The requested table version (or any version at all) has no manifest. */
public class VersionNotFoundException extends FileNotFoundException {
    private static final long serialVersionUID = 1L;

    public VersionNotFoundException(String message) {
        super(message);
    }
}
