package dev.lanceflink.flink.types;

/**
 * A Flink column type that has no Lance/Arrow counterpart (or the reverse), or a declared Flink
 * type that cannot read what the Lance table stores. The message names the column path and both
 * types, and says what to declare instead.
 */
public final class LanceTypeException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public LanceTypeException(String message) {
        super(message);
    }
}
