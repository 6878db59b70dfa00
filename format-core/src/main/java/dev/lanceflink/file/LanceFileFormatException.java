package dev.lanceflink.file;

import java.io.IOException;

/**
 * A Lance data file is malformed or uses something this reader does not understand. The message
 * always names the file and, where one applies, the byte offset, so that a corrupt object can be
 * located and inspected without a debugger.
 */
public final class LanceFileFormatException extends IOException {
    private static final long serialVersionUID = 1L;

    public LanceFileFormatException(String message) {
        super(message);
    }

    public LanceFileFormatException(String message, Throwable cause) {
        super(message, cause);
    }

    /** "Lance file {path} at offset {offset}: {what}". */
    public static LanceFileFormatException at(String path, long offset, String what) {
        return new LanceFileFormatException("Lance file " + path + " at offset " + offset + ": " + what);
    }

    /** "Lance file {path} at offset {offset}: {what}", with the exception that revealed it. */
    public static LanceFileFormatException at(String path, long offset, String what, Throwable cause) {
        return new LanceFileFormatException("Lance file " + path + " at offset " + offset + ": " + what, cause);
    }
}
