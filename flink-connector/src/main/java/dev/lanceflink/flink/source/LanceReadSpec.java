package dev.lanceflink.flink.source;

import dev.lanceflink.expr.Expr;
import dev.lanceflink.expr.ExprParser;
import java.io.Serializable;
import java.util.List;
import java.util.Map;

/**
 * What every reader of one {@link LanceSource} reads: where the table is, which top-level
 * columns (in output order), the pushed-down filter, the row limit, which metadata columns to
 * append after the table's columns, and the batch size. Serializable: it travels with the job graph.
 *
 * @param uri table location as {@code Dataset.open} takes it
 * @param storageOptions object store options (credentials, endpoint, ...)
 * @param columns top-level column names, in output order
 * @param filter the rows to read (a typed tree from the planner, or text parsed by {@link ExprParser}),
 *     or null for all
 * @param limit at most this many rows per split, or -1 (the planner still applies the global
 *     limit; this bound only stops each split early)
 * @param metadataColumns appended after {@code columns}, in this order, each as BIGINT
 * @param batchSize rows per Arrow batch
 */
public record LanceReadSpec(
        String uri,
        Map<String, String> storageOptions,
        List<String> columns,
        Expr filter,
        long limit,
        List<MetadataColumn> metadataColumns,
        int batchSize)
        implements Serializable {

    public LanceReadSpec {
        storageOptions = Map.copyOf(storageOptions);
        columns = List.copyOf(columns);
        metadataColumns = List.copyOf(metadataColumns);
        if (metadataColumns.stream().distinct().count() != metadataColumns.size()) {
            throw new IllegalArgumentException("metadata columns repeat: " + metadataColumns);
        }
        if (batchSize < 1) {
            throw new IllegalArgumentException("batch size must be positive, got " + batchSize);
        }
    }

    /**
     * A spec whose only possible metadata column is {@code _rowaddr} (appended if {@code withRowAddress}),
     * with the filter as {@link ExprParser} text (null: all rows).
     */
    public LanceReadSpec(
            String uri,
            Map<String, String> storageOptions,
            List<String> columns,
            String filter,
            long limit,
            boolean withRowAddress,
            int batchSize) {
        this(
                uri,
                storageOptions,
                columns,
                filter == null ? null : ExprParser.parse(filter),
                limit,
                withRowAddress ? List.of(MetadataColumn.ROW_ADDRESS) : List.of(),
                batchSize);
    }

    /** Whether {@code _rowaddr} is appended. */
    public boolean withRowAddress() {
        return metadataColumns.contains(MetadataColumn.ROW_ADDRESS);
    }
}
