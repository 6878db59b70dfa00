package dev.lanceflink.flink.source.reader;

import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.ThreadSafeSimpleCounter;

/**
 * What a source reader's scans did, as counters in the reader's metric group {@code lance}:
 * {@code rowsScanned}, the live rows whose filter columns were read and evaluated (all live rows
 * of the splits read, when there is no filter), and {@code rowsEmitted}, the rows that passed
 * the pushed-down filter and were read in full and emitted. Their difference is what push-down
 * saved Flink from reading and filtering itself. Counted in the fetcher thread, reported from
 * others, hence thread-safe counters.
 */
public final class ScanMetrics {
    public static final String GROUP = "lance";
    public static final String ROWS_SCANNED = "rowsScanned";
    public static final String ROWS_EMITTED = "rowsEmitted";

    final Counter rowsScanned;
    final Counter rowsEmitted;

    private ScanMetrics(Counter rowsScanned, Counter rowsEmitted) {
        this.rowsScanned = rowsScanned;
        this.rowsEmitted = rowsEmitted;
    }

    /** Counters registered under {@code parent}'s group {@link #GROUP}. */
    static ScanMetrics register(MetricGroup parent) {
        MetricGroup g = parent.addGroup(GROUP);
        return new ScanMetrics(
                g.counter(ROWS_SCANNED, new ThreadSafeSimpleCounter()),
                g.counter(ROWS_EMITTED, new ThreadSafeSimpleCounter()));
    }

    /** Counters nobody reports (a split reader used on its own). */
    static ScanMetrics unregistered() {
        return new ScanMetrics(new ThreadSafeSimpleCounter(), new ThreadSafeSimpleCounter());
    }
}
