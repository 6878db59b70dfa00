package dev.lanceflink.it.s3;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.ObjectStores;
import dev.lanceflink.s3.S3ProxyServer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A fresh, empty table location on one of the two stores, with the storage options that reach
 * it. Every call gets its own prefix, so tests never see each other's tables even though the
 * S3Proxy server is shared by the whole test JVM.
 *
 * @param uri the table URI as a user would write it ({@code s3://bucket/prefix} or a local path)
 * @param storageOptions the Lance storage options for {@link ObjectStores#open}
 */
record TableLocation(StoreKind kind, String uri, Map<String, String> storageOptions) {

    /** One bucket for all S3 tables of this module; prefixes keep them apart. */
    static final String BUCKET = "lance-it";

    private static final AtomicInteger TABLES = new AtomicInteger();

    TableLocation {
        requireNonNull(kind, "kind is null");
        requireNonNull(uri, "uri is null");
        storageOptions = Map.copyOf(storageOptions);
    }

    /** A new table location named after {@code name}; {@code localRoot} is used for LOCAL only. */
    static TableLocation fresh(StoreKind kind, S3ProxyServer server, Path localRoot, String name) {
        String leaf = name + "-" + TABLES.incrementAndGet() + "-"
                + ProcessHandle.current().pid() + ".lance";
        return switch (kind) {
            case LOCAL -> new TableLocation(kind, localRoot.resolve(leaf).toString(), Map.of());
            case S3 -> {
                server.createBucket(BUCKET);
                yield new TableLocation(kind, "s3://" + BUCKET + "/" + leaf, server.storageOptions());
            }
        };
    }

    /** Opens the store of this location; the caller closes it. */
    ObjectStore openStore() throws IOException {
        return ObjectStores.open(uri, storageOptions);
    }

    /** The storage options as {@code --storage-option k=v} arguments of the oracle and our CLI. */
    java.util.List<String> storageOptionArgs() {
        java.util.List<String> args = new java.util.ArrayList<>();
        storageOptions.forEach((k, v) -> {
            args.add("--storage-option");
            args.add(k + "=" + v);
        });
        return args;
    }

    @Override
    public String toString() {
        return kind + " " + uri;
    }
}
