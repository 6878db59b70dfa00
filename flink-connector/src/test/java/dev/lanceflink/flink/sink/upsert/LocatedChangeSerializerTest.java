package dev.lanceflink.flink.sink.upsert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.schema.ColumnSet;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.api.Test;

/**
 * {@link LocatedChangeSerializer}: records and snapshots of version 1 (column sets as one 64-bit
 * mask) still read as they were written, narrow sets are still written in exactly those bytes,
 * and column sets of a 300-column table survive the trip.
 */
class LocatedChangeSerializerTest {
    private static final RowType NARROW =
            RowType.of(new BigIntType(false), new VarCharType(VarCharType.MAX_LENGTH), new IntType(), new DoubleType());

    private static RowType wide(int columns) {
        LogicalType[] types = new LogicalType[columns];
        for (int i = 0; i < columns; i++) {
            types[i] = switch (i % 4) {
                case 0 -> new BigIntType();
                case 1 -> new VarCharType(VarCharType.MAX_LENGTH);
                case 2 -> new IntType();
                default -> new DoubleType();
            };
        }
        return RowType.of(types);
    }

    private static RowData narrowRow(long id) {
        return GenericRowData.of(id, StringData.fromString("n" + id), (int) id * 2, id / 4.0);
    }

    private static RowData wideRow(int columns, long seed) {
        GenericRowData row = new GenericRowData(columns);
        for (int i = 0; i < columns; i++) {
            row.setField(
                    i,
                    switch (i % 4) {
                        case 0 -> seed * 1_000 + i;
                        case 1 -> i % 7 == 0 ? null : StringData.fromString("c" + i + "-" + seed);
                        case 2 -> (int) (seed + i);
                        default -> seed + i / 8.0;
                    });
        }
        return row;
    }

    /** The bytes version 1 of the serializer wrote for {@code c}, whose columns fit one mask. */
    private static byte[] version1Bytes(RowType rowType, LocatedChange c) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        out.writeByte(c.kind().ordinal());
        out.writeLong(c.fileId());
        out.writeLong(c.position());
        out.writeLong(c.columns().asMask());
        if (c.kind() == LocatedChange.Kind.MOVE) {
            out.writeLong(c.fromFileId());
            out.writeLong(c.fromPosition());
        }
        if (c.row() != null) {
            new RowDataSerializer(rowType).serialize(c.row(), out);
        }
        return out.getCopyOfBuffer();
    }

    private static byte[] write(LocatedChangeSerializer s, LocatedChange c) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        s.serialize(c, out);
        return out.getCopyOfBuffer();
    }

    private static List<LocatedChange> readAll(LocatedChangeSerializer s, byte[] bytes) throws IOException {
        DataInputDeserializer in = new DataInputDeserializer(bytes);
        List<LocatedChange> out = new ArrayList<>();
        while (in.available() > 0) {
            out.add(s.deserialize(in));
        }
        return out;
    }

    /** Kind, locations, columns and the row's fields as text (rows of different classes compare alike). */
    private static String text(RowType rowType, LocatedChange c) {
        StringBuilder b = new StringBuilder(c.kind() + " " + c.fileId() + " " + c.position() + " " + c.columns() + " "
                + c.fromFileId() + " " + c.fromPosition());
        if (c.row() != null) {
            for (int i = 0; i < rowType.getFieldCount(); i++) {
                b.append(',')
                        .append(RowData.createFieldGetter(rowType.getTypeAt(i), i)
                                .getFieldOrNull(c.row()));
            }
        }
        return b.toString();
    }

    private static List<LocatedChange> narrowChanges() {
        return List.of(
                LocatedChange.insert(0x1234_5678_9abc_def0L, 3, narrowRow(7)),
                LocatedChange.update(0, 5L << 32 | 9, ColumnSet.of(2), narrowRow(9)),
                LocatedChange.update(77, 4, ColumnSet.of(1, 3), narrowRow(4)),
                LocatedChange.delete(0, 2L << 32 | 1),
                LocatedChange.move(0, 1L << 32 | 6, 88, 0, ColumnSet.of(0, 2), narrowRow(6)),
                LocatedChange.move(0, 8, 0, 0, ColumnSet.firstColumns(4), narrowRow(8)));
    }

    @Test
    void recordsWrittenByVersionOneReadAsTheyWereWritten() throws Exception {
        // A deletion of row 5 of fragment 2, byte by byte as version 1 wrote it.
        byte[] delete = HexFormat.of().parseHex("02" + "0000000000000000" + "0000000200000005" + "0000000000000000");
        assertThat(readAll(new LocatedChangeSerializer(NARROW), delete))
                .containsExactly(LocatedChange.delete(0, 2L << 32 | 5));

        DataOutputSerializer old = new DataOutputSerializer(256);
        for (LocatedChange c : narrowChanges()) {
            old.write(version1Bytes(NARROW, c));
        }
        List<LocatedChange> read = readAll(new LocatedChangeSerializer(NARROW), old.getCopyOfBuffer());

        assertThat(read)
                .extracting(c -> text(NARROW, c))
                .containsExactlyElementsOf(
                        narrowChanges().stream().map(c -> text(NARROW, c)).toList());
        assertThat(read.get(1).columns()).isEqualTo(ColumnSet.of(2));
        assertThat(read.get(2).columns()).isEqualTo(ColumnSet.fromMask(0b1010));
    }

    @Test
    void columnSetsWithinSixtyFourColumnsAreWrittenInVersionOnesBytes() throws Exception {
        // So that a job restored from a retained unaligned checkpoint reads its records in flight
        // whichever version wrote them.
        LocatedChangeSerializer s = new LocatedChangeSerializer(NARROW);
        for (LocatedChange c : narrowChanges()) {
            assertThat(write(s, c)).as("%s", c).isEqualTo(version1Bytes(NARROW, c));
        }
        RowType sixtyFour = wide(64);
        LocatedChange all = LocatedChange.update(0, 1, ColumnSet.firstColumns(64), wideRow(64, 1));
        assertThat(write(new LocatedChangeSerializer(sixtyFour), all)).isEqualTo(version1Bytes(sixtyFour, all));
    }

    @Test
    void columnSetsOfAThreeHundredColumnTableSurviveTheTrip() throws Exception {
        RowType rowType = wide(300);
        LocatedChangeSerializer s = new LocatedChangeSerializer(rowType);
        List<LocatedChange> changes = List.of(
                LocatedChange.update(0, 3L << 32 | 1, ColumnSet.of(0, 65, 299), wideRow(300, 1)),
                LocatedChange.update(0, 3L << 32 | 2, ColumnSet.of(128), wideRow(300, 2)),
                LocatedChange.update(0, 3L << 32 | 3, ColumnSet.of(5), wideRow(300, 3)),
                LocatedChange.insert(42, 0, wideRow(300, 4)),
                LocatedChange.delete(42, 7),
                LocatedChange.move(0, 9, 0, 0, ColumnSet.firstColumns(300), wideRow(300, 5)),
                LocatedChange.move(0, 10, 42, 1, ColumnSet.of(0, 100, 200, 299), wideRow(300, 6)));
        DataOutputSerializer out = new DataOutputSerializer(4096);
        for (LocatedChange c : changes) {
            s.serialize(c, out);
        }
        byte[] bytes = out.getCopyOfBuffer();
        assertThat(bytes[0] & LocatedChangeSerializer.WIDE_COLUMNS)
                .as("a set beyond 63 is flagged")
                .isNotZero();

        List<LocatedChange> read = readAll((LocatedChangeSerializer) s.duplicate(), bytes);

        assertThat(read)
                .extracting(c -> text(rowType, c))
                .containsExactlyElementsOf(
                        changes.stream().map(c -> text(rowType, c)).toList());
        assertThat(read.get(0).columns().toArray()).containsExactly(0, 65, 299);
        assertThat(read.get(5).columns().size()).isEqualTo(300);

        // copy(in, out), as Flink uses it to pass records on without reading them into objects.
        DataOutputSerializer copied = new DataOutputSerializer(4096);
        DataInputDeserializer in = new DataInputDeserializer(bytes);
        for (int i = 0; i < changes.size(); i++) {
            s.copy(in, copied);
        }
        assertThat(copied.getCopyOfBuffer()).isEqualTo(bytes);
    }

    @Test
    void equalColumnSetsReadInARowAreOneObject() throws Exception {
        // The writer buffers one set per update: shared, they cost what a mask cost.
        for (RowType rowType : List.of(NARROW, wide(300))) {
            LocatedChangeSerializer s = new LocatedChangeSerializer(rowType);
            ColumnSet columns = rowType.getFieldCount() > 64 ? ColumnSet.of(2, 70) : ColumnSet.of(2);
            DataOutputSerializer out = new DataOutputSerializer(1024);
            for (int i = 0; i < 3; i++) {
                RowData row = rowType == NARROW ? narrowRow(i) : wideRow(300, i);
                s.serialize(LocatedChange.update(0, i, ColumnSet.of(columns.toArray()), row), out);
            }
            List<LocatedChange> read = readAll(s, out.getCopyOfBuffer());
            assertThat(read.get(0).columns()).isEqualTo(columns);
            assertThat(read.get(1).columns()).isSameAs(read.get(0).columns());
            assertThat(read.get(2).columns()).isSameAs(read.get(0).columns());
        }
    }

    @Test
    void aVersionOneSnapshotRestoresACompatibleSerializer() throws Exception {
        // Version 1 wrote the row type after the class name and version, as version 2 does.
        DataOutputSerializer out = new DataOutputSerializer(256);
        out.writeUTF(LocatedChangeSerializer.Snapshot.class.getName());
        out.writeInt(1);
        out.writeUTF(NARROW.asSerializableString());
        TypeSerializerSnapshot<LocatedChange> old = TypeSerializerSnapshot.readVersionedSnapshot(
                new DataInputDeserializer(out.getCopyOfBuffer()), getClass().getClassLoader());

        assertThat(old.restoreSerializer()).isEqualTo(new LocatedChangeSerializer(NARROW));
        TypeSerializerSchemaCompatibility<LocatedChange> compatibility =
                new LocatedChangeSerializer(NARROW).snapshotConfiguration().resolveSchemaCompatibility(old);
        assertThat(compatibility.isCompatibleAsIs()).isTrue();

        LocatedChangeSerializer restored = (LocatedChangeSerializer) old.restoreSerializer();
        LocatedChange c = LocatedChange.update(0, 4, ColumnSet.of(1, 2), narrowRow(4));
        assertThat(readAll(restored, version1Bytes(NARROW, c)))
                .extracting(x -> text(NARROW, x))
                .containsExactly(text(NARROW, c));
    }

    @Test
    void snapshotsAreVersionTwoAndUnknownVersionsAreRefused() throws Exception {
        TypeSerializerSnapshot<LocatedChange> snapshot = new LocatedChangeSerializer(wide(300)).snapshotConfiguration();
        assertThat(snapshot.getCurrentVersion()).isEqualTo(2);
        DataOutputSerializer out = new DataOutputSerializer(4096);
        TypeSerializerSnapshot.writeVersionedSnapshot(out, snapshot);
        TypeSerializerSnapshot<LocatedChange> read = TypeSerializerSnapshot.readVersionedSnapshot(
                new DataInputDeserializer(out.getCopyOfBuffer()), getClass().getClassLoader());
        assertThat(read.restoreSerializer()).isEqualTo(new LocatedChangeSerializer(wide(300)));

        DataOutputSerializer future = new DataOutputSerializer(256);
        future.writeUTF(NARROW.asSerializableString());
        assertThatThrownBy(() -> new LocatedChangeSerializer.Snapshot()
                        .readSnapshot(
                                3,
                                new DataInputDeserializer(future.getCopyOfBuffer()),
                                getClass().getClassLoader()))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("version 3");
    }

    @Test
    void aCorruptKindByteIsRefused() {
        byte[] bad = HexFormat.of().parseHex("07" + "00".repeat(24));
        assertThatThrownBy(() -> readAll(new LocatedChangeSerializer(NARROW), bad))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("kind byte 7");
    }

    @Test
    void copyKeepsAnUpdateOfWrittenColumnsAndDeepCopiesOtherRows() {
        LocatedChangeSerializer s = new LocatedChangeSerializer(NARROW);
        GenericRowData full = GenericRowData.of(7L, StringData.fromString("x"), 41, 1.5);
        ColumnSet age = ColumnSet.of(2);
        LocatedChange update = LocatedChange.update(0, 12, age, WrittenColumnsRow.of(age, full));
        assertThat(s.copy(update)).isSameAs(update);
        LocatedChange delete = LocatedChange.delete(0, 12);
        assertThat(s.copy(delete)).isSameAs(delete);

        // A row that is not the resolver's read-only view may be reused upstream: copied.
        LocatedChange insert = LocatedChange.insert(5, 0, full);
        LocatedChange copied = s.copy(insert);
        assertThat(copied).isNotSameAs(insert);
        assertThat(copied.row()).isNotSameAs(full);
        full.setField(2, 99);
        assertThat(copied.row().getInt(2)).isEqualTo(41);
    }
}
