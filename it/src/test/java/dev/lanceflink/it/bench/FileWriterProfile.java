package dev.lanceflink.it.bench;

import dev.lanceflink.file.FileVersion;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.schema.LanceSchema;
import dev.lanceflink.write.FragmentWriter;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * The sink's file-writing half alone: rows of the sink benchmark's shape, already in Arrow
 * batches of 8192, written through {@link FragmentWriter} with one new writer (and file) per
 * simulated checkpoint, as the append sink's writer does. Prints the writing thread's CPU
 * seconds and allocated bytes per million rows and the young-collection count and time, for
 * several rounds (the first ones warm the JIT up). CPU rather than wall time, because benchmark
 * machines are often shared. By default one writer lives through all checkpoints and is flushed
 * at each, as the sink's writer does; a fourth argument {@code writer-per-checkpoint} starts a
 * new writer per checkpoint instead.
 *
 * <p>Not part of the test suite. Run with this module's test classpath:
 * {@code java -cp "$cp" dev.lanceflink.it.bench.FileWriterProfile [rows [rowsPerCheckpoint [rounds [mode]]]]}
 * (defaults 5,000,000, 500,000 and 5).
 */
public final class FileWriterProfile {
    private static final int BATCH_ROWS = 8192;

    private FileWriterProfile() {}

    public static void main(String[] args) throws Exception {
        int rows = args.length > 0 ? Integer.parseInt(args[0]) : 5_000_000;
        int rowsPerCheckpoint = args.length > 1 ? Integer.parseInt(args[1]) : 500_000;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        boolean writerPerCheckpoint = args.length > 3 && args[3].equals("writer-per-checkpoint");
        Path dir = Files.createTempDirectory("lance-file-writer-profile");
        LanceSchema schema = LanceSchema.fromArrow(SinkBenchmark.SCHEMA, 0);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (BufferAllocator allocator = new RootAllocator()) {
            List<VectorSchemaRoot> batches = batches(allocator, rowsPerCheckpoint);
            try {
                for (int round = 0; round < rounds; round++) {
                    Path tableDir = Files.createDirectories(dir.resolve("round-" + round));
                    long gcCount = gcCount();
                    long gcMillis = gcMillis();
                    long cpu = threads.getCurrentThreadCpuTime();
                    long allocated = threads.getThreadAllocatedBytes(
                            Thread.currentThread().getId());
                    long files = 0;
                    try (ObjectStore store = new LocalObjectStore(tableDir);
                            FragmentWriter longLived = new FragmentWriter(
                                    store,
                                    schema,
                                    FileVersion.V2_1,
                                    1 << 20,
                                    allocator,
                                    FileWriterOptions.defaults())) {
                        for (int done = 0; done < rows; done += rowsPerCheckpoint) {
                            if (writerPerCheckpoint) {
                                try (FragmentWriter writer = new FragmentWriter(
                                        store,
                                        schema,
                                        FileVersion.V2_1,
                                        1 << 20,
                                        allocator,
                                        FileWriterOptions.defaults())) {
                                    for (VectorSchemaRoot b : batches) {
                                        writer.write(b);
                                    }
                                    files += writer.finish().size();
                                }
                            } else {
                                for (VectorSchemaRoot b : batches) {
                                    longLived.write(b);
                                }
                                files += longLived.flush().size();
                            }
                        }
                        longLived.finish();
                    }
                    cpu = threads.getCurrentThreadCpuTime() - cpu;
                    allocated = threads.getThreadAllocatedBytes(
                                    Thread.currentThread().getId())
                            - allocated;
                    double millions = (double) rows / 1e6;
                    System.out.printf(
                            Locale.ROOT,
                            "round %d: %,d rows in %d files: %.3f CPU s per M rows, %.1f MB"
                                    + " allocated per M rows, %d young GCs (%d ms)%n",
                            round,
                            rows,
                            files,
                            cpu / 1e9 / millions,
                            allocated / 1e6 / millions,
                            gcCount() - gcCount,
                            gcMillis() - gcMillis);
                }
            } finally {
                batches.forEach(VectorSchemaRoot::close);
            }
        }
    }

    /** One checkpoint's rows as batches of the benchmark's row {@code i}. */
    private static List<VectorSchemaRoot> batches(BufferAllocator allocator, int rows) {
        List<VectorSchemaRoot> out = new java.util.ArrayList<>();
        for (int start = 0; start < rows; start += BATCH_ROWS) {
            int n = Math.min(BATCH_ROWS, rows - start);
            VectorSchemaRoot root = VectorSchemaRoot.create(SinkBenchmark.SCHEMA, allocator);
            root.allocateNew();
            for (int r = 0; r < n; r++) {
                long i = start + r;
                ((BigIntVector) root.getVector("id")).setSafe(r, 10_000 + i);
                ((VarCharVector) root.getVector("name")).setSafe(r, ("r-" + i).getBytes(StandardCharsets.UTF_8));
                ((IntVector) root.getVector("age")).setSafe(r, (int) (i % 100));
                ((Float8Vector) root.getVector("score")).setSafe(r, i / 4.0);
            }
            root.setRowCount(n);
            out.add(root);
        }
        return out;
    }

    private static long gcCount() {
        long sum = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            sum += Math.max(0, gc.getCollectionCount());
        }
        return sum;
    }

    private static long gcMillis() {
        long sum = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            sum += Math.max(0, gc.getCollectionTime());
        }
        return sum;
    }
}
