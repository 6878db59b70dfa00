package dev.lanceflink.flink.sink.upsert;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.schema.ColumnSet;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeParser;

/**
 * Flink serializer of {@link LocatedChange}; the row uses Flink's own {@link RowDataSerializer}.
 *
 * <p>Layout: the kind's ordinal (one byte), file id, position, the column set's first word
 * (positions 0 to 63), a move's source file id and position, then the row (all but a DELETE).
 * A column set with positions beyond 63 sets {@link #WIDE_COLUMNS} in the kind byte and follows
 * its first word with the number of further words (an int) and those words. Sets that fit in the
 * first word, the only ones version 1 of this serializer wrote, are written exactly as version 1
 * wrote them, so that records of either version read alike (unaligned checkpoints keep records in
 * flight as these bytes).
 */
public final class LocatedChangeSerializer extends TypeSerializer<LocatedChange> {
    private static final long serialVersionUID = 1L;
    /** Set in the kind byte when the column set has words beyond the first. */
    static final int WIDE_COLUMNS = 0x40;

    private final RowType rowType;
    private final RowDataSerializer rows;
    /**
     * The column set last read: the changes of one statement or job mostly set the same columns,
     * and sharing one object keeps the writer's buffered updates as small as 64-bit masks were.
     */
    private transient ColumnSet lastColumns;

    public LocatedChangeSerializer(RowType rowType) {
        this.rowType = requireNonNull(rowType, "rowType is null");
        this.rows = new RowDataSerializer(rowType);
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
        if (from.row() == null || from.row() instanceof WrittenColumnsRow) {
            // Nothing to copy: a change is a record of final fields, and a WrittenColumnsRow is a
            // read-only view that only the resolver and RowAddressChanges make, each over a row
            // of its own that nothing changes afterwards. Flink copies every record between the
            // resolver and the writer chained to it; deep-copying the view materialized a
            // full-width binary row per updated key.
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
        out.writeByte(c.kind().ordinal() | (wide ? WIDE_COLUMNS : 0));
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
        if (c.row() != null) {
            rows.serialize(c.row(), out);
        }
    }

    @Override
    public LocatedChange deserialize(DataInputView in) throws IOException {
        int tag = in.readByte();
        int kind = tag & ~WIDE_COLUMNS;
        if (kind < 0 || kind >= LocatedChange.Kind.values().length) {
            throw new IOException("Corrupt located change: kind byte " + tag);
        }
        LocatedChange.Kind k = LocatedChange.Kind.values()[kind];
        long fileId = in.readLong();
        long position = in.readLong();
        ColumnSet columns = readColumns(in, (tag & WIDE_COLUMNS) != 0);
        // Only a move carries where its row comes from: the other kinds keep their layout.
        long fromFileId = k == LocatedChange.Kind.MOVE ? in.readLong() : 0;
        long fromPosition = k == LocatedChange.Kind.MOVE ? in.readLong() : 0;
        RowData row = k == LocatedChange.Kind.DELETE ? null : rows.deserialize(in);
        return new LocatedChange(k, fileId, position, columns, row, fromFileId, fromPosition);
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
        long[] words = new long[more + 1];
        words[0] = first;
        for (int i = 1; i < words.length; i++) {
            words[i] = in.readLong();
        }
        ColumnSet read = ColumnSet.fromWords(words);
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
     * Snapshot: the row type, as Flink's serializable logical type string. Version 2 marks
     * serializers that may write column sets beyond 64 columns; its content is version 1's, and
     * a version 2 serializer reads version 1's records as they are (see the class comment).
     */
    public static final class Snapshot implements TypeSerializerSnapshot<LocatedChange> {
        static final int VERSION = 2;

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
