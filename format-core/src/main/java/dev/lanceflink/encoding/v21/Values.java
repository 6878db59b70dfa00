package dev.lanceflink.encoding.v21;

/**
 * Decoded leaf values of a structural (2.1+) column: the value slots of a chunk, a page, a
 * dictionary, or the growing result of a read. Every visible item (including null items) owns
 * exactly one slot; what a null slot holds is unspecified (zeros / empty).
 *
 * <p>Implementations are mutable, growable builders over primitive arrays, so a read appends
 * slices of decoded chunks without allocating anything per value.
 */
public sealed interface Values permits FixedWidthValues, VariableWidthValues, FixedSizeListValues, StructValues {

    /** Number of value slots. */
    int count();

    /** An empty builder of the same kind and shape. */
    Values emptyLike();

    /** Appends slots {@code [from, to)} of {@code src}, which must be of the same kind and shape. */
    void append(Values src, int from, int to);

    /**
     * Tells the builder that about {@code slots} more slots will be appended, so that it grows once
     * instead of doubling its way up (a hint: appends beyond it still grow the builder).
     */
    void expectSlots(int slots);

    /** Appends {@code n} placeholder slots (zeros, empty values, invalid items). */
    void appendPlaceholders(int n);

    /**
     * Appends {@code dictionary[indices[i]]} for {@code i} in {@code [from, to)}; {@code indices}
     * holds unsigned 32-bit dictionary indices.
     *
     * @throws IllegalArgumentException if an index is out of the dictionary's range
     */
    void appendGather(Values dictionary, FixedWidthValues indices, int from, int to);
}
