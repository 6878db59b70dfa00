package dev.lanceflink.flink.sink.upsert;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.schema.ColumnSet;
import java.io.IOException;
import java.util.Arrays;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalSerializers;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeParser;
import org.apache.flink.types.RowKind;

/**
 * Flink serializer of {@link LocatedChange}: what crosses the keyBy between the key resolver or
 * the row-address map and the writers.
 *
 * <p>Layout: the kind's ordinal (one byte), file id, position, the column set's first word
 * (positions 0 to 63), a move's source file id and position, then the values (all but a DELETE).
 * A column set with positions beyond 63 sets {@link #WIDE_COLUMNS} in the kind byte and follows
 * its first word with the number of further words (an int) and those words.
 *
 * <p>The values of an UPDATE or a MOVE that does not set every column are only its written
 * cells, flagged {@link #WRITTEN_CELLS} in the kind byte: the row's {@link RowKind} (one byte),
 * then per written column in ascending order a NULL byte (1: NULL) and, unless NULL, the value in
 * the column type's own Flink serializer. The bytes thus grow with what a change writes, not with
 * the table's width: the values of an update of one INT column take 6 bytes, where the whole
 * row of a 300-column table, its other columns NULL, took about 2.4 KB. Such a change reads back with a {@link WrittenCellsRow}
 * (the other columns NULL, as the {@link WrittenColumnsRow} it was written from showed them).
 *
 * <p>Every other change carries its whole row in Flink's {@link RowDataSerializer}. Those records
 * are written exactly as versions 1 and 2 of this serializer wrote them (version 1 only with sets
 * of at most 64 columns), and records of versions 1 and 2, whose updates and moves carried whole
 * rows, read as they did: the kind byte says which layout follows, so the records an unaligned
 * checkpoint keeps in flight read back whichever version wrote them.
 */
public final class LocatedChangeSerializer extends TypeSerializer<LocatedChange> {
    private static final long serialVersionUID = 1L;
    /** Set in the kind byte when the column set has words beyond the first. */
    static final int WIDE_COLUMNS = 0x40;
    /** Set in the kind byte when only the written cells follow (version 3). */
    static final int WRITTEN_CELLS = 0x20;

    private final RowType rowType;
    private final RowDataSerializer rows;
    /** Every column of the table: a change that sets them all carries its whole row. */
    private final ColumnSet allColumns;
    /** Per column, the getter of its value and the value's Flink serializer (written cells). */
    private final RowData.FieldGetter[] getters;

    private final TypeSerializer<Object>[] cellSerializers;
    /**
     * The column set last read: the changes of one statement or job mostly set the same columns,
     * and sharing one object keeps the writer's buffered updates as small as 64-bit masks were.
     */
    private transient ColumnSet lastColumns;
    /** The words of the wide column set being read. */
    private transient long[] wordBuffer;

    public LocatedChangeSerializer(RowType rowType) {
        this.rowType = requireNonNull(rowType, "rowType is null");
        this.rows = new RowDataSerializer(rowType);
        int n = rowType.getFieldCount();
        this.allColumns = ColumnSet.firstColumns(n);
        this.getters = new RowData.FieldGetter[n];
        @SuppressWarnings("unchecked")
        TypeSerializer<Object>[] cells = new TypeSerializer[n];
        for (int i = 0; i < n; i++) {
            LogicalType type = rowType.getTypeAt(i);
            getters[i] = RowData.createFieldGetter(type, i);
            cells[i] = InternalSerializers.create(type);
        }
        this.cellSerializers = cells;
    }

    @Override
    public boolean isImmutableType() {
        return false;
    }

    @Override
    public TypeSerializer<LocatedChange> duplicate() {
        return new LocatedChangeSerializer(rowType);
    }

    @Override
    public LocatedChange createInstance() {
        return LocatedChange.delete(0, 0);
    }

    @Override
    public LocatedChange copy(LocatedChange from) {
        if (from.row() == null || from.row() instanceof WrittenColumnsRow || from.row() instanceof WrittenCellsRow) {
            // Nothing to copy: a change is a record of final fields, and a WrittenColumnsRow is a
            // read-only view that only the resolver and RowAddressChanges make, each over a row
            // of its own that nothing changes afterwards; a WrittenCellsRow holds the cells that
            // deserialize read, for it alone. Flink copies every record between the resolver and
            // the writer chained to it; deep-copying the view materialized a full-width binary row
            // per updated key.
            return from;
        }
        return new LocatedChange(
                from.kind(),
                from.fileId(),
                from.position(),
                from.columns(),
                from.row() == null ? null : rows.copy(from.row()),
                from.fromFileId(),
                from.fromPosition());
    }

    @Override
    public LocatedChange copy(LocatedChange from, LocatedChange reuse) {
        return copy(from);
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(LocatedChange c, DataOutputView out) throws IOException {
        ColumnSet columns = c.columns();
        boolean wide = !columns.fitsInMask();
        boolean cells = writesCells(c);
        out.writeByte(c.kind().ordinal() | (wide ? WIDE_COLUMNS : 0) | (cells ? WRITTEN_CELLS : 0));
        out.writeLong(c.fileId());
        out.writeLong(c.position());
        out.writeLong(columns.word(0));
        if (wide) {
            int words = columns.wordCount();
            out.writeInt(words - 1);
            for (int i = 1; i < words; i++) {
                out.writeLong(columns.word(i));
            }
        }
        if (c.kind() == LocatedChange.Kind.MOVE) {
            out.writeLong(c.fromFileId());
            out.writeLong(c.fromPosition());
        }
        if (cells) {
            writeCells(columns, c.row(), out);
        } else if (c.row() != null) {
            rows.serialize(c.row(), out);
        }
    }

    /** True if {@code c} carries only its written cells: an update or move of some columns. */
    private boolean writesCells(LocatedChange c) {
        return (c.kind() == LocatedChange.Kind.UPDATE || c.kind() == LocatedChange.Kind.MOVE)
                && !c.columns().containsAll(allColumns);
    }

    private void writeCells(ColumnSet columns, RowData row, DataOutputView out) throws IOException {
        out.writeByte(row.getRowKind().toByteValue());
        int n = getters.length;
        for (int col = columns.first(); col >= 0 && col < n; col = columns.next(col + 1)) {
            if (row.isNullAt(col)) {
                out.writeByte(1);
            } else {
                out.writeByte(0);
                cellSerializers[col].serialize(getters[col].getFieldOrNull(row), out);
            }
        }
    }

    @Override
    public LocatedChange deserialize(DataInputView in) throws IOException {
        int tag = in.readByte();
        int kind = tag & ~(WIDE_COLUMNS | WRITTEN_CELLS);
        if (kind < 0 || kind >= LocatedChange.Kind.values().length) {
            throw new IOException("Corrupt located change: kind byte " + tag);
        }
        LocatedChange.Kind k = LocatedChange.Kind.values()[kind];
        boolean cells = (tag & WRITTEN_CELLS) != 0;
        if (cells && k != LocatedChange.Kind.UPDATE && k != LocatedChange.Kind.MOVE) {
            throw new IOException("Corrupt located change: kind byte " + tag + " flags written cells of a " + k);
        }
        long fileId = in.readLong();
        long position = in.readLong();
        ColumnSet columns = readColumns(in, (tag & WIDE_COLUMNS) != 0);
        // Only a move carries where its row comes from: the other kinds keep their layout.
        long fromFileId = k == LocatedChange.Kind.MOVE ? in.readLong() : 0;
        long fromPosition = k == LocatedChange.Kind.MOVE ? in.readLong() : 0;
        RowData row = cells ? readCells(columns, in) : k == LocatedChange.Kind.DELETE ? null : rows.deserialize(in);
        return new LocatedChange(k, fileId, position, columns, row, fromFileId, fromPosition);
    }

    private RowData readCells(ColumnSet columns, DataInputView in) throws IOException {
        byte kind = in.readByte();
        if (kind < 0 || kind >= RowKind.values().length) {
            throw new IOException("Corrupt located change: row kind byte " + kind);
        }
        // The set itself when it names no position past the table's columns (no allocation).
        ColumnSet written = columns.intersection(allColumns);
        GenericRowData values = new GenericRowData(RowKind.fromByteValue(kind), written.size());
        int i = 0;
        for (int col = written.first(); col >= 0; col = written.next(col + 1)) {
            byte isNull = in.readByte();
            if (isNull == 0) {
                values.setField(i, cellSerializers[col].deserialize(in));
            } else if (isNull != 1) {
                throw new IOException("Corrupt located change: NULL byte " + isNull + " of column " + col);
            }
            i++;
        }
        return new WrittenCellsRow(written, values, getters.length);
    }

    private ColumnSet readColumns(DataInputView in, boolean wide) throws IOException {
        long first = in.readLong();
        ColumnSet last = lastColumns;
        if (!wide) {
            if (last != null && last.fitsInMask() && last.word(0) == first) {
                return last;
            }
            return lastColumns = ColumnSet.fromMask(first);
        }
        int more = in.readInt();
        if (more < 1) {
            throw new IOException("Corrupt located change: a wide column set with " + more + " further words");
        }
        int n = more + 1;
        long[] words = wordBuffer;
        if (words == null || words.length < n) {
            words = wordBuffer = new long[n];
        }
        words[0] = first;
        for (int i = 1; i < n; i++) {
            words[i] = in.readLong();
        }
        if (last != null && last.wordCount() == n) {
            int i = 0;
            while (i < n && last.word(i) == words[i]) {
                i++;
            }
            if (i == n) {
                return last; // the same columns again: nothing allocated
            }
        }
        ColumnSet read = ColumnSet.fromWords(Arrays.copyOf(words, n));
        return read.equals(last) ? last : (lastColumns = read);
    }

    @Override
    public LocatedChange deserialize(LocatedChange reuse, DataInputView in) throws IOException {
        return deserialize(in);
    }

    @Override
    public void copy(DataInputView in, DataOutputView out) throws IOException {
        serialize(deserialize(in), out);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LocatedChangeSerializer other && other.rowType.equals(rowType);
    }

    @Override
    public int hashCode() {
        return rowType.hashCode();
    }

    @Override
    public TypeSerializerSnapshot<LocatedChange> snapshotConfiguration() {
        return new Snapshot(rowType);
    }

    /**
     * Snapshot: the row type, as Flink's serializable logical type string. Version 2 marked
     * serializers that may write column sets beyond 64 columns, version 3 those that write an
     * update's or a move's written cells only; the content is version 1's. A version 3 serializer
     * reads the records of versions 1 and 2 as they are (the kind byte tells the layouts apart, see
     * the class comment), so a snapshot of any of them with the same row type resolves as
     * compatible as is.
     */
    public static final class Snapshot implements TypeSerializerSnapshot<LocatedChange> {
        static final int VERSION = 3;

        private RowType rowType;

        public Snapshot() {}

        Snapshot(RowType rowType) {
            this.rowType = rowType;
        }

        @Override
        public int getCurrentVersion() {
            return VERSION;
        }

        @Override
        public void writeSnapshot(DataOutputView out) throws IOException {
            out.writeUTF(rowType.asSerializableString());
        }

        @Override
        public void readSnapshot(int readVersion, DataInputView in, ClassLoader loader) throws IOException {
            if (readVersion < 1 || readVersion > VERSION) {
                throw new IOException("The located-change serializer snapshot has version " + readVersion + "; this"
                        + " connector reads versions 1 to " + VERSION + ". Restore with the connector version that"
                        + " wrote it, or a newer one");
            }
            LogicalType t = LogicalTypeParser.parse(in.readUTF(), loader);
            if (!(t instanceof RowType r)) {
                throw new IOException("Corrupt located-change serializer snapshot: " + t + " is not a row type");
            }
            rowType = r;
        }

        @Override
        public TypeSerializer<LocatedChange> restoreSerializer() {
            return new LocatedChangeSerializer(rowType);
        }

        @Override
        public TypeSerializerSchemaCompatibility<LocatedChange> resolveSchemaCompatibility(
                TypeSerializerSnapshot<LocatedChange> oldSnapshot) {
            return oldSnapshot instanceof Snapshot s && s.rowType.equals(rowType)
                    ? TypeSerializerSchemaCompatibility.compatibleAsIs()
                    : TypeSerializerSchemaCompatibility.incompatible();
        }
    }
}
