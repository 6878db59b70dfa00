package dev.lanceflink.read;

import dev.lanceflink.expr.Expr;
import dev.lanceflink.expr.ExprParser;
import java.util.List;

/**
 * What a scan returns.
 *
 * @param columns top-level column names in output order, or null for all columns
 * @param filter the rows to return ({@link ExprParser} reads one from text), or null for all
 * @param limit maximum rows to return, or -1 for all
 * @param withRowAddress add a {@code _rowaddr} uint64 column: fragment id &lt;&lt; 32 | offset
 * @param batchSize rows read per batch and fragment (output batches hold at most this many)
 */
public record ScanOptions(List<String> columns, Expr filter, long limit, boolean withRowAddress, int batchSize) {
    public static final String ROW_ADDRESS = "_rowaddr";

    public ScanOptions {
        columns = columns == null ? null : List.copyOf(columns);
        if (batchSize < 1) {
            throw new IllegalArgumentException("batchSize must be positive, got " + batchSize);
        }
    }

    /**
     * As the canonical constructor, with the filter as text (null or blank: all rows).
     *
     * @throws dev.lanceflink.expr.FilterException if the filter does not parse
     */
    public ScanOptions(List<String> columns, String filter, long limit, boolean withRowAddress, int batchSize) {
        this(columns, parse(filter), limit, withRowAddress, batchSize);
    }

    private static Expr parse(String filter) {
        return filter == null || filter.isBlank() ? null : ExprParser.parse(filter);
    }

    public static ScanOptions all() {
        return new ScanOptions(null, (Expr) null, -1, false, 8192);
    }

    public ScanOptions withColumns(List<String> c) {
        return new ScanOptions(c, filter, limit, withRowAddress, batchSize);
    }

    /** With a filter in {@link ExprParser}'s syntax (null or blank: all rows). */
    public ScanOptions withFilter(String f) {
        return new ScanOptions(columns, parse(f), limit, withRowAddress, batchSize);
    }

    public ScanOptions withFilter(Expr f) {
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
