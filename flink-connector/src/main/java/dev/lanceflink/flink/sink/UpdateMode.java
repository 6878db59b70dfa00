package dev.lanceflink.flink.sink;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * How the upsert and row-address sinks store an update of an existing row (SQL option
 * {@code 'sink.update-mode'}).
 */
public enum UpdateMode {
    /**
     * Data overlay files holding only the changed cells (the default): cheap, rows stay where they
     * are, but released Lance readers refuse such versions unless
     * {@code LANCE_ENABLE_UNSTABLE_DATA_OVERLAY_FILES} is set (reader feature flag 64).
     */
    OVERLAY("overlay"),
    /**
     * What Lance's own update does: the old row is deleted (deletion vector) and the whole new row
     * appended to a new fragment, in one Lance {@code Update} version per checkpoint. Every Lance
     * release reads the table; the cost is rewriting whole rows, moving them to new row addresses,
     * and indices not covering the moved rows until they are updated.
     */
    REWRITE_ROWS("rewrite-rows");

    private final String optionValue;

    UpdateMode(String optionValue) {
        this.optionValue = optionValue;
    }

    /** The value of {@code 'sink.update-mode'} that selects this mode. */
    public String optionValue() {
        return optionValue;
    }

    /** The mode an option value names (case-insensitive), or empty if none does. */
    public static Optional<UpdateMode> ofOptionValue(String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        return Arrays.stream(values()).filter(m -> m.optionValue.equals(v)).findFirst();
    }
}
