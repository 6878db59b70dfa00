package dev.lanceflink.io;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The {@link ObjectStore} contract that the table format relies on, run against every store
 * implementation (local disk here, S3 in s3-store). Subclasses supply a fresh, empty store per
 * test; every assertion checks exact bytes, names and order.
 */
public abstract class ObjectStoreContractTest {

    protected ObjectStore store;

    /** A new, empty store (its own root) for one test. */
    protected abstract ObjectStore newStore() throws Exception;

    /** Size of the object written by {@link #createWritesLargeObjectInOddChunks}; S3 uses several parts. */
    protected int largeObjectSize() {
        return 3 << 20;
    }

    /** Rounds of the 8-writer putIfAbsent race. */
    protected int raceRounds() {
        return 25;
    }

    @BeforeEach
    void openStore() throws Exception {
        store = newStore();
    }

    @AfterEach
    void closeStore() throws Exception {
        if (store != null) {
            store.close();
        }
    }

    protected static byte[] bytes(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    protected static List<String> paths(Iterator<ObjectInfo> it) {
        List<String> out = new ArrayList<>();
        it.forEachRemaining(o -> out.add(o.path()));
        return out;
    }

    @Test
    void putThenReadAllReturnsExactBytes() throws IOException {
        byte[] all = new byte[256];
        for (int i = 0; i < 256; i++) {
            all[i] = (byte) i;
        }
        store.put("data/all-bytes.bin", all);
        store.put("empty.bin", new byte[0]);

        assertThat(store.readAll("data/all-bytes.bin")).isEqualTo(all);
        assertThat(store.readAll("empty.bin")).isEmpty();
    }

    @Test
    void putReplacesAnExistingObject() throws IOException {
        store.put("_latest.manifest", "v1".getBytes(UTF_8));
        store.put("_latest.manifest", "version-2".getBytes(UTF_8));

        assertThat(new String(store.readAll("_latest.manifest"), UTF_8)).isEqualTo("version-2");
    }

    @Test
    void missingObjectIsFileNotFoundNamingThePath() throws IOException {
        assertThatThrownBy(() -> store.readAll("data/missing.lance"))
                .isInstanceOf(FileNotFoundException.class)
                .hasMessageContaining("data/missing.lance");
        assertThatThrownBy(() -> store.openReader("data/missing.lance"))
                .isInstanceOf(FileNotFoundException.class)
                .hasMessageContaining("data/missing.lance");
        assertThat(store.head("data/missing.lance")).isEmpty();
        assertThat(store.exists("data/missing.lance")).isFalse();
    }

    @Test
    void headReportsSizeAndTime() throws IOException {
        long before = System.currentTimeMillis() - 60_000;
        store.put("data/a.lance", bytes(1234, 1));

        ObjectInfo info = store.head("data/a.lance").orElseThrow();
        assertThat(info.path()).isEqualTo("data/a.lance");
        assertThat(info.name()).isEqualTo("a.lance");
        assertThat(info.size()).isEqualTo(1234);
        assertThat(info.lastModifiedMillis()).isGreaterThan(before);
        assertThat(store.exists("data/a.lance")).isTrue();
    }

    @Test
    void putIfAbsentCreatesOnceAndNeverOverwrites() throws IOException {
        assertThat(store.putIfAbsent("_versions/1.manifest", "first".getBytes(UTF_8)))
                .isTrue();
        assertThat(store.putIfAbsent("_versions/1.manifest", "second".getBytes(UTF_8)))
                .isFalse();

        assertThat(new String(store.readAll("_versions/1.manifest"), UTF_8)).isEqualTo("first");
        assertThat(paths(store.list("_versions"))).containsExactly("_versions/1.manifest");
    }

    @Test
    void concurrentPutIfAbsentHasExactlyOneWinnerPerRound() throws Exception {
        int writers = 8;
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try {
            for (int round = 0; round < raceRounds(); round++) {
                String path = "_versions/" + (1000 + round) + ".manifest";
                CyclicBarrier start = new CyclicBarrier(writers);
                List<Future<Boolean>> results = new ArrayList<>();
                for (int w = 0; w < writers; w++) {
                    byte[] content = ("writer-" + w + "-round-" + round).getBytes(UTF_8);
                    Callable<Boolean> attempt = () -> {
                        start.await(30, TimeUnit.SECONDS);
                        return store.putIfAbsent(path, content);
                    };
                    results.add(pool.submit(attempt));
                }
                int winner = -1;
                int wins = 0;
                for (int w = 0; w < writers; w++) {
                    if (results.get(w).get(60, TimeUnit.SECONDS)) {
                        wins++;
                        winner = w;
                    }
                }
                assertThat(wins).as("winners of round %d", round).isEqualTo(1);
                assertThat(new String(store.readAll(path), UTF_8))
                        .as("content of round %d is the winner's", round)
                        .isEqualTo("writer-" + winner + "-round-" + round);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void createdObjectIsInvisibleUntilClosed() throws IOException {
        byte[] content = bytes(10_000, 2);
        OutputStream out = store.create("data/new.lance");
        out.write(content, 0, 4000);
        out.write(content, 4000, 6000);

        assertThat(store.head("data/new.lance")).isEmpty();
        assertThat(paths(store.list("data"))).isEmpty();

        out.close();
        out.close(); // idempotent
        assertThat(store.readAll("data/new.lance")).isEqualTo(content);
        assertThat(paths(store.list("data"))).containsExactly("data/new.lance");
    }

    @Test
    void createWritesLargeObjectInOddChunks() throws IOException {
        byte[] content = bytes(largeObjectSize() + 12_345, 3);
        try (OutputStream out = store.create("data/large.lance")) {
            int pos = 0;
            int chunk = 1;
            while (pos < content.length) {
                int n = Math.min(chunk, content.length - pos);
                if (n == 1) {
                    out.write(content[pos]);
                } else {
                    out.write(content, pos, n);
                }
                pos += n;
                chunk = chunk * 7 + 3; // 1, 10, 73, 514, ... crosses buffer and part boundaries unevenly
                if (chunk > 700_000) {
                    chunk = 13;
                }
            }
        }
        assertThat(store.head("data/large.lance").orElseThrow().size()).isEqualTo(content.length);
        assertThat(store.readAll("data/large.lance")).isEqualTo(content);
    }

    @Test
    void createWritesEmptyObject() throws IOException {
        store.create("data/empty.lance").close();

        assertThat(store.readAll("data/empty.lance")).isEmpty();
        assertThat(store.head("data/empty.lance").orElseThrow().size()).isZero();
    }

    @Test
    void listReturnsDirectChildrenSortedByName() throws IOException {
        // Byte order, not numeric or length order: "a10" < "a9" < "b"; upper case before lower case.
        for (String p :
                List.of("dir/b", "dir/a9", "dir/a10", "dir/B", "dir/_z", "dir/sub/deep.bin", "dir2/x", "dirx")) {
            store.put(p, p.getBytes(UTF_8));
        }
        List<ObjectInfo> listed = new ArrayList<>();
        store.list("dir").forEachRemaining(listed::add);

        assertThat(listed)
                .extracting(ObjectInfo::path)
                .containsExactly("dir/B", "dir/_z", "dir/a10", "dir/a9", "dir/b");
        assertThat(listed).extracting(ObjectInfo::size).containsExactly(5L, 6L, 7L, 6L, 5L);
        assertThat(paths(store.list(""))).containsExactly("dirx");
        assertThat(paths(store.list("dir/sub"))).containsExactly("dir/sub/deep.bin");
        assertThat(paths(store.list("nothing-here"))).isEmpty();
    }

    @Test
    void listOfVersionManifestsPutsNewestFirst() throws IOException {
        // Lance V2 manifest names are u64::MAX - version, zero-padded to 20 digits: newest sorts first.
        for (long version : new long[] {1, 2, 9, 10, 11, 100}) {
            String name = Long.toUnsignedString(-1L - version); // 2^64 - 1 - version, 20 digits
            store.put("_versions/" + name + ".manifest", Long.toString(version).getBytes(UTF_8));
        }
        Iterator<ObjectInfo> it = store.list("_versions");

        assertThat(new String(store.readAll(it.next().path()), UTF_8)).isEqualTo("100");
        assertThat(new String(store.readAll(it.next().path()), UTF_8)).isEqualTo("11");
    }

    @Test
    void listRecursiveFindsEveryDepth() throws IOException {
        for (String p : List.of("data/a.lance", "data/x/b.lance", "data/x/y/c.lance", "datum.txt", "other/d")) {
            store.put(p, new byte[] {1});
        }

        assertThat(paths(store.listRecursive("data/")))
                .containsExactlyInAnyOrder("data/a.lance", "data/x/b.lance", "data/x/y/c.lance");
        assertThat(paths(store.listRecursive("dat")))
                .containsExactlyInAnyOrder("data/a.lance", "data/x/b.lance", "data/x/y/c.lance", "datum.txt");
        assertThat(paths(store.listRecursive("")))
                .containsExactlyInAnyOrder(
                        "data/a.lance", "data/x/b.lance", "data/x/y/c.lance", "datum.txt", "other/d");
    }

    @Test
    void listDirectoriesNamesImmediateSubdirectoriesSorted() throws IOException {
        for (String p : List.of(
                "db1/.lance-database",
                "db1/t.lance/_versions/1.manifest",
                "db1/t.lance/data/a.lance",
                "db1/u.lance/data/b.lance",
                "db2/x",
                "a/b/c/d",
                "B/e",
                "_c/f",
                "d/g",
                "e/h",
                "root-file",
                "dbx")) {
            store.put(p, new byte[] {1});
        }

        // Seven directories: more than one listing page on the S3 contract store (2 entries a page).
        assertThat(store.listDirectories("")).containsExactly("B", "_c", "a", "d", "db1", "db2", "e");
        assertThat(store.listDirectories("db1")).containsExactly("t.lance", "u.lance");
        assertThat(store.listDirectories("db1/t.lance")).containsExactly("_versions", "data");
        assertThat(store.listDirectories("a")).containsExactly("b");
        assertThat(store.listDirectories("db2")).isEmpty();
        assertThat(store.listDirectories("root-file")).isEmpty();
        assertThat(store.listDirectories("nothing-here")).isEmpty();
        // A name that is only a prefix of directory names is not a directory of them.
        assertThat(store.listDirectories("db")).isEmpty();
    }

    @Test
    void readerWithKnownSizeReadsExactRanges() throws IOException {
        byte[] content = bytes(100_000, 6);
        store.put("data/k.lance", content);

        try (RangeReader r = store.openReader("data/k.lance", 100_000)) {
            assertThat(r.size()).isEqualTo(100_000);
            assertRange(r.readTail(64), content, 100_000 - 64, 64);
            assertRange(r.read(7, 1000), content, 7, 1000);
            ByteBuffer[] got = r.readRanges(new long[] {90_000, 0, 50}, new int[] {10_000, 10, 20_000});
            assertRange(got[0], content, 90_000, 10_000);
            assertRange(got[1], content, 0, 10);
            assertRange(got[2], content, 50, 20_000);
            assertThatThrownBy(() -> r.read(99_990, 11)).isInstanceOf(EOFException.class);
        }
        // 0 (and negative) means unknown: the store learns the size itself.
        try (RangeReader r = store.openReader("data/k.lance", 0)) {
            assertThat(r.size()).isEqualTo(100_000);
            assertRange(r.read(99_000, 1000), content, 99_000, 1000);
        }
    }

    @Test
    void readerWithWrongKnownSizeFailsNamingTheFileBeforeReturningBytes() throws IOException {
        store.put("data/w.lance", bytes(1000, 7));

        // Too large by a little (the tail range overlaps the end), too small, and far too large
        // (the tail range starts past the end of the object).
        for (long recorded : new long[] {1010, 990, 1_000_000}) {
            assertThatThrownBy(() -> {
                        try (RangeReader r = store.openReader("data/w.lance", recorded)) {
                            r.readTail(64);
                        }
                    })
                    .as("recorded size %d", recorded)
                    .isInstanceOf(WrongObjectSizeException.class)
                    .hasMessageContaining("data/w.lance")
                    .hasMessageContaining(Long.toString(recorded))
                    .satisfies(e -> assertThat(((WrongObjectSizeException) e).recordedSize())
                            .isEqualTo(recorded));
        }
    }

    @Test
    void readerWithKnownSizeOfMissingObjectIsFileNotFound() {
        assertThatThrownBy(() -> {
                    try (RangeReader r = store.openReader("data/missing.lance", 500)) {
                        r.readTail(64);
                    }
                })
                .isInstanceOf(FileNotFoundException.class)
                .hasMessageContaining("data/missing.lance");
    }

    @Test
    void deleteRemovesAndIgnoresMissing() throws IOException {
        store.put("data/a.lance", new byte[] {1, 2});
        store.delete("data/a.lance");
        store.delete("data/a.lance");
        store.delete("never/existed");

        assertThat(store.exists("data/a.lance")).isFalse();
        assertThat(paths(store.list("data"))).isEmpty();
    }

    @Test
    void rangeReaderReadsExactRanges() throws IOException {
        byte[] content = bytes(100_000, 4);
        store.put("data/r.lance", content);

        try (RangeReader r = store.openReader("data/r.lance")) {
            assertThat(r.size()).isEqualTo(100_000);
            assertRange(r.read(0, 10), content, 0, 10);
            assertRange(r.read(99_990, 10), content, 99_990, 10);
            assertRange(r.read(5000, 0), content, 5000, 0);
            assertRange(r.readTail(64), content, 100_000 - 64, 64);
            assertRange(r.readTail(1_000_000), content, 0, 100_000);

            // Unordered, overlapping, duplicate, adjacent, far apart and empty ranges.
            long[] offsets = {90_000, 10, 10, 0, 50, 60, 40_000, 99_999, 70};
            int[] lengths = {5000, 20, 20, 100, 10, 0, 1, 1, 30_000};
            ByteBuffer[] got = r.readRanges(offsets, lengths);
            assertThat(got).hasSize(offsets.length);
            for (int i = 0; i < offsets.length; i++) {
                assertRange(got[i], content, (int) offsets[i], lengths[i]);
            }
            assertThat(r.readRanges(new long[0], new int[0])).isEmpty();
        }
    }

    @Test
    void rangeReaderRejectsReadsPastTheEnd() throws IOException {
        store.put("data/r.lance", bytes(1000, 5));

        try (RangeReader r = store.openReader("data/r.lance")) {
            assertThatThrownBy(() -> r.read(990, 11))
                    .isInstanceOf(EOFException.class)
                    .hasMessageContaining("data/r.lance");
            assertThatThrownBy(() -> r.read(-1, 1)).isInstanceOf(EOFException.class);
            assertThatThrownBy(() -> r.readRanges(new long[] {0, 999}, new int[] {1, 2}))
                    .isInstanceOf(EOFException.class);
            assertRange(r.read(990, 10), bytes(1000, 5), 990, 10);
        }
    }

    @Test
    void rangeReaderServesConcurrentReaders() throws Exception {
        byte[] content = bytes(200_000, 6);
        store.put("data/c.lance", content);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try (RangeReader r = store.openReader("data/c.lance")) {
            List<Future<?>> tasks = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                long seed = t;
                tasks.add(pool.submit(() -> {
                    Random rnd = new Random(seed);
                    for (int i = 0; i < 20; i++) {
                        int off = rnd.nextInt(content.length);
                        int len = rnd.nextInt(Math.min(5000, content.length - off) + 1);
                        assertRange(r.read(off, len), content, off, len);
                    }
                    return null;
                }));
            }
            for (Future<?> f : tasks) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    protected static void assertRange(ByteBuffer got, byte[] content, int offset, int length) {
        assertThat(got.remaining()).as("length of range %d+%d", offset, length).isEqualTo(length);
        byte[] b = new byte[length];
        got.duplicate().get(b);
        byte[] expected = new byte[length];
        System.arraycopy(content, offset, expected, 0, length);
        assertThat(b).as("bytes of range %d+%d", offset, length).isEqualTo(expected);
    }
}
