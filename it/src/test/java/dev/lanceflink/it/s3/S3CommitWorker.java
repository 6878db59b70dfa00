package dev.lanceflink.it.s3;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.ObjectStores;
import dev.lanceflink.txn.CommitOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * A separate writer process for {@link ConcurrentS3CommitsTest}: appends {@code count} batches of
 * 5 rows to a table, one commit each, then prints {@value #DONE} and the count. Usage:
 * {@code S3CommitWorker <uri> <worker-id> <count> [key=value storage option]...}. Exit status 1
 * with a stack trace on any failure.
 */
public final class S3CommitWorker {
    static final String DONE = "worker-done";

    private S3CommitWorker() {}

    public static void main(String[] args) {
        try {
            String uri = args[0];
            int worker = Integer.parseInt(args[1]);
            int count = Integer.parseInt(args[2]);
            Map<String, String> options = new LinkedHashMap<>();
            for (int i = 3; i < args.length; i++) {
                int eq = args[i].indexOf('=');
                options.put(args[i].substring(0, eq), args[i].substring(eq + 1));
            }
            CommitOptions commit = CommitOptions.defaults()
                    .withMaxAttempts(40)
                    .withBackoff(Duration.ofMillis(20), Duration.ofMillis(500));
            try (BufferAllocator allocator = new RootAllocator();
                    ObjectStore store = ObjectStores.open(uri, options)) {
                for (int i = 0; i < count; i++) {
                    try (Dataset latest = Dataset.open(store, allocator);
                            VectorSchemaRoot batch = TestRows.batch(allocator, ids(worker, i))) {
                        long v = latest.append(
                                        List.of(batch),
                                        WriteParams.of(WriteMode.APPEND)
                                                .withTransactionProperties(
                                                        Map.of(RetryingTableDriver.OP_ID, "w" + worker + "-" + i))
                                                .withCommitOptions(commit))
                                .version();
                        System.out.println("worker " + worker + " committed append " + i + " as version " + v);
                    }
                }
            }
            System.out.println(DONE + " " + count);
            System.exit(0);
        } catch (Throwable t) {
            t.printStackTrace(System.out);
            System.exit(1);
        }
    }

    /** Ids of append {@code i} of worker {@code w}. */
    static long[] ids(int worker, int i) {
        long base = 10_000_000L * worker + 5L * i;
        return TestRows.range(base, base + 5);
    }

    /** The command line that runs a worker with this JVM's class path. */
    static ProcessBuilder command(TableLocation table, int worker, int count) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("--add-opens=java.base/java.nio=ALL-UNNAMED");
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(S3CommitWorker.class.getName());
        cmd.add(table.uri());
        cmd.add(Integer.toString(worker));
        cmd.add(Integer.toString(count));
        table.storageOptions().forEach((k, v) -> cmd.add(k + "=" + v));
        return new ProcessBuilder(cmd);
    }
}
