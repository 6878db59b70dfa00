package dev.lanceflink.schema;

/**
 * A data type cannot be represented: either a Lance {@code logical_type} string that is not part
 * of the grammar this connector implements (or that Arrow Java cannot hold), or an Arrow type that
 * Lance cannot store (unions, intervals, list views, run-end encoded arrays, sorted maps, time
 * zones containing {@code ':'}, ...).
 */
public final class UnsupportedTypeException extends LanceSchemaException {
    private static final long serialVersionUID = 1L;

    private final String fieldName;
    private final String type;

    /**
     * @param fieldName name or dotted path of the offending field
     * @param type the logical type string or Arrow type rendering that was rejected
     * @param reason why, and what to use instead
     */
    public UnsupportedTypeException(String fieldName, String type, String reason) {
        super("Field '" + fieldName + "' has unsupported type '" + type + "': " + reason);
        this.fieldName = fieldName;
        this.type = type;
    }

    /** Name or dotted path of the field whose type was rejected. */
    public String fieldName() {
        return fieldName;
    }

    /** The rejected logical type string or Arrow type. */
    public String type() {
        return type;
    }
}
