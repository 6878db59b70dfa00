package dev.lanceflink.flink.sink;

import dev.lanceflink.committer.core.CommitSettings;
import dev.lanceflink.committer.core.TableLocation;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.table.data.RowData;

/**
 * Builds a {@link LanceSink}. Only the table URI is required; the table must exist, and its
 * schema defines the record layout (one RowData field per top-level column, in order).
 *
 * <pre>{@code
 * LanceSinkBuilder.forTable("s3://bucket/events.lance")
 *     .storageOptions(Map.of("aws_region", "eu-west-1"))
 *     .rowsPerFile(1_000_000)
 *     .uidSuffix("events")
 *     .sinkTo(rows);
 * }</pre>
 */
public final class LanceSinkBuilder {
    /** Default rows per data file (Lance's default is 1Mi rows). */
    public static final long DEFAULT_ROWS_PER_FILE = 1024 * 1024;
    /** Default rows per Arrow batch handed to the file writer. */
    public static final int DEFAULT_BATCH_ROWS = 8192;

    private final String uri;
    private final Map<String, String> storageOptions = new HashMap<>();
    private LanceSinkMode mode = LanceSinkMode.APPEND;
    private long rowsPerFile = DEFAULT_ROWS_PER_FILE;
    private int batchRows = DEFAULT_BATCH_ROWS;
    private CommitSettings commitSettings = CommitSettings.defaults();
    private String uidSuffix;

    private LanceSinkBuilder(String uri) {
        if (uri == null || uri.isBlank()) {
            throw new IllegalArgumentException("The Lance table URI is required");
        }
        this.uri = uri;
    }

    public static LanceSinkBuilder forTable(String uri) {
        return new LanceSinkBuilder(uri);
    }

    /** Storage options with Lance's key names ({@code aws_region}, {@code aws_endpoint}, ...). */
    public LanceSinkBuilder storageOptions(Map<String, String> options) {
        storageOptions.putAll(options);
        return this;
    }

    public LanceSinkBuilder mode(LanceSinkMode m) {
        this.mode = java.util.Objects.requireNonNull(m, "mode is null");
        return this;
    }

    /** Rows per data file (= per new fragment); a checkpoint also ends the open file. */
    public LanceSinkBuilder rowsPerFile(long rows) {
        if (rows < 1) {
            throw new IllegalArgumentException("rowsPerFile must be positive, got " + rows);
        }
        this.rowsPerFile = rows;
        return this;
    }

    /** Rows buffered as one Arrow batch before they are encoded. */
    public LanceSinkBuilder batchRows(int rows) {
        if (rows < 1) {
            throw new IllegalArgumentException("batchRows must be positive, got " + rows);
        }
        this.batchRows = rows;
        return this;
    }

    /** Commit attempts per checkpoint before the job fails (default 10). */
    public LanceSinkBuilder commitRetries(int attempts) {
        this.commitSettings = commitSettings.withCommitAttempts(attempts);
        return this;
    }

    /** First wait between commit attempts, doubling per attempt (default 200 ms). */
    public LanceSinkBuilder commitRetryBackoff(Duration backoff) {
        this.commitSettings = commitSettings.withRetryBackoff(backoff);
        return this;
    }

    /**
     * Accept a restore from a checkpoint or savepoint older than the sink's last commit (default
     * false: such a restore fails, because rows would be appended twice).
     */
    public LanceSinkBuilder allowRestoreFromOlderState(boolean allow) {
        this.commitSettings = commitSettings.withAllowRestoreFromOlderState(allow);
        return this;
    }

    /**
     * Suffix of the sink's operator uids. The commit user lives in operator state bound to these
     * uids, so keep the suffix stable across job versions. Default: derived from the table URI.
     */
    public LanceSinkBuilder uidSuffix(String suffix) {
        if (suffix == null || suffix.isBlank()) {
            throw new IllegalArgumentException("uidSuffix must not be blank");
        }
        this.uidSuffix = suffix;
        return this;
    }

    public LanceSink build() {
        switch (mode) {
            case APPEND -> {
                // the only mode so far; the switch makes a new mode a compile-time decision here
            }
        }
        String suffix = uidSuffix != null ? uidSuffix : uri.replaceAll("[^A-Za-z0-9._-]", "_");
        return new LanceSink(new TableLocation(uri, storageOptions), rowsPerFile, batchRows, commitSettings, suffix);
    }

    /** Builds the sink and attaches it to {@code rows} with uid {@code lance-sink-<suffix>}. */
    public DataStreamSink<RowData> sinkTo(DataStream<RowData> rows) {
        LanceSink sink = build();
        return rows.sinkTo(sink).uid("lance-sink-" + sink.uidSuffix()).name("Lance sink");
    }
}
