package dev.lanceflink.flink.sink.upsert;

import static java.util.Objects.requireNonNull;

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

/** Flink serializer of {@link LocatedChange}; the row uses Flink's own {@link RowDataSerializer}. */
public final class LocatedChangeSerializer extends TypeSerializer<LocatedChange> {
    private static final long serialVersionUID = 1L;

    private final RowType rowType;
    private final RowDataSerializer rows;

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
        return new LocatedChange(from.kind(), from.fileId(), from.position(), from.columns(),
                from.row() == null ? null : rows.copy(from.row()), from.fromFileId(), from.fromPosition());
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
        out.writeByte(c.kind().ordinal());
        out.writeLong(c.fileId());
        out.writeLong(c.position());
        out.writeLong(c.columns());
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
        int kind = in.readByte();
        if (kind < 0 || kind >= LocatedChange.Kind.values().length) {
            throw new IOException("Corrupt located change: kind " + kind);
        }
        LocatedChange.Kind k = LocatedChange.Kind.values()[kind];
        long fileId = in.readLong();
        long position = in.readLong();
        long columns = in.readLong();
        // Only a move carries where its row comes from: the other kinds keep their layout.
        long fromFileId = k == LocatedChange.Kind.MOVE ? in.readLong() : 0;
        long fromPosition = k == LocatedChange.Kind.MOVE ? in.readLong() : 0;
        RowData row = k == LocatedChange.Kind.DELETE ? null : rows.deserialize(in);
        return new LocatedChange(k, fileId, position, columns, row, fromFileId, fromPosition);
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

    /** Snapshot: the row type, as Flink's serializable logical type string. */
    public static final class Snapshot implements TypeSerializerSnapshot<LocatedChange> {
        private RowType rowType;

        public Snapshot() {}

        Snapshot(RowType rowType) {
            this.rowType = rowType;
        }

        @Override
        public int getCurrentVersion() {
            return 1;
        }

        @Override
        public void writeSnapshot(DataOutputView out) throws IOException {
            out.writeUTF(rowType.asSerializableString());
        }

        @Override
        public void readSnapshot(int readVersion, DataInputView in, ClassLoader loader) throws IOException {
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
