package dev.lanceflink.schema;

/**
 * A schema is malformed or cannot be used as asked: a broken flattened field list, a duplicate
 * name or id, an unknown column in a projection, and so on.
 *
 * <p>Unchecked on purpose: a bad schema is a bug in the input (or a corrupt table), not a
 * condition callers can usefully recover from at each call site. The message always names the
 * field (by path and id where known) and says what to do.
 */
public class LanceSchemaException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public LanceSchemaException(String message) {
        super(message);
    }

    public LanceSchemaException(String message, Throwable cause) {
        super(message, cause);
    }
}
