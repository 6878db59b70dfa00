package dev.lanceflink.flink.sink;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * Where the upsert sink keeps its key → row location map in a streaming job (SQL option {@code
 * 'sink.key-map'}); see {@code docs/design/upsert-key-map.md}. State written with {@link
 * #KEYED_STATE} restores into {@link #IN_MEMORY} (the restored keyed map is the in-memory map's
 * base until a later checkpoint shows committed); state written with {@link #IN_MEMORY} is refused
 * by {@link #KEYED_STATE}, naming the mode to restore with.
 */
public enum KeyMapMode {
    /**
     * Flink keyed state: the whole map is in every checkpoint (incrementally with
     * RocksDB), and it is bootstrapped from the table on the first start only. For tables whose
     * keys do not fit in the task managers' heap (with RocksDB).
     */
    KEYED_STATE("keyed-state"),
    /**
     * A primitive map on the heap, built from the table at every start (a scan of the key
     * columns, each subtask keeping its key groups); checkpoints hold only the changes of keys not
     * yet shown committed in the table (inserts, deletes, moved rows), tens of KB instead of the
     * whole map. Needs the keys of a subtask in its heap (about 32 bytes per integral key; {@code
     * 'sink.key-map.max-memory'} bounds it). The default.
     */
    IN_MEMORY("in-memory");

    private final String optionValue;

    KeyMapMode(String optionValue) {
        this.optionValue = optionValue;
    }

    /** The value of {@code 'sink.key-map'} that selects this mode. */
    public String optionValue() {
        return optionValue;
    }

    /** The mode an option value names (case-insensitive), or empty if none does. */
    public static Optional<KeyMapMode> ofOptionValue(String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        return Arrays.stream(values()).filter(m -> m.optionValue.equals(v)).findFirst();
    }
}
