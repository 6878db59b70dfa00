package dev.lanceflink.dataset;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.file.FileVersion;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.txn.CommitOptions;
import java.util.Map;

/**
 * Options of a write.
 *
 * @param mode create, append or overwrite
 * @param maxRowsPerFile rows per data file (= per new fragment); Lance's default is 1Mi
 * @param fileVersion file version of a new table; an existing table keeps its {@code data_format}
 *     (a 2.0 table stays 2.0), and null means {@link FileVersion#DEFAULT_FOR_NEW_TABLES} (2.2)
 * @param enableStableRowIds new tables only: assign stable row ids
 * @param transactionProperties stored in the commit's {@code Transaction.transaction_properties}
 */
public record WriteParams(
        WriteMode mode,
        long maxRowsPerFile,
        FileVersion fileVersion,
        boolean enableStableRowIds,
        Map<String, String> transactionProperties,
        FileWriterOptions fileWriterOptions,
        CommitOptions commitOptions) {

    public static final long DEFAULT_MAX_ROWS_PER_FILE = 1024 * 1024;

    public WriteParams {
        requireNonNull(mode, "mode is null");
        if (maxRowsPerFile < 1) {
            throw new IllegalArgumentException("maxRowsPerFile must be positive, got " + maxRowsPerFile);
        }
        transactionProperties = Map.copyOf(transactionProperties);
        requireNonNull(fileWriterOptions, "fileWriterOptions is null");
        requireNonNull(commitOptions, "commitOptions is null");
    }

    public static WriteParams of(WriteMode mode) {
        return new WriteParams(
                mode,
                DEFAULT_MAX_ROWS_PER_FILE,
                null,
                false,
                Map.of(),
                FileWriterOptions.defaults(),
                CommitOptions.defaults());
    }

    public WriteParams withMaxRowsPerFile(long n) {
        return new WriteParams(
                mode, n, fileVersion, enableStableRowIds, transactionProperties, fileWriterOptions, commitOptions);
    }

    public WriteParams withFileVersion(FileVersion v) {
        return new WriteParams(
                mode, maxRowsPerFile, v, enableStableRowIds, transactionProperties, fileWriterOptions, commitOptions);
    }

    public WriteParams withStableRowIds(boolean b) {
        return new WriteParams(
                mode, maxRowsPerFile, fileVersion, b, transactionProperties, fileWriterOptions, commitOptions);
    }

    public WriteParams withTransactionProperties(Map<String, String> p) {
        return new WriteParams(
                mode, maxRowsPerFile, fileVersion, enableStableRowIds, p, fileWriterOptions, commitOptions);
    }

    public WriteParams withCommitOptions(CommitOptions c) {
        return new WriteParams(
                mode, maxRowsPerFile, fileVersion, enableStableRowIds, transactionProperties, fileWriterOptions, c);
    }
}
