package dev.lanceflink.flink.sink.upsert;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.schema.ColumnSet;
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
 *   <li>{@link Kind#DELETE}: the existing row is deleted;</li>
 *   <li>{@link Kind#MOVE} (update mode rewrite-rows): the existing row at
 *       ({@code fromFileId}, {@code fromPosition}) is deleted and written again, as an insert at
 *       ({@code fileId}, {@code position}), or wherever the writer appends when {@code fileId} is
 *       0 (rows that no key map tracks). Its columns in {@code columns} take {@code row}'s
 *       values, the others keep the existing row's.</li>
 * </ul>
 * For UPDATE and DELETE the existing row is at row address {@code position} when
 * {@code fileId} is 0, otherwise at offset {@code position} of the data file {@code fileId},
 * which this sink wrote and whose commit may still be pending; a MOVE's existing row is named the
 * same way by its {@code from} pair.
 *
 * @param columns table column positions (UPDATE and MOVE; empty otherwise)
 * @param row the new values (INSERT, UPDATE, MOVE); null for DELETE
 */
public record LocatedChange(
        Kind kind, long fileId, long position, ColumnSet columns, RowData row, long fromFileId, long fromPosition) {
    /** What the change does. */
    public enum Kind {
        INSERT,
        UPDATE,
        DELETE,
        MOVE
    }

    public LocatedChange {
        requireNonNull(kind, "kind is null");
        requireNonNull(columns, "columns is null");
        if (kind != Kind.DELETE) {
            requireNonNull(row, "row is null");
        }
        if (kind == Kind.INSERT && fileId == 0) {
            throw new IllegalArgumentException("An insert names the new file it goes to");
        }
        if (position < 0 || fromPosition < 0) {
            throw new IllegalArgumentException(
                    "positions must not be negative, got " + position + " and " + fromPosition);
        }
        if (kind != Kind.MOVE && (fromFileId != 0 || fromPosition != 0)) {
            throw new IllegalArgumentException("Only a move names the row it comes from; a " + kind + " does not");
        }
    }

    /** A change that is not a move. */
    public LocatedChange(Kind kind, long fileId, long position, ColumnSet columns, RowData row) {
        this(kind, fileId, position, columns, row, 0, 0);
    }

    public static LocatedChange insert(long fileId, long offset, RowData row) {
        return new LocatedChange(Kind.INSERT, fileId, offset, ColumnSet.EMPTY, row);
    }

    public static LocatedChange update(long fileId, long position, ColumnSet columns, RowData row) {
        return new LocatedChange(Kind.UPDATE, fileId, position, columns, row);
    }

    public static LocatedChange delete(long fileId, long position) {
        return new LocatedChange(Kind.DELETE, fileId, position, ColumnSet.EMPTY, null);
    }

    /**
     * The row at ({@code fromFileId}, {@code fromPosition}) moves to row {@code offset} of the new
     * file {@code fileId} (0: where the writer appends), with {@code columns} set from {@code row}.
     */
    public static LocatedChange move(
            long fromFileId, long fromPosition, long fileId, long offset, ColumnSet columns, RowData row) {
        return new LocatedChange(Kind.MOVE, fileId, offset, columns, row, fromFileId, fromPosition);
    }

    /** True if the writer chooses where this row goes (a move of a row no key map tracks). */
    public boolean placedByWriter() {
        return kind == Kind.MOVE && fileId == 0;
    }
}
