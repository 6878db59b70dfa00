package dev.lanceflink.committer.core;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.ObjectStores;
import java.io.IOException;
import java.io.Serializable;
import java.util.Map;
import java.util.TreeMap;

/**
 * Where a table lives: its URI and storage options. Serializable and cheap, so a job graph
 * carries this instead of an open store; each task opens its own store with {@link #open()}.
 */
public record TableLocation(String uri, Map<String, String> storageOptions) implements Serializable {
    private static final long serialVersionUID = 1L;

    public TableLocation {
        requireNonNull(uri, "uri is null");
        if (uri.isBlank()) {
            throw new IllegalArgumentException("The table URI is empty");
        }
        // TreeMap: serializable, and a stable order in messages.
        storageOptions = new TreeMap<>(requireNonNull(storageOptions, "storageOptions is null"));
    }

    public static TableLocation of(String uri) {
        return new TableLocation(uri, Map.of());
    }

    /** Opens a store rooted at the table; the caller closes it. */
    public ObjectStore open() throws IOException {
        return ObjectStores.open(uri, storageOptions);
    }

    @Override
    public String toString() {
        // Storage options may hold secrets: never print their values.
        return uri + (storageOptions.isEmpty() ? "" : " (storage options " + storageOptions.keySet() + ")");
    }
}
