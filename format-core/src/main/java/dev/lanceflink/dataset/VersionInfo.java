package dev.lanceflink.dataset;

import java.time.Instant;
import java.util.Map;

/**
 * One committed version of a table.
 *
 * @param operation the transaction's operation name ("Append", "Delete", ...; "" if unrecorded)
 * @param numRows live rows at that version
 * @param properties the transaction's {@code transaction_properties}
 */
public record VersionInfo(
        long version, Instant timestamp, String operation, long numRows, Map<String, String> properties) {}
