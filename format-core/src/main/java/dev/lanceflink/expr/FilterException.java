package dev.lanceflink.expr;

/** A filter that cannot be parsed or does not fit the schema; the message says where and why. */
public class FilterException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public FilterException(String message) {
        super(message);
    }
}
