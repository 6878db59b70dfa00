package dev.lanceflink.flink.sink;

import dev.lanceflink.table.Manifest;

/**
 * Whether a table can take updates in {@link UpdateMode#REWRITE_ROWS}: not with stable row ids.
 * Lance's own row-rewriting update keeps a moved row's stable row id; a moved row here is
 * appended as a new row and would get a new id, so, as format-core's
 * {@code OverlayUpdate.Mode.REWRITE_ROWS}, such tables are refused rather than given new ids.
 */
public final class RewriteRowsCheck {
    private RewriteRowsCheck() {}

    /** @throws IllegalArgumentException naming the table if it uses stable row ids */
    public static void requireNoStableRowIds(Manifest manifest, String table) {
        requireNoStableRowIds(manifest.usesStableRowIds(), table);
    }

    /** @throws IllegalArgumentException naming the table if {@code stableRowIds} */
    public static void requireNoStableRowIds(boolean stableRowIds, String table) {
        if (stableRowIds) {
            throw new IllegalArgumentException("The Lance table " + table + " uses stable row ids, and update mode '"
                    + UpdateMode.REWRITE_ROWS.optionValue() + "' would give every updated row a new row id (Lance's"
                    + " own update keeps it). Use update mode '" + UpdateMode.OVERLAY.optionValue() + "' for this"
                    + " table");
        }
    }
}
