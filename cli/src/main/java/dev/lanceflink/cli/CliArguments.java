package dev.lanceflink.cli;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A parsed command line of dump, inspect or versions: {@code <command> <uri> [options]}, as
 * {@link TableCommandLine} reads it.
 *
 * @param command {@code dump}, {@code inspect} or {@code versions}
 * @param uri the table: a local path, {@code file:} or {@code s3://} URI
 * @param storageOptions {@code --storage-option key=value}, in command-line order
 * @param version {@code --version N}, or null for the latest version
 * @param columns {@code --columns a,b}, or null for all columns
 * @param orderBy {@code --order-by a[,b]}, empty for physical scan order
 * @param limit {@code --limit N}, or -1 for all rows
 * @param withRowAddress {@code --with-row-address}
 * @param filter {@code --filter SQL}, or null
 */
public record CliArguments(
        String command,
        String uri,
        Map<String, String> storageOptions,
        Long version,
        List<String> columns,
        List<String> orderBy,
        long limit,
        boolean withRowAddress,
        String filter) {

    public CliArguments {
        storageOptions = Collections.unmodifiableMap(new LinkedHashMap<>(storageOptions));
        columns = columns == null ? null : List.copyOf(columns);
        orderBy = List.copyOf(orderBy);
    }

    /** Parses {@code args}; throws {@link UsageException} naming the first problem. */
    public static CliArguments parse(String[] args) {
        return TableCommandLine.parse(args);
    }
}
