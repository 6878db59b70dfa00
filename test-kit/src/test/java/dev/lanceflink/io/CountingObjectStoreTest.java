package dev.lanceflink.io;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.Iterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CountingObjectStoreTest {
    @TempDir
    Path root;

    @Test
    void countsCallsBytesAndConsumedListEntries() throws IOException {
        CountingObjectStore store = new CountingObjectStore(new LocalObjectStore(root));
        store.put("a", new byte[10]);
        store.putIfAbsent("b", new byte[5]);
        try (OutputStream out = store.create("c")) {
            out.write(new byte[7]);
            out.write(1);
        }
        store.readAll("a");
        try (RangeReader r = store.openReader("c")) {
            r.read(0, 3);
            r.readRanges(new long[] {0, 4}, new int[] {2, 2});
        }
        Iterator<ObjectInfo> it = store.list("");
        it.next();

        assertThat(store.count(StoreOperation.PUT)).isEqualTo(1);
        assertThat(store.count(StoreOperation.PUT_IF_ABSENT)).isEqualTo(1);
        assertThat(store.count(StoreOperation.CREATE)).isEqualTo(1);
        assertThat(store.count(StoreOperation.READ_ALL)).isEqualTo(1);
        assertThat(store.count(StoreOperation.OPEN_READER)).isEqualTo(1);
        assertThat(store.count(StoreOperation.RANGE_READ)).isEqualTo(1);
        assertThat(store.count(StoreOperation.RANGES_READ)).isEqualTo(1);
        assertThat(store.count(StoreOperation.LIST)).isEqualTo(1);
        assertThat(store.bytesWritten()).isEqualTo(10 + 5 + 8);
        assertThat(store.bytesRead()).isEqualTo(10 + 3 + 4);
        assertThat(store.entriesListed()).isEqualTo(1);

        store.reset();
        assertThat(store.counts()).isEmpty();
        assertThat(store.bytesRead()).isZero();
    }
}
