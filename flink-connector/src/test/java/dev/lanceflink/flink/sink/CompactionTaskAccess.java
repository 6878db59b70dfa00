package dev.lanceflink.flink.sink;

import dev.lanceflink.io.ForwardingObjectStore;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.RangeReader;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;

/**
 * The local store of the test store providers that act on the in-job maintenance's compaction
 * tasks only: before a thread named {@code lance-compaction-task*} reads (or, if asked, creates)
 * a data file, {@link Hook#before} runs; every other thread and every other file goes straight
 * through.
 */
final class CompactionTaskAccess {
    private static final String COMPACTION_THREAD = "lance-compaction-task";

    /** What happens before a compaction task's access to a data file. */
    interface Hook {
        void before(String path) throws IOException;
    }

    private CompactionTaskAccess() {}

    /** The local store at the path after {@code scheme://} in {@code uri}, with {@code hook}. */
    static ObjectStore local(String uri, String scheme, boolean creates, Hook hook) {
        String prefix = scheme + "://";
        return new ForwardingObjectStore(new LocalObjectStore(Path.of(uri.substring(prefix.length())))) {
            @Override
            public RangeReader openReader(String path) throws IOException {
                before(path);
                return super.openReader(path);
            }

            @Override
            public RangeReader openReader(String path, long knownSize) throws IOException {
                before(path);
                return super.openReader(path, knownSize);
            }

            @Override
            public byte[] readAll(String path) throws IOException {
                before(path);
                return super.readAll(path);
            }

            @Override
            public OutputStream create(String path) throws IOException {
                if (creates) {
                    before(path);
                }
                return super.create(path);
            }

            private void before(String path) throws IOException {
                if (path.startsWith("data/") && Thread.currentThread().getName().startsWith(COMPACTION_THREAD)) {
                    hook.before(path);
                }
            }
        };
    }
}
