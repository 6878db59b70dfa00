package dev.lanceflink.flink.sink.upsert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.schema.ColumnSet;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.runtime.typeutils.InternalSerializers;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BinaryType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.CharType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.TinyIntType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;

/**
 * {@link LocatedChangeSerializer}: an update or move of some columns ships only its written
 * cells (bytes that grow with what changed, not with the table's width) and reads back as the
 * row the writers used before; records and snapshots of versions 1 and 2 (whole rows, column sets
 * as one 64-bit mask in version 1) still read as they were written; inserts, deletes and changes
 * of every column are still written in those versions' bytes; column sets of a 300-column table
 * survive the trip.
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

    /**
     * The bytes version 2 of the serializer wrote for {@code c} (its code, kept here as the
     * reference): column sets beyond 63 in further words, and every kind but a DELETE with its
     * whole row.
     */
    private static byte[] version2Bytes(RowType rowType, LocatedChange c) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        ColumnSet columns = c.columns();
        boolean wide = !columns.fitsInMask();
        out.writeByte(c.kind().ordinal() | (wide ? 0x40 : 0));
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
            new RowDataSerializer(rowType).serialize(c.row(), out);
        }
        return out.getCopyOfBuffer();
    }

    private static byte[] write(LocatedChangeSerializer s, LocatedChange c) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        s.serialize(c, out);
        return out.getCopyOfBuffer();
    }

    private static byte[] writeAll(LocatedChangeSerializer s, List<LocatedChange> changes) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(4096);
        for (LocatedChange c : changes) {
            s.serialize(c, out);
        }
        return out.getCopyOfBuffer();
    }

    private static byte[] resource(String name) throws IOException {
        try (InputStream in = LocatedChangeSerializerTest.class.getResourceAsStream(name)) {
            assertThat(in).as(name).isNotNull();
            return in.readAllBytes();
        }
    }

    /** {@code s} as Flink restores it from its snapshot. */
    private static LocatedChangeSerializer restored(LocatedChangeSerializer s) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(4096);
        TypeSerializerSnapshot.writeVersionedSnapshot(out, s.snapshotConfiguration());
        return (LocatedChangeSerializer) TypeSerializerSnapshot.<LocatedChange>readVersionedSnapshot(
                        new DataInputDeserializer(out.getCopyOfBuffer()),
                        LocatedChangeSerializerTest.class.getClassLoader())
                .restoreSerializer();
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
            b.append(' ')
                    .append(c.row().getRowKind())
                    .append(" arity ")
                    .append(c.row().getArity());
            for (int i = 0; i < rowType.getFieldCount(); i++) {
                // (A NOT NULL column's getter reads without asking isNullAt.)
                b.append(',')
                        .append(
                                c.row().isNullAt(i)
                                        ? null
                                        : RowData.createFieldGetter(rowType.getTypeAt(i), i)
                                                .getFieldOrNull(c.row()));
            }
        }
        return b.toString();
    }

    /**
     * {@code c} as the writers see it after the shuffle: an update or move of some columns has
     * only those (the others NULL), as the WrittenColumnsRow the resolver and RowAddressChanges
     * emit shows them.
     */
    private static String shipped(RowType rowType, LocatedChange c) {
        if ((c.kind() == LocatedChange.Kind.UPDATE || c.kind() == LocatedChange.Kind.MOVE)
                && !c.columns().containsAll(ColumnSet.firstColumns(rowType.getFieldCount()))) {
            c = new LocatedChange(
                    c.kind(),
                    c.fileId(),
                    c.position(),
                    c.columns(),
                    WrittenColumnsRow.of(c.columns(), c.row()),
                    c.fromFileId(),
                    c.fromPosition());
        }
        return text(rowType, c);
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

    /**
     * The changes of a 130-column table in {@code located-changes-v2-130.bin}, which version 2 of
     * the serializer wrote (see the README beside it): updates and moves of some columns with
     * whole rows, and as the resolver and RowAddressChanges emit them (WrittenColumnsRow).
     */
    private static List<LocatedChange> version2Fixture() {
        int n = 130;
        RowData after = wideRow(n, 6);
        after.setRowKind(RowKind.UPDATE_AFTER);
        return List.of(
                LocatedChange.update(0, 3L << 32 | 1, ColumnSet.of(0, 65, 129), wideRow(n, 1)),
                LocatedChange.update(
                        0, 3L << 32 | 2, ColumnSet.of(2), WrittenColumnsRow.of(ColumnSet.of(2), wideRow(n, 2))),
                LocatedChange.update(5, 3, ColumnSet.of(70), WrittenColumnsRow.of(ColumnSet.of(70), wideRow(n, 3))),
                LocatedChange.insert(42, 0, wideRow(n, 4)),
                LocatedChange.delete(42, 7),
                LocatedChange.move(0, 9, 0, 0, ColumnSet.firstColumns(n), wideRow(n, 5)),
                LocatedChange.move(
                        0,
                        10,
                        42,
                        1,
                        ColumnSet.of(0, 100, 129),
                        WrittenColumnsRow.of(ColumnSet.of(0, 100, 129), after)));
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
    void insertsDeletesAndChangesOfEveryColumnAreStillWrittenInVersionOnesBytes() throws Exception {
        // So that such records read alike whichever version wrote them (records an unaligned
        // checkpoint keeps in flight). An update or move of some columns now writes only those
        // cells, flagged in the kind byte: a version 1 or 2 serializer refuses that kind byte.
        LocatedChangeSerializer s = new LocatedChangeSerializer(NARROW);
        for (LocatedChange c : narrowChanges()) {
            boolean someColumns = (c.kind() == LocatedChange.Kind.UPDATE || c.kind() == LocatedChange.Kind.MOVE)
                    && !c.columns().equals(ColumnSet.firstColumns(4));
            byte[] bytes = write(s, c);
            if (someColumns) {
                assertThat(bytes[0] & LocatedChangeSerializer.WRITTEN_CELLS)
                        .as("%s", c)
                        .isNotZero();
                assertThat(bytes.length).as("%s", c).isLessThan(version1Bytes(NARROW, c).length);
            } else {
                assertThat(bytes).as("%s", c).isEqualTo(version1Bytes(NARROW, c));
            }
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
                        changes.stream().map(c -> shipped(rowType, c)).toList());
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
    void recordsWrittenByVersionTwoReadAsTheyWereWritten() throws Exception {
        // Bytes the version 2 serializer wrote before written cells (committed fixtures), and
        // the same layout from version 2's code kept in this test, for a 300-column table.
        RowType t130 = wide(130);
        byte[] fixture = resource("located-changes-v2-130.bin");
        List<LocatedChange> expected = version2Fixture();
        assertThat(readAll(new LocatedChangeSerializer(t130), fixture))
                .extracting(c -> text(t130, c))
                .containsExactlyElementsOf(
                        expected.stream().map(c -> text(t130, c)).toList());
        assertThat(readAll(new LocatedChangeSerializer(NARROW), resource("located-changes-v2-narrow.bin")))
                .extracting(c -> text(NARROW, c))
                .containsExactlyElementsOf(
                        narrowChanges().stream().map(c -> text(NARROW, c)).toList());

        RowType t300 = wide(300);
        RowData row = wideRow(300, 9);
        row.setRowKind(RowKind.UPDATE_AFTER);
        List<LocatedChange> wideChanges = List.of(
                LocatedChange.update(0, 4L << 32 | 1, ColumnSet.of(250), WrittenColumnsRow.of(ColumnSet.of(250), row)),
                LocatedChange.update(0, 4L << 32 | 2, ColumnSet.of(1, 64, 299), row),
                LocatedChange.move(0, 4L << 32 | 3, 0, 0, ColumnSet.of(3), row),
                LocatedChange.insert(8, 0, row),
                LocatedChange.delete(0, 4L << 32 | 4));
        DataOutputSerializer old = new DataOutputSerializer(16384);
        for (LocatedChange c : wideChanges) {
            old.write(version2Bytes(t300, c));
        }
        assertThat(readAll(new LocatedChangeSerializer(t300), old.getCopyOfBuffer()))
                .extracting(c -> text(t300, c))
                .containsExactlyElementsOf(
                        wideChanges.stream().map(c -> text(t300, c)).toList());

        // Passed on (copy(in, out)), they take the current layout, smaller, and read as the
        // writers use them.
        LocatedChangeSerializer s = new LocatedChangeSerializer(t130);
        DataOutputSerializer copied = new DataOutputSerializer(4096);
        DataInputDeserializer in = new DataInputDeserializer(fixture);
        for (int i = 0; i < expected.size(); i++) {
            s.copy(in, copied);
        }
        assertThat(in.available()).isZero();
        assertThat(copied.length()).isLessThan(fixture.length);
        assertThat(readAll(s, copied.getCopyOfBuffer()))
                .extracting(c -> text(t130, c))
                .containsExactlyElementsOf(
                        expected.stream().map(c -> shipped(t130, c)).toList());
    }

    @Test
    void aVersionTwoSnapshotRestoresACompatibleSerializerThatReadsItsRecords() throws Exception {
        byte[] bytes = resource("located-change-serializer-snapshot-v2.bin");
        DataInputDeserializer header = new DataInputDeserializer(bytes);
        assertThat(header.readUTF()).isEqualTo(LocatedChangeSerializer.Snapshot.class.getName());
        assertThat(header.readInt()).as("the fixture's snapshot version").isEqualTo(2);
        TypeSerializerSnapshot<LocatedChange> old = TypeSerializerSnapshot.readVersionedSnapshot(
                new DataInputDeserializer(bytes), getClass().getClassLoader());

        assertThat(new LocatedChangeSerializer(wide(130))
                        .snapshotConfiguration()
                        .resolveSchemaCompatibility(old)
                        .isCompatibleAsIs())
                .isTrue();
        assertThat(new LocatedChangeSerializer(wide(131))
                        .snapshotConfiguration()
                        .resolveSchemaCompatibility(old)
                        .isIncompatible())
                .isTrue();
        LocatedChangeSerializer restored = (LocatedChangeSerializer) old.restoreSerializer();
        assertThat(restored).isEqualTo(new LocatedChangeSerializer(wide(130)));
        assertThat(readAll(restored, resource("located-changes-v2-130.bin")))
                .extracting(c -> text(wide(130), c))
                .containsExactlyElementsOf(
                        version2Fixture().stream().map(c -> text(wide(130), c)).toList());
    }

    @Test
    void oneWrittenColumnOfAThreeHundredColumnTableRoundTrips() throws Exception {
        RowType rowType = wide(300);
        LocatedChangeSerializer s = new LocatedChangeSerializer(rowType);
        List<LocatedChange> changes = new ArrayList<>();
        // Each of the table's types (BIGINT, VARCHAR, INT, DOUBLE) at the start, past the first
        // word and at the end; column 21 is a NULL VARCHAR; row kinds of both kinds.
        for (int col : new int[] {0, 1, 2, 3, 21, 64, 129, 250, 296, 297, 298, 299}) {
            ColumnSet one = ColumnSet.of(col);
            RowData row = wideRow(300, col);
            row.setRowKind(col % 2 == 0 ? RowKind.UPDATE_AFTER : RowKind.INSERT);
            changes.add(LocatedChange.update(0, 7L << 32 | col, one, WrittenColumnsRow.of(one, row)));
            changes.add(LocatedChange.update(9, col, one, row)); // a whole row, one column written
            changes.add(LocatedChange.move(0, 8L << 32 | col, col % 3 == 0 ? 0 : 11, col, one, row));
        }
        byte[] bytes = writeAll(s, changes);
        List<String> expected = changes.stream().map(c -> shipped(rowType, c)).toList();

        for (LocatedChangeSerializer reader : List.of(s, (LocatedChangeSerializer) s.duplicate(), restored(s))) {
            List<LocatedChange> read = readAll(reader, bytes);
            assertThat(read).extracting(c -> text(rowType, c)).containsExactlyElementsOf(expected);
            for (LocatedChange c : read) {
                // What the writer buffers until its checkpoint: the written cell alone.
                assertThat(c.row()).isInstanceOf(WrittenCellsRow.class);
                assertThat(c.row().getArity()).isEqualTo(300);
                int col = c.columns().first();
                assertThat(c.row().isNullAt(col)).isEqualTo(col == 21);
                assertThat(c.row().isNullAt(col == 0 ? 1 : col - 1)).isTrue();
            }
            // Written again (copy(in, out) or a record passed on), the same bytes.
            assertThat(writeAll(reader, read)).isEqualTo(bytes);
        }
        assertThat(s.duplicate()).isNotSameAs(s).isEqualTo(s);
    }

    @Test
    void aOneIntUpdateOfAThreeHundredColumnTableShipsItsCellOnly() throws Exception {
        RowType rowType = wide(300);
        LocatedChangeSerializer s = new LocatedChangeSerializer(rowType);
        RowData row = wideRow(300, 1);
        ColumnSet low = ColumnSet.of(2);
        ColumnSet high = ColumnSet.of(250);
        LocatedChange lowUpdate = LocatedChange.update(0, 5L << 32 | 1, low, WrittenColumnsRow.of(low, row));
        LocatedChange highUpdate = LocatedChange.update(0, 5L << 32 | 1, high, WrittenColumnsRow.of(high, row));

        // Kind byte, file id, position and the column set's first word (25 bytes; column 250
        // adds the number of further words and three words), then the row kind, the NULL byte and
        // the INT: the bytes grow with what changed, not with the table's width.
        assertThat(write(s, lowUpdate).length).isEqualTo(25 + 6).isLessThan(80);
        assertThat(write(s, highUpdate).length).isEqualTo(25 + 4 + 3 * 8 + 6).isLessThan(80);
        // Version 2 shipped the whole row, at least a fixed 8-byte slot per column.
        assertThat(version2Bytes(rowType, lowUpdate).length).isGreaterThan(300 * 8);
        assertThat(version2Bytes(rowType, highUpdate).length).isGreaterThan(300 * 8);
    }

    @Test
    void writtenCellsOfEveryColumnTypeRoundTrip() throws Exception {
        LogicalType[] types = {
            new BooleanType(),
            new TinyIntType(),
            new SmallIntType(),
            new IntType(),
            new BigIntType(false),
            new FloatType(),
            new DoubleType(),
            new DecimalType(10, 2),
            new DecimalType(30, 5),
            new CharType(3),
            new VarCharType(VarCharType.MAX_LENGTH),
            new BinaryType(4),
            new VarBinaryType(VarBinaryType.MAX_LENGTH),
            new DateType(),
            new TimeType(),
            new TimestampType(3),
            new TimestampType(9),
            new LocalZonedTimestampType(6),
            new ArrayType(new FloatType()),
            new MapType(new VarCharType(VarCharType.MAX_LENGTH), new IntType()),
            RowType.of(new IntType(), new VarCharType(VarCharType.MAX_LENGTH))
        };
        Object[] values = {
            true,
            (byte) -3,
            (short) 300,
            7,
            1L << 40,
            1.5f,
            2.25,
            DecimalData.fromBigDecimal(new BigDecimal("12345678.90"), 10, 2),
            DecimalData.fromBigDecimal(new BigDecimal("1234567890123456789012345.67891"), 30, 5),
            StringData.fromString("abc"),
            StringData.fromString("h\u00e9llo"),
            new byte[] {1, 2, 3, 4},
            new byte[] {9, 8, 7},
            19_000,
            3_600_000,
            TimestampData.fromEpochMillis(1_700_000_000_123L),
            TimestampData.fromEpochMillis(1_700_000_000_123L, 456_789),
            TimestampData.fromEpochMillis(1_700_000_000_123L, 456_000),
            new GenericArrayData(new float[] {1f, 2.5f}),
            new GenericMapData(Map.of(StringData.fromString("k"), 5)),
            GenericRowData.of(3, StringData.fromString("r"))
        };
        int width = 300;
        LogicalType[] columns = new LogicalType[width];
        GenericRowData row = new GenericRowData(RowKind.UPDATE_AFTER, width);
        for (int i = 0; i < width; i++) {
            columns[i] = types[i % types.length];
            row.setField(i, values[i % types.length]);
        }
        RowType rowType = RowType.of(columns);
        LocatedChangeSerializer s = new LocatedChangeSerializer(rowType);
        GenericRowData nulls = new GenericRowData(RowKind.UPDATE_AFTER, width); // NULL in every column

        List<LocatedChange> changes = new ArrayList<>();
        for (int col = 0; col < width; col++) {
            ColumnSet one = ColumnSet.of(col);
            changes.add(LocatedChange.update(0, col, one, WrittenColumnsRow.of(one, row)));
            if (columns[col].isNullable()) {
                changes.add(LocatedChange.update(0, col, one, WrittenColumnsRow.of(one, nulls)));
            }
        }
        ColumnSet several = ColumnSet.of(0, 7, 8, 18, 19, 20, 130, 299);
        changes.add(LocatedChange.move(0, 1, 0, 0, several, WrittenColumnsRow.of(several, row)));
        List<LocatedChange> read = readAll(s, writeAll(s, changes));

        assertThat(read).hasSameSizeAs(changes);
        for (int i = 0; i < read.size(); i++) {
            LocatedChange sent = changes.get(i);
            LocatedChange got = read.get(i);
            assertThat(got.columns()).isEqualTo(sent.columns());
            assertThat(got.row().getRowKind()).isEqualTo(RowKind.UPDATE_AFTER);
            for (int col = 0; col < width; col++) {
                assertThat(cell(columns[col], col, got.row()))
                        .as("change %s, column %s of type %s", i, col, columns[col])
                        .isEqualTo(cell(columns[col], col, sent.row()));
            }
        }
    }

    /** Column {@code col}'s value in its type's Flink serialization (null if NULL): equal values, equal bytes. */
    private static byte[] cell(LogicalType type, int col, RowData row) throws IOException {
        if (row.isNullAt(col)) {
            return null;
        }
        Object value = RowData.createFieldGetter(type, col).getFieldOrNull(row);
        DataOutputSerializer out = new DataOutputSerializer(64);
        InternalSerializers.create(type).serialize(value, out);
        return out.getCopyOfBuffer();
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
    void snapshotsAreVersionThreeAndUnknownVersionsAreRefused() throws Exception {
        TypeSerializerSnapshot<LocatedChange> snapshot = new LocatedChangeSerializer(wide(300)).snapshotConfiguration();
        assertThat(snapshot.getCurrentVersion()).isEqualTo(3);
        DataOutputSerializer out = new DataOutputSerializer(4096);
        TypeSerializerSnapshot.writeVersionedSnapshot(out, snapshot);
        TypeSerializerSnapshot<LocatedChange> read = TypeSerializerSnapshot.readVersionedSnapshot(
                new DataInputDeserializer(out.getCopyOfBuffer()), getClass().getClassLoader());
        assertThat(read.restoreSerializer()).isEqualTo(new LocatedChangeSerializer(wide(300)));

        DataOutputSerializer future = new DataOutputSerializer(256);
        future.writeUTF(NARROW.asSerializableString());
        assertThatThrownBy(() -> new LocatedChangeSerializer.Snapshot()
                        .readSnapshot(
                                4,
                                new DataInputDeserializer(future.getCopyOfBuffer()),
                                getClass().getClassLoader()))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("version 4");
    }

    @Test
    void aCorruptKindByteIsRefused() {
        byte[] bad = HexFormat.of().parseHex("07" + "00".repeat(24));
        assertThatThrownBy(() -> readAll(new LocatedChangeSerializer(NARROW), bad))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("kind byte 7");
        // Only an update or a move carries written cells alone.
        byte[] insertCells = HexFormat.of().parseHex("20" + "00".repeat(24));
        assertThatThrownBy(() -> readAll(new LocatedChangeSerializer(NARROW), insertCells))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("written cells of a INSERT");
    }

    @Test
    void copyKeepsAnUpdateOfWrittenColumnsAndDeepCopiesOtherRows() throws Exception {
        LocatedChangeSerializer s = new LocatedChangeSerializer(NARROW);
        GenericRowData full = GenericRowData.of(7L, StringData.fromString("x"), 41, 1.5);
        ColumnSet age = ColumnSet.of(2);
        LocatedChange update = LocatedChange.update(0, 12, age, WrittenColumnsRow.of(age, full));
        assertThat(s.copy(update)).isSameAs(update);
        LocatedChange delete = LocatedChange.delete(0, 12);
        assertThat(s.copy(delete)).isSameAs(delete);
        // Nor the cells an update read back with: nothing else holds them.
        LocatedChange read = readAll(s, write(s, update)).get(0);
        assertThat(read.row()).isInstanceOf(WrittenCellsRow.class);
        assertThat(s.copy(read)).isSameAs(read);
        assertThat(s.copy(read, LocatedChange.delete(0, 0))).isSameAs(read);

        // A row that is not the resolver's read-only view may be reused upstream: copied.
        LocatedChange insert = LocatedChange.insert(5, 0, full);
        LocatedChange copied = s.copy(insert);
        assertThat(copied).isNotSameAs(insert);
        assertThat(copied.row()).isNotSameAs(full);
        full.setField(2, 99);
        assertThat(copied.row().getInt(2)).isEqualTo(41);
    }
}
