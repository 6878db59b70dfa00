package dev.lanceflink.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.io.RangeReader;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Parallel copies of file ranges into Arrow memory: exact bytes, failures reported, threads stopped. */
class ParallelRangeCopierTest {
    private final BufferAllocator allocator = new RootAllocator();

    @AfterEach
    void close() {
        System.clearProperty(ParallelRangeCopier.THREADS_PROPERTY);
        allocator.close();
    }

    /** An in-memory object whose byte i is (i * 31 + i / 7) mod 256; records the reading threads. */
    private static final class MemoryReader implements RangeReader {
        final byte[] bytes;
        final Set<String> threads = ConcurrentHashMap.newKeySet();
        long failAt = -1;

        MemoryReader(int size) {
            bytes = new byte[size];
            for (int i = 0; i < size; i++) {
                bytes[i] = (byte) (i * 31 + i / 7);
            }
        }

        @Override
        public long size() {
            return bytes.length;
        }

        @Override
        public ByteBuffer read(long offset, int length) throws IOException {
            threads.add(Thread.currentThread().getName());
            if (failAt >= offset && failAt < offset + length) {
                throw new IOException("disk error at " + failAt);
            }
            if (offset + length > bytes.length) {
                throw new EOFException("past the end");
            }
            return ByteBuffer.wrap(bytes.clone(), (int) offset, length).slice();
        }
    }

    private static void assertCopied(ArrowBuf dst, long dstOffset, MemoryReader r, long fileOffset, long length) {
        for (long i = 0; i < length; i++) {
            if (dst.getByte(dstOffset + i) != r.bytes[(int) (fileOffset + i)]) {
                throw new AssertionError("byte " + i + " of the copy differs");
            }
        }
    }

    @Test
    void largeRangeIsCopiedExactlyWithHelperThreads() throws Exception {
        System.setProperty(ParallelRangeCopier.THREADS_PROPERTY, "3");
        MemoryReader r = new MemoryReader(5 * ParallelRangeCopier.PIECE + 1000);
        long length = 4L * ParallelRangeCopier.PIECE + 123;
        try (ParallelRangeCopier copier = new ParallelRangeCopier(r, "mem://f.lance");
                ArrowBuf dst = allocator.buffer(length + 16)) {
            copier.copy(777, length, dst, 16, "column 2 page 0 buffer 0");
            assertCopied(dst, 16, r, 777, length);
        }
        assertThat(r.threads).hasSizeGreaterThan(1).anyMatch(n -> n.startsWith("lance-read-copy-"));
    }

    @Test
    void smallRangeStaysOnTheCallingThread() throws Exception {
        System.setProperty(ParallelRangeCopier.THREADS_PROPERTY, "3");
        MemoryReader r = new MemoryReader(ParallelRangeCopier.PIECE * 2);
        try (ParallelRangeCopier copier = new ParallelRangeCopier(r, "mem://f.lance");
                ArrowBuf dst = allocator.buffer(1000)) {
            copier.copy(5, 1000, dst, 0, "column 0 page 0 buffer 0");
            assertCopied(dst, 0, r, 5, 1000);
        }
        assertThat(r.threads).containsExactly(Thread.currentThread().getName());
    }

    @Test
    void zeroHelpersCopiesSequentially() throws Exception {
        System.setProperty(ParallelRangeCopier.THREADS_PROPERTY, "0");
        MemoryReader r = new MemoryReader(3 * ParallelRangeCopier.PIECE);
        long length = 3L * ParallelRangeCopier.PIECE;
        try (ParallelRangeCopier copier = new ParallelRangeCopier(r, "mem://f.lance");
                ArrowBuf dst = allocator.buffer(length)) {
            copier.copy(0, length, dst, 0, "column 0 page 0 buffer 0");
            assertCopied(dst, 0, r, 0, length);
        }
        assertThat(r.threads).containsExactly(Thread.currentThread().getName());
    }

    @Test
    void failureOfAHelperIsReportedAfterAllHelpersFinished() {
        System.setProperty(ParallelRangeCopier.THREADS_PROPERTY, "3");
        MemoryReader r = new MemoryReader(6 * ParallelRangeCopier.PIECE);
        r.failAt = ParallelRangeCopier.PIECE + 10; // inside the first helper's share
        long length = 6L * ParallelRangeCopier.PIECE;
        try (ParallelRangeCopier copier = new ParallelRangeCopier(r, "mem://f.lance");
                ArrowBuf dst = allocator.buffer(length)) {
            assertThatThrownBy(() -> copier.copy(0, length, dst, 0, "column 1 page 3 buffer 0"))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("disk error at " + r.failAt);
        }
    }

    @Test
    void truncatedFileNamesTheFileAndTheBuffer() {
        System.setProperty(ParallelRangeCopier.THREADS_PROPERTY, "1");
        MemoryReader r = new MemoryReader(2 * ParallelRangeCopier.PIECE);
        long length = 4L * ParallelRangeCopier.PIECE;
        try (ParallelRangeCopier copier = new ParallelRangeCopier(r, "mem://f.lance");
                ArrowBuf dst = allocator.buffer(length)) {
            assertThatThrownBy(() -> copier.copy(0, length, dst, 0, "column 1 page 3 buffer 0"))
                    .isInstanceOf(LanceFileFormatException.class)
                    .hasMessageContaining("mem://f.lance")
                    .hasMessageContaining("column 1 page 3 buffer 0")
                    .hasMessageContaining("truncated");
        }
    }
}
