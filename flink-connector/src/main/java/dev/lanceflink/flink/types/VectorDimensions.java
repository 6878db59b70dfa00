package dev.lanceflink.flink.types;

import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Which {@code ARRAY} columns are fixed-size vectors, and their dimension.
 *
 * <p>Flink SQL has no fixed-size array type, while Lance stores embeddings as Arrow
 * {@code fixed_size_list<item, N>} (the layout vector indexes need). A Flink user declares such a
 * column as a plain {@code ARRAY<FLOAT>} (or any other element type) and names its dimension in
 * the table option {@code 'vector-dimensions' = 'embedding:768,image.clip:512'}; nested columns
 * are named by their dotted path. Declare the element nullable ({@code ARRAY<FLOAT>}, not
 * {@code ARRAY<FLOAT NOT NULL>}): Lance stores no element nullability for vectors and reads the
 * element back as nullable. Only writes (creating a table) need this: a read takes the
 * dimension from the table's own schema, and any {@code ARRAY} of the right element type reads a
 * fixed-size list column.
 */
public final class VectorDimensions implements Serializable {
    private static final long serialVersionUID = 1L;
    private static final VectorDimensions NONE = new VectorDimensions(Map.of());

    private final Map<String, Integer> byPath;

    private VectorDimensions(Map<String, Integer> byPath) {
        this.byPath = Map.copyOf(byPath);
    }

    /** No fixed-size vectors: every {@code ARRAY} becomes a variable-length list. */
    public static VectorDimensions none() {
        return NONE;
    }

    /**
     * Dimensions by dotted column path, e.g. {@code {"embedding": 768}}.
     *
     * @throws LanceTypeException if a dimension is not positive
     */
    public static VectorDimensions of(Map<String, Integer> byPath) {
        Map<String, Integer> checked = new LinkedHashMap<>();
        byPath.forEach((path, dim) -> {
            if (path == null || path.isBlank()) {
                throw new LanceTypeException("'vector-dimensions' has an entry without a column name: use "
                        + "'column:dimension', e.g. 'embedding:768'");
            }
            if (dim == null || dim <= 0) {
                throw new LanceTypeException("'vector-dimensions' gives column '" + path + "' the dimension " + dim
                        + "; a vector dimension must be a positive integer");
            }
            checked.put(path, dim);
        });
        return checked.isEmpty() ? NONE : new VectorDimensions(checked);
    }

    /**
     * Parses the option value form ({@code column:dimension} pairs, as Flink's map options give
     * them as strings).
     */
    public static VectorDimensions parse(Map<String, String> option) {
        Map<String, Integer> out = new LinkedHashMap<>();
        option.forEach((path, text) -> {
            try {
                out.put(path.trim(), Integer.parseInt(text.trim()));
            } catch (NumberFormatException e) {
                throw new LanceTypeException("'vector-dimensions' gives column '" + path + "' the dimension '" + text
                        + "', which is not an integer; write e.g. 'embedding:768'");
            }
        });
        return of(out);
    }

    /** The dimension of the column at {@code path}, or 0 if it is not a fixed-size vector. */
    public int dimensionOf(String path) {
        return byPath.getOrDefault(path, 0);
    }

    public Map<String, Integer> asMap() {
        return byPath;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof VectorDimensions v && v.byPath.equals(byPath);
    }

    @Override
    public int hashCode() {
        return byPath.hashCode();
    }

    @Override
    public String toString() {
        return byPath.toString();
    }
}
