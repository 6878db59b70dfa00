package dev.lanceflink.flink.sink.upsert;

import static java.util.Objects.requireNonNull;

import org.apache.flink.table.data.RowData;

/**
 * One resolved change, as the key resolver hands it to the writers: what happens to which row.
 *
 * <ul>
 *   <li>{@link Kind#INSERT}: {@code row} becomes row {@code position} of the new data file
 *       {@code fileId} (the resolver chose both, so the key map already knows where the row
 *       will live);</li>
 *   <li>{@link Kind#UPDATE}: the columns set in {@code columns} of the existing row get
 *       {@code row}'s values — an overlay cell each;</li>
 *   <li>{@link Kind#DELETE}: the existing row is deleted.</li>
 * </ul>
 * For UPDATE and DELETE the existing row is at row address {@code position} when
 * {@code fileId} is 0, otherwise at offset {@code position} of the data file {@code fileId},
 * which this sink wrote and whose commit may still be pending.
 *
 * @param columns bit mask of table column positions (UPDATE only; 0 otherwise)
 * @param row the new values (INSERT, UPDATE); null for DELETE
 */
public record LocatedChange(Kind kind, long fileId, long position, long columns, RowData row) {
    /** What the change does. */
    public enum Kind {
        INSERT,
        UPDATE,
        DELETE
    }

    public LocatedChange {
        requireNonNull(kind, "kind is null");
        if (kind != Kind.DELETE) {
            requireNonNull(row, "row is null");
        }
        if (kind == Kind.INSERT && fileId == 0) {
            throw new IllegalArgumentException("An insert names the new file it goes to");
        }
        if (position < 0) {
            throw new IllegalArgumentException("position must not be negative, got " + position);
        }
    }

    public static LocatedChange insert(long fileId, long offset, RowData row) {
        return new LocatedChange(Kind.INSERT, fileId, offset, 0, row);
    }

    public static LocatedChange update(long fileId, long position, long columns, RowData row) {
        return new LocatedChange(Kind.UPDATE, fileId, position, columns, row);
    }

    public static LocatedChange delete(long fileId, long position) {
        return new LocatedChange(Kind.DELETE, fileId, position, 0, null);
    }
}
