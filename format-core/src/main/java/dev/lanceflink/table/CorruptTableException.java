package dev.lanceflink.table;

import java.io.IOException;

/**
 * A table file (manifest, transaction, deletion or row-id file) is malformed: a bad trailer or
 * magic, a length or offset outside the file, an unparsable protobuf, or a value that violates
 * the format's invariants. The message names the file and what is wrong.
 */
public class CorruptTableException extends IOException {
    private static final long serialVersionUID = 1L;

    public CorruptTableException(String message) {
        super(message);
    }

    public CorruptTableException(String message, Throwable cause) {
        super(message, cause);
    }
}
