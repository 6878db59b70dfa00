package dev.lanceflink.it.s3;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.io.CountingObjectStore;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.ObjectStores;
import dev.lanceflink.io.StoreOperation;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.read.Scanner;
import dev.lanceflink.s3.RequestCounter;
import dev.lanceflink.s3.S3ProxyServer;
import dev.lanceflink.s3.S3StoreConfig;
import dev.lanceflink.s3.S3TestClients;
import dev.lanceflink.table.Fragment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * On-demand benchmark (not a test): write, append and scan throughput of the same table on the
 * local file system and on S3Proxy (a local S3 server, so the figures show the protocol's
 * request overhead, not network latency), and what one full scan costs: store calls, counted with
 * {@link CountingObjectStore}, and on S3 the HTTP requests by type (ranged GET, whole-object GET,
 * HEAD, LIST, PUT, ...), counted below the store by the SDK interceptor {@link RequestCounter}
 * (every attempt the SDK transmits, which is what S3 bills), with the HEADs per data file. Usage:
 * {@code S3Benchmark [rows=1000000] [rowsPerFile=250000] [appends=20] [scans=3]}; it starts its
 * own S3Proxy (the jar from the local Maven repository, see {@link S3ProxyServer}).
 */
public final class S3Benchmark {
    private S3Benchmark() {}

    public static void main(String[] args) throws Exception {
        int rows = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int rowsPerFile = args.length > 1 ? Integer.parseInt(args[1]) : 250_000;
        int appends = args.length > 2 ? Integer.parseInt(args[2]) : 20;
        int scans = args.length > 3 ? Integer.parseInt(args[3]) : 3;
        Path local = Files.createTempDirectory("lance-s3-bench");
        try (S3ProxyServer server = S3ProxyServer.start()) {
            server.createBucket(TableLocation.BUCKET);
            List<TableLocation> tables = List.of(
                    new TableLocation(
                            StoreKind.LOCAL, local.resolve("bench.lance").toString(), Map.of()),
                    new TableLocation(
                            StoreKind.S3,
                            "s3://" + TableLocation.BUCKET + "/bench-" + System.nanoTime() + ".lance",
                            server.storageOptions()));
            System.out.printf(
                    "rows=%d rowsPerFile=%d appends=%d scans=%d (columns: int64 id, int64 val, utf8 name)%n",
                    rows, rowsPerFile, appends, scans);
            for (TableLocation t : tables) {
                run(t, rows, rowsPerFile, appends, scans);
            }
        } finally {
            try (var walk = Files.walk(local)) {
                walk.sorted(java.util.Comparator.reverseOrder())
                        .forEach(p -> p.toFile().delete());
            }
        }
    }

    private static void run(TableLocation table, int rows, int rowsPerFile, int appends, int scans) throws Exception {
        RequestCounter http = new RequestCounter();
        try (BufferAllocator allocator = new RootAllocator();
                ObjectStore raw = table.kind() == StoreKind.S3
                        ? S3TestClients.open(table.uri(), S3StoreConfig.fromOptions(table.storageOptions()), http, null)
                        : ObjectStores.open(table.uri(), table.storageOptions())) {
            CountingObjectStore store = new CountingObjectStore(raw);
            List<VectorSchemaRoot> batches = new ArrayList<>();
            int batchRows = 65_536;
            for (long from = 0; from < rows; from += batchRows) {
                batches.add(TestRows.batch(allocator, TestRows.range(from, Math.min(rows, from + batchRows))));
            }
            long t0 = System.nanoTime();
            Dataset.write(
                    store,
                    allocator,
                    batches,
                    TestRows.SCHEMA,
                    WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(rowsPerFile));
            double writeSec = (System.nanoTime() - t0) / 1e9;
            long written = store.bytesWritten();
            batches.forEach(VectorSchemaRoot::close);
            System.out.printf(
                    "%-5s write   %,d rows in %.2f s: %,.0f rows/s, %.1f MB/s, %d requests%n",
                    table.kind(), rows, writeSec, rows / writeSec, written / 1e6 / writeSec, total(store));

            store.reset();
            t0 = System.nanoTime();
            long next = rows;
            for (int i = 0; i < appends; i++) {
                try (Dataset latest = Dataset.open(store, allocator);
                        VectorSchemaRoot small = TestRows.batch(allocator, TestRows.range(next, next + 1000))) {
                    latest.append(List.of(small), WriteParams.of(WriteMode.APPEND));
                }
                next += 1000;
            }
            double appendSec = (System.nanoTime() - t0) / 1e9;
            System.out.printf(
                    "%-5s append  %d commits of 1,000 rows: %.1f ms/commit, %.1f requests/commit%n",
                    table.kind(), appends, appendSec * 1000 / appends, total(store) / (double) appends);

            for (int s = 0; s < scans; s++) {
                store.reset();
                http.reset();
                long dataFiles = 0;
                t0 = System.nanoTime();
                long scanned = 0;
                try (Dataset latest = Dataset.open(store, allocator);
                        Scanner scanner = latest.scan(ScanOptions.all())) {
                    for (Fragment f : latest.fragments()) {
                        dataFiles += f.files().size();
                    }
                    while (scanner.hasNext()) {
                        try (VectorSchemaRoot b = scanner.next()) {
                            scanned += b.getRowCount();
                        }
                    }
                }
                double scanSec = (System.nanoTime() - t0) / 1e9;
                System.out.printf(
                        "%-5s scan #%d %,d rows of %d data files in %.2f s: %,.0f rows/s, %.1f MB/s read,"
                                + " store calls %s%n",
                        table.kind(),
                        s + 1,
                        scanned,
                        dataFiles,
                        scanSec,
                        scanned / scanSec,
                        store.bytesRead() / 1e6 / scanSec,
                        store.counts());
                if (table.kind() == StoreKind.S3) {
                    System.out.printf(
                            "%-5s scan #%d %d HTTP requests %s; %.2f HEAD per data file%n",
                            table.kind(),
                            s + 1,
                            http.total(),
                            http.snapshot(),
                            http.count("HeadObject") / (double) dataFiles);
                }
            }
        }
    }

    private static long total(CountingObjectStore store) {
        long n = 0;
        for (StoreOperation op : StoreOperation.values()) {
            n += store.count(op);
        }
        return n;
    }
}
