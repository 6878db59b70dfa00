package dev.lanceflink.flink.source.reader;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.expr.Expr;
import dev.lanceflink.expr.PredicateEvaluator;
import dev.lanceflink.flink.source.LanceReadSpec;
import dev.lanceflink.flink.source.MetadataColumn;
import dev.lanceflink.flink.source.split.LanceSplit;
import dev.lanceflink.read.FragmentReader;
import dev.lanceflink.read.FragmentScanner;
import dev.lanceflink.schema.LanceField;
import dev.lanceflink.schema.LanceSchema;
import dev.lanceflink.table.Fragment;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsChange;

/**
 * Runs in the fetcher thread: reads the assigned splits one after the other, one Arrow batch per
 * {@link #fetch()}. The table is opened once per reader at the version the splits were planned
 * at, and reopened only if a split of another version arrives (after a restore).
 */
public final class LanceSplitReader implements SplitReader<LanceRecord, LanceSplit> {
    private final LanceReadSpec spec;
    private final ScanMetrics metrics;
    private final ArrayDeque<LanceSplit> splits = new ArrayDeque<>();
    /** Batches handed to the main thread and not yet recycled: released on close. */
    private final Set<LanceBatchRecords> outstanding = ConcurrentHashMap.newKeySet();

    private Dataset table;
    private Dataset tableAtVersion;
    private FragmentScanner.Columns columns;
    private LanceSplit current;
    private FragmentReader fragmentReader;
    private FragmentScanner scanner;

    public LanceSplitReader(LanceReadSpec spec) {
        this(spec, ScanMetrics.unregistered());
    }

    LanceSplitReader(LanceReadSpec spec, ScanMetrics metrics) {
        this.spec = spec;
        this.metrics = metrics;
    }

    @Override
    public RecordsWithSplitIds<LanceRecord> fetch() throws IOException {
        if (current == null) {
            current = splits.poll();
            if (current == null) {
                return LanceBatchRecords.nothing();
            }
            openSplit(current);
        }
        long scannedBefore = scanner.rowsScanned();
        FragmentScanner.Batch batch = scanner.next();
        metrics.rowsScanned.inc(scanner.rowsScanned() - scannedBefore);
        if (batch == null) {
            String finished = current.splitId();
            closeSplit();
            return LanceBatchRecords.finished(finished);
        }
        metrics.rowsEmitted.inc(batch.offsets().length);
        LanceBatchRecords records = LanceBatchRecords.of(current.splitId(), batch, outstanding::remove);
        outstanding.add(records);
        return records;
    }

    private void openSplit(LanceSplit split) throws IOException {
        Dataset at = datasetAt(split.tableVersion());
        Fragment fragment = at.manifest()
                .fragment(split.fragmentId())
                .orElseThrow(() -> new IOException("Split " + split.splitId() + " names fragment " + split.fragmentId()
                        + ", which version "
                        + split.tableVersion() + " of " + spec.uri() + " does not have: the table's metadata changed "
                        + "under a running read"));
        long[] stableRowIds = FragmentScanner.stableRowIds(at.store(), at.manifest(), fragment, columns.metadata());
        fragmentReader = new FragmentReader(at.files(), fragment, at.allocator());
        long remaining = spec.limit() < 0 ? Long.MAX_VALUE : Math.max(0, spec.limit() - split.rowsEmitted());
        scanner = new FragmentScanner(
                fragmentReader,
                columns,
                stableRowIds,
                spec.batchSize(),
                split.nextOffset(),
                split.end(),
                remaining,
                at.allocator());
    }

    private Dataset datasetAt(long version) throws IOException {
        if (tableAtVersion != null && tableAtVersion.version() == version) {
            return tableAtVersion;
        }
        if (table == null) {
            table = Dataset.open(spec.uri(), spec.storageOptions());
        }
        closeVersion(); // it may hold stores opened for the base paths of its version
        tableAtVersion = table.version() == version ? table : table.checkoutVersion(version);
        LanceSchema schema = tableAtVersion.schema();
        Expr filter = spec.filter();
        columns = new FragmentScanner.Columns(
                resolve(schema, spec.columns()),
                filter,
                filter == null ? List.of() : resolve(schema, PredicateEvaluator.referencedColumns(filter)),
                spec.metadataColumns().stream().map(MetadataColumn::scanColumn).toList());
        return tableAtVersion;
    }

    private List<LanceField> resolve(LanceSchema schema, List<String> names) throws IOException {
        List<LanceField> out = new ArrayList<>();
        for (String n : names) {
            out.add(schema.fieldByName(n)
                    .orElseThrow(() -> new IOException("Column '" + n + "' does not exist at " + "version "
                            + tableAtVersion.version() + " of " + spec.uri())));
        }
        return out;
    }

    private void closeSplit() throws IOException {
        current = null;
        scanner = null;
        if (fragmentReader != null) {
            FragmentReader r = fragmentReader;
            fragmentReader = null;
            r.close();
        }
    }

    @Override
    public void handleSplitsChanges(SplitsChange<LanceSplit> change) {
        if (!(change instanceof SplitsAddition)) {
            throw new UnsupportedOperationException("The Lance source only adds splits, got "
                    + change.getClass().getSimpleName());
        }
        splits.addAll(change.splits());
    }

    @Override
    public void wakeUp() {
        // fetch() never blocks waiting for data, so there is nothing to interrupt.
    }

    @Override
    public void close() throws IOException {
        for (LanceBatchRecords r : outstanding) {
            r.release();
        }
        outstanding.clear();
        closeSplit();
        closeVersion();
        if (table != null) {
            table.close();
            table = null;
        }
    }

    /** Closes the dataset at the split's version if it is not the opened table itself. */
    private void closeVersion() throws IOException {
        Dataset at = tableAtVersion;
        tableAtVersion = null;
        if (at != null && at != table) {
            at.close();
        }
    }
}
