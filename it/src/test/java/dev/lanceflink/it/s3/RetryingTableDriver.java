package dev.lanceflink.it.s3;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.txn.CommitOptions;
import dev.lanceflink.update.OverlayUpdate;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * A caller that retries every table operation until it succeeds, the way a job that sees store
 * errors must: after a failed attempt it cannot know whether its commit landed (the failure may
 * have come after the manifest was published: a lost response, the version-hint write, a read
 * of the new manifest). So each operation carries an operation id in its transaction
 * properties ({@value #OP_ID}), and every retry first looks for that id in the versions
 * committed since the last version this driver knows; only if it is absent is the operation
 * redone. {@link Dataset#deleteRows} takes no transaction properties; it is idempotent (rows
 * already deleted are skipped, nothing left means no commit), so it is simply redone.
 *
 * <p>Only I/O failures ({@link IOException}, and {@link UncheckedIOException} from scan
 * iterators) are retried; anything else is a bug and propagates.
 */
final class RetryingTableDriver {
    static final String OP_ID = "it.op-id";

    /** What one attempt does against the latest version; returns the version it left. */
    @FunctionalInterface
    interface Attempt {
        long run(Dataset latest) throws IOException;
    }

    private final ObjectStore store;
    private final BufferAllocator allocator;
    private final int maxAttemptsPerOperation;
    private final long maxRowsPerFile;
    private long knownVersion;
    private long failedAttempts;
    private long landedButFailed;

    RetryingTableDriver(
            ObjectStore store,
            BufferAllocator allocator,
            int maxAttemptsPerOperation,
            long maxRowsPerFile,
            long knownVersion) {
        this.store = requireNonNull(store, "store is null");
        this.allocator = requireNonNull(allocator, "allocator is null");
        this.maxAttemptsPerOperation = maxAttemptsPerOperation;
        this.maxRowsPerFile = maxRowsPerFile;
        this.knownVersion = knownVersion;
    }

    /** The newest version this driver committed or saw. */
    long knownVersion() {
        return knownVersion;
    }

    /** Attempts that failed with an I/O error and were retried. */
    long failedAttempts() {
        return failedAttempts;
    }

    /** Operations whose commit had landed although the attempt reported a failure. */
    long landedButFailed() {
        return landedButFailed;
    }

    long append(String opId, long[] ids) throws IOException {
        return perform(opId, true, latest -> {
            try (VectorSchemaRoot batch = TestRows.batch(allocator, ids)) {
                return latest.append(List.of(batch), params(WriteMode.APPEND, opId))
                        .version();
            }
        });
    }

    /** Replaces the whole table with {@code ids -> vals} (one overwrite commit). */
    long overwrite(String opId, long[] ids, long[] vals) throws IOException {
        return perform(opId, true, latest -> {
            try (VectorSchemaRoot batch = TestRows.batch(allocator, ids, vals)) {
                return Dataset.write(
                                store, allocator, List.of(batch), TestRows.SCHEMA, params(WriteMode.OVERWRITE, opId))
                        .version();
            }
        });
    }

    long deleteWhere(String opId, String filter) throws IOException {
        return perform(
                opId,
                true,
                latest -> latest.delete(filter, Map.of(OP_ID, opId), CommitOptions.defaults())
                        .version());
    }

    /** Deletes rows by the row addresses they have at the latest version. */
    long deleteIds(String opId, long[] ids) throws IOException {
        return perform(opId, false, latest -> {
            Map<Long, Long> addresses = TestRows.rowAddresses(latest);
            long[] live = java.util.Arrays.stream(ids)
                    .filter(addresses::containsKey)
                    .map(addresses::get)
                    .toArray();
            return live.length == 0 ? latest.version() : latest.deleteRows(live).version();
        });
    }

    /** Sets {@code val} of rows {@code ids} with data overlay files (row addresses stay). */
    long update(String opId, long[] ids, long[] newVals) throws IOException {
        return perform(opId, true, latest -> {
            Map<Long, Long> addresses = TestRows.rowAddresses(latest);
            long[] rows = new long[ids.length];
            for (int i = 0; i < ids.length; i++) {
                rows[i] = requireNonNull(addresses.get(ids[i]), () -> "no live row with the id to update");
            }
            try (VectorSchemaRoot values = TestRows.vals(allocator, newVals)) {
                return latest.update(
                                rows, values, OverlayUpdate.Mode.OVERLAY, Map.of(OP_ID, opId), CommitOptions.defaults())
                        .version();
            }
        });
    }

    private WriteParams params(WriteMode mode, String opId) {
        return WriteParams.of(mode).withMaxRowsPerFile(maxRowsPerFile).withTransactionProperties(Map.of(OP_ID, opId));
    }

    private long perform(String opId, boolean identifiable, Attempt attempt) throws IOException {
        List<Exception> errors = new ArrayList<>();
        for (int a = 1; a <= maxAttemptsPerOperation; a++) {
            try (Dataset latest = Dataset.open(store, allocator)) {
                if (a > 1 && identifiable) {
                    Optional<Long> landed = landedVersion(latest, opId);
                    if (landed.isPresent()) {
                        landedButFailed++;
                        knownVersion = latest.version();
                        return landed.get();
                    }
                }
                if (a > 1 && !identifiable && latest.version() > knownVersion) {
                    landedButFailed++; // single writer: a new version can only be ours
                }
                long version = attempt.run(latest);
                knownVersion = version;
                return version;
            } catch (IOException | UncheckedIOException e) {
                failedAttempts++;
                errors.add(e);
                java.io.FileNotFoundException missing = missingFile(e);
                if (missing != null) {
                    // The store never fails by losing objects: a committed version references a
                    // file that is gone, and no retry can repair that.
                    AssertionError corrupt = new AssertionError(
                            "Operation " + opId + ": the table is corrupt, a"
                                    + " committed version references a missing file (" + missing.getMessage() + ")",
                            e);
                    throw corrupt;
                }
            }
        }
        AssertionError error = new AssertionError("Operation " + opId + " still failed after " + maxAttemptsPerOperation
                + " attempts; last error: " + errors.get(errors.size() - 1));
        errors.forEach(error::addSuppressed);
        throw error;
    }

    private static java.io.FileNotFoundException missingFile(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof java.io.FileNotFoundException f
                    && !(t instanceof dev.lanceflink.dataset.NotADatasetException)) {
                return f;
            }
        }
        return null;
    }

    /** The version committed by operation {@code opId} after {@link #knownVersion}, if any. */
    private Optional<Long> landedVersion(Dataset latest, String opId) throws IOException {
        for (long v = knownVersion + 1; v <= latest.version(); v++) {
            Map<String, String> props = latest.checkoutVersion(v)
                    .transaction()
                    .map(t -> t.properties())
                    .orElse(Map.of());
            if (opId.equals(props.get(OP_ID))) {
                return Optional.of(v);
            }
        }
        return Optional.empty();
    }
}
