package dev.lanceflink.read;

import java.util.List;

/**
 * What a scan returns.
 *
 * @param columns top-level column names in output order, or null for all columns
 * @param filter a SQL filter ({@link dev.lanceflink.expr.ExprParser}), or null
 * @param limit maximum rows to return, or -1 for all
 * @param withRowAddress add a {@code _rowaddr} uint64 column: fragment id &lt;&lt; 32 | offset
 * @param batchSize rows read per batch and fragment (output batches hold at most this many)
 */
public record ScanOptions(List<String> columns, String filter, long limit, boolean withRowAddress, int batchSize) {
    public static final String ROW_ADDRESS = "_rowaddr";

    public ScanOptions {
        columns = columns == null ? null : List.copyOf(columns);
        if (batchSize < 1) {
            throw new IllegalArgumentException("batchSize must be positive, got " + batchSize);
        }
    }

    public static ScanOptions all() {
        return new ScanOptions(null, null, -1, false, 8192);
    }

    public ScanOptions withColumns(List<String> c) {
        return new ScanOptions(c, filter, limit, withRowAddress, batchSize);
    }

    public ScanOptions withFilter(String f) {
        return new ScanOptions(columns, f, limit, withRowAddress, batchSize);
    }

    public ScanOptions withLimit(long l) {
        return new ScanOptions(columns, filter, l, withRowAddress, batchSize);
    }

    public ScanOptions withRowAddress(boolean b) {
        return new ScanOptions(columns, filter, limit, b, batchSize);
    }

    public ScanOptions withBatchSize(int n) {
        return new ScanOptions(columns, filter, limit, withRowAddress, n);
    }
}
