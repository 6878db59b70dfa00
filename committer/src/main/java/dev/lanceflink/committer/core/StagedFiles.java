package dev.lanceflink.committer.core;

import dev.lanceflink.io.ObjectStore;
import java.io.IOException;
import java.util.List;

/** Removal of files that no committed version references (best effort: cleanup removes leftovers). */
final class StagedFiles {
    private StagedFiles() {}

    static void deleteQuietly(ObjectStore store, List<String> paths) {
        for (String p : paths) {
            try {
                store.delete(p);
            } catch (IOException | RuntimeException ignored) {
                // unreferenced either way
            }
        }
    }
}
