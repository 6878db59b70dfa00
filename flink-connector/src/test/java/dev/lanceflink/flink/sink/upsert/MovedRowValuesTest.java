package dev.lanceflink.flink.sink.upsert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.committer.core.PendingFiles;
import dev.lanceflink.committer.core.TableLocation;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.file.FileVersion;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.flink.sink.writer.RowDataToArrow;
import dev.lanceflink.flink.types.LanceTypeMapping;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.schema.ColumnSet;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.testkit.users.UsersChangelog.Mix;
import dev.lanceflink.testkit.users.UsersTable;
import dev.lanceflink.write.FragmentWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Moved rows of a partial-column upsert ({@code id, age} written) get name and score from the
 * existing row: from a committed fragment as it reads now (overlays applied), and from a data file
 * the writer wrote whose commit has not landed yet.
 */
class MovedRowValuesTest {
    /** id and age, the columns the records carry. */
    private static final ColumnSet ID_AND_AGE = ColumnSet.of(0, 2);

    @TempDir
    Path dir;

    private BufferAllocator allocator;
    private TableLocation table;
    private ObjectStore store;
    private MovedRowValues values;
    private Dataset dataset;

    @BeforeEach
    void createTable() throws Exception {
        allocator = new RootAllocator();
        String uri = dir.resolve("users.lance").toString();
        TreeMap<Long, UsersTable.Row> rows = Mix.SINK_TESTS.initialRows(10);
        UsersTable.create(uri, rows, 10);
        table = new TableLocation(uri, Map.of());
        store = table.open();
        dataset = Dataset.open(uri, Map.of());
        values = new MovedRowValues(store, table, dataset.schema(), rowType(), allocator, 0);
    }

    @AfterEach
    void close() throws Exception {
        dataset.close();
        store.close();
        allocator.close();
    }

    private RowType rowType() {
        return LanceTypeMapping.toRowType(dataset.schema().toArrow());
    }

    private static LocatedChange move(long fromFileId, long fromPosition, long id, int age) {
        return LocatedChange.move(
                fromFileId,
                fromPosition,
                77,
                0,
                ID_AND_AGE,
                GenericRowData.of(id, StringData.fromString("noise"), age, -1.0));
    }

    private static String text(RowData row) {
        return row.getLong(0) + ","
                + (row.isNullAt(1) ? "null" : row.getString(1).toString()) + "," + row.getInt(2) + ","
                + (row.isNullAt(3) ? "null" : Double.toString(row.getDouble(3)));
    }

    @Test
    void movesOfCommittedRowsTakeTheOtherColumnsAsTheyReadNowAndCompleteRowsPassThrough() throws Exception {
        // Row 3's name was overlaid since it was written: the moved row keeps the overlaid name.
        try (VectorSchemaRoot names = VectorSchemaRoot.create(
                new Schema(List.of(dataset.schema().toArrow().getFields().get(1))), allocator)) {
            ((VarCharVector) names.getVector(0)).setSafe(0, "overlaid-3".getBytes(StandardCharsets.UTF_8));
            names.setRowCount(1);
            dataset.update(new long[] {3}, names).close();
        }
        RowData whole = GenericRowData.of(8L, StringData.fromString("whole"), 80, 8.5);
        List<LocatedChange> changes = List.of(move(0, 7, 7, 70), LocatedChange.insert(77, 1, whole), move(0, 3, 3, 30));

        List<RowData> rows = values.complete(changes);

        assertThat(rows)
                .extracting(MovedRowValuesTest::text)
                .containsExactly("7,init-7,70,3.5", "8,whole,80,8.5", "3,overlaid-3,30,1.5");
        assertThat(values.needsValues(changes.get(0))).isTrue();
        assertThat(values.needsValues(LocatedChange.move(0, 1, 77, 0, ColumnSet.firstColumns(4), whole)))
                .isFalse();
    }

    @Test
    void aMoveOfARowInTheWritersOwnUncommittedFileReadsThatFile() throws Exception {
        long fileId = 0x0123_4567_89ab_cdefL;
        List<Fragment> written;
        try (RowDataToArrow batch = new RowDataToArrow(dataset.schema().toArrow(), allocator, table.uri());
                FragmentWriter w = new FragmentWriter(
                        store,
                        dataset.schema(),
                        FileVersion.parse(dataset.manifest().dataFormat().version()),
                        Long.MAX_VALUE,
                        allocator,
                        FileWriterOptions.defaults(),
                        () -> PendingFiles.fileName(fileId, "test"))) {
            batch.append(GenericRowData.of(100L, StringData.fromString("new-100"), 1, 10.0));
            batch.append(GenericRowData.of(101L, null, 2, 20.0));
            w.write(batch.batch());
            written = w.finish();
        }
        assertThatThrownBy(() -> values.complete(List.of(move(fileId, 1, 101, 5))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("in data file 0123456789abcdef, which this sink appended, but no version of the"
                        + " table holds it yet and this writer did not write it");

        values.wrote(fileId, written.get(0));
        List<RowData> rows = values.complete(List.of(move(fileId, 1, 101, 5), move(fileId, 0, 100, 6)));

        assertThat(rows).extracting(MovedRowValuesTest::text).containsExactly("101,null,5,20.0", "100,new-100,6,10.0");
    }
}
