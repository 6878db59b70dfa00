package dev.lanceflink.txn;

import static java.util.Objects.requireNonNull;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * One commit's description ({@code Transaction} in transaction.proto): what it did, against which
 * version it was computed, and free-form per-commit properties (e.g. {@code flink.checkpoint-id};
 * the key {@value #COMMIT_MESSAGE_KEY} is reserved by Lance for a commit message).
 *
 * @param readVersion the table version the operation was computed against (0 creates the table)
 * @param uuid hyphenated lower-case UUID, also part of the {@code .txn} file name
 * @param tag copied into the new manifest's tag ("" = none)
 */
public record Transaction(
        long readVersion, String uuid, String tag, Map<String, String> properties, Operation operation) {

    public static final String COMMIT_MESSAGE_KEY = "__lance_commit_message";
    /**
     * Property naming the compaction mode ({@code overlay-merge}, {@code overlay-fold},
     * {@code fragments}) of a commit made by this library's compactor. Conflict messages use it to
     * tell an overlay merge (committed as a {@code Merge}) from a Merge that adds columns.
     */
    public static final String COMPACTION_MODE_PROPERTY = "lance-flink.compaction.mode";
    /** {@link #COMPACTION_MODE_PROPERTY} of an overlay merge (a Merge that swaps overlays only). */
    public static final String COMPACTION_OVERLAY_MERGE = "overlay-merge";
    /** {@link #COMPACTION_MODE_PROPERTY} of an overlay fold (an Update rewriting overlaid columns). */
    public static final String COMPACTION_OVERLAY_FOLD = "overlay-fold";
    /** {@link #COMPACTION_MODE_PROPERTY} of a fragment compaction (a Rewrite). */
    public static final String COMPACTION_FRAGMENTS = "fragments";
    /** Property naming the version a compaction commit was planned on. */
    public static final String COMPACTION_READ_VERSION_PROPERTY = "lance-flink.compaction.read-version";
    /** Directory of transaction files, relative to the dataset root. */
    public static final String TRANSACTIONS_DIR = "_transactions";

    public Transaction {
        requireNonNull(uuid, "uuid is null");
        requireNonNull(tag, "tag is null (use \"\")");
        properties = Collections.unmodifiableMap(new LinkedHashMap<>(properties));
        requireNonNull(operation, "operation is null");
    }

    /** A new transaction with a random UUID, no tag and no properties. */
    public static Transaction of(long readVersion, Operation operation) {
        return new Transaction(readVersion, UUID.randomUUID().toString(), "", Map.of(), operation);
    }

    /** A new transaction with a random UUID and per-commit properties. */
    public static Transaction of(long readVersion, Operation operation, Map<String, String> properties) {
        return new Transaction(readVersion, UUID.randomUUID().toString(), "", properties, operation);
    }

    public Transaction withReadVersion(long version) {
        return new Transaction(version, uuid, tag, properties, operation);
    }

    public Transaction withOperation(Operation op) {
        return new Transaction(readVersion, uuid, tag, properties, op);
    }

    public Transaction withTag(String newTag) {
        return new Transaction(readVersion, uuid, newTag, properties, operation);
    }

    /** The {@code .txn} file name: {@code <read version>-<uuid>.txn}. */
    public String fileName() {
        return Long.toUnsignedString(readVersion) + "-" + uuid + ".txn";
    }

    /** The {@code .txn} path relative to the dataset root. */
    public String filePath() {
        return TRANSACTIONS_DIR + "/" + fileName();
    }
}
