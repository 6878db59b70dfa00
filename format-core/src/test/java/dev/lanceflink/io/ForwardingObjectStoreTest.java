package dev.lanceflink.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ForwardingObjectStoreTest {
    @TempDir
    Path root;

    /** A local store whose overrides of the default methods are observable. */
    private static final class Observable extends ForwardingObjectStore {
        boolean closed;

        Observable(Path root) {
            super(new LocalObjectStore(root));
        }

        @Override
        public List<String> listDirectories(String directory) {
            return List.of("from-the-delegate");
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    @Test
    void forwardsTheStoresOwnOverridesOfDefaultMethods() throws IOException {
        Observable local = new Observable(root);
        local.put("data/f.lance", new byte[] {1, 2, 3});
        ObjectStore wrapper = new ForwardingObjectStore(local) {};

        // The local store checks a known size (the interface default would ignore it).
        assertThatThrownBy(() -> wrapper.openReader("data/f.lance", 999)).isInstanceOf(WrongObjectSizeException.class);
        try (RangeReader r = wrapper.openReader("data/f.lance", 3)) {
            assertThat(r.read(2, 1).get(0)).isEqualTo((byte) 3);
        }
        assertThat(wrapper.listDirectories("")).containsExactly("from-the-delegate");
        wrapper.close();
        assertThat(local.closed).isTrue();
    }

    @Test
    void existenceChecksGoThroughTheSubclassHead() throws IOException {
        LocalObjectStore local = new LocalObjectStore(root);
        local.put("hidden", new byte[] {1});
        ObjectStore wrapper = new ForwardingObjectStore(local) {
            @Override
            public Optional<ObjectInfo> head(String path) {
                return Optional.empty();
            }
        };
        assertThat(local.exists("hidden")).isTrue();
        assertThat(wrapper.exists("hidden")).isFalse();
    }
}
