package dev.lanceflink.table;

import static java.util.Objects.requireNonNull;

/**
 * An extra storage root of a multi-location table ({@code BasePath} in table.proto). Files whose
 * {@code base_id} equals {@link #id()} live under {@link #path()}: in its {@code data/},
 * {@code _deletions/}, {@code _indices/} sub-directories when {@link #isDatasetRoot()}, else
 * directly in it.
 *
 * @param name optional alias, null if absent
 */
public record BasePath(int id, String name, boolean isDatasetRoot, String path) {
    public BasePath {
        requireNonNull(path, "path is null");
    }
}
