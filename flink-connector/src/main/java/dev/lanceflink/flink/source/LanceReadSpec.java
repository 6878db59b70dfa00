package dev.lanceflink.flink.source;

import java.io.Serializable;
import java.util.List;
import java.util.Map;

/**
 * What every reader of one {@link LanceSource} reads: where the table is, which top-level
 * columns (in output order), the pushed-down SQL filter, the row limit, whether to append the
 * {@code _rowaddr} column, and the batch size. Serializable: it travels with the job graph.
 *
 * @param uri table location as {@code Dataset.open} takes it
 * @param storageOptions object store options (credentials, endpoint, ...)
 * @param columns top-level column names, in output order
 * @param filter SQL filter in the syntax of {@code dev.lanceflink.expr.ExprParser}, or null
 * @param limit at most this many rows per split, or -1 (the planner still applies the global
 *     limit; this bound only stops each split early)
 * @param withRowAddress append {@code _rowaddr} (fragment id &lt;&lt; 32 | offset) as BIGINT
 * @param batchSize rows per Arrow batch
 */
public record LanceReadSpec(String uri, Map<String, String> storageOptions, List<String> columns, String filter,
        long limit, boolean withRowAddress, int batchSize) implements Serializable {

    public LanceReadSpec {
        storageOptions = Map.copyOf(storageOptions);
        columns = List.copyOf(columns);
        if (batchSize < 1) {
            throw new IllegalArgumentException("batch size must be positive, got " + batchSize);
        }
    }
}
