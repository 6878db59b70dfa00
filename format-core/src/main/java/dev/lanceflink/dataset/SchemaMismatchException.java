package dev.lanceflink.dataset;

/** Data whose schema does not fit the table it is written to; nothing was committed. */
public class SchemaMismatchException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public SchemaMismatchException(String message) {
        super(message);
    }
}
