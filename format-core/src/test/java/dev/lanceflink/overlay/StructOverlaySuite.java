package dev.lanceflink.overlay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.compact.OverlayCompactor;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.file.FileVersion;
import dev.lanceflink.file.writer.FileWriteSummary;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.file.writer.LanceFileWriter;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.StoreBackedSuite;
import dev.lanceflink.schema.LanceSchema;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.OverlayCoverage;
import dev.lanceflink.txn.CommitOptions;
import dev.lanceflink.write.DataFileNames;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;

/**
 * Struct leaves are resolved independently (overlays.md §3.4): an overlay file written the way
 * Lance writes one for {@code st.y} (file schema {@code st{y}}, {@code fields} = the leaf id)
 * replaces only that leaf; the struct's own validity comes from the base.
 *
 * <p>Runs locally as {@link StructOverlayTest} and on S3 as s3-store's {@code S3StructOverlayTest}.
 */
public abstract class StructOverlaySuite extends StoreBackedSuite {
    private final BufferAllocator allocator = new RootAllocator();

    @AfterEach
    void close() {
        allocator.close();
    }

    private static final Schema SCHEMA = new Schema(List.of(
            Field.notNullable("k", new ArrowType.Int(32, true)),
            new Field(
                    "st",
                    FieldType.nullable(ArrowType.Struct.INSTANCE),
                    List.of(
                            Field.nullable("x", new ArrowType.Int(32, true)),
                            Field.nullable("y", ArrowType.Utf8.INSTANCE)))));

    @Test
    void leavesOfAStructResolveIndependently() throws Exception {
        ObjectStore store = newStore();
        try (VectorSchemaRoot r = VectorSchemaRoot.create(SCHEMA, allocator)) {
            r.allocateNew();
            StructVector st = (StructVector) r.getVector("st");
            for (int i = 0; i < 4; i++) {
                ((IntVector) r.getVector("k")).setSafe(i, i);
                ((IntVector) st.getChild("x")).setSafe(i, 100 + i);
                ((VarCharVector) st.getChild("y")).setSafe(i, ("y" + i).getBytes());
                if (i == 3) {
                    st.setNull(i);
                } else {
                    st.setIndexDefined(i);
                }
            }
            st.getChild("x").setValueCount(4);
            st.getChild("y").setValueCount(4);
            r.setRowCount(4);
            Dataset.write(store, allocator, List.of(r), SCHEMA, WriteParams.of(WriteMode.CREATE));
        }
        try (Dataset v1 = Dataset.open(store, allocator)) {
            LanceSchema schema = v1.schema();
            int st = schema.fieldByName("st").orElseThrow().id();
            int x = schema.fieldByPath("st.x").orElseThrow().id();
            int y = schema.fieldByPath("st.y").orElseThrow().id();
            DataOverlayFile onY = leafOverlay(store, schema, st, y, "y", RoaringBitmap.bitmapOf(1, 3), "new1", "new3");
            commit(store, 1, onY);
            DataOverlayFile onX = leafOverlay(store, schema, st, x, "x", RoaringBitmap.bitmapOf(1), 7);
            commit(store, 2, onX);
            try (Dataset v3 = v1.checkoutVersion(3)) {
                List<Object> rows = OverlayTestSupport.column(v3, "st");
                assertThat(rows.get(0).toString()).isEqualTo("{\"x\":100,\"y\":\"y0\"}");
                assertThat(rows.get(1).toString()).isEqualTo("{\"x\":7,\"y\":\"new1\"}");
                assertThat(rows.get(2).toString()).isEqualTo("{\"x\":102,\"y\":\"y2\"}");
                assertThat(rows.get(3)).isNull(); // the base struct's validity is kept
                assertThat(OverlayExclusions.excludedOffsets(
                                        v3.manifest().fragment(0).orElseThrow(), schema, new int[] {st}, 1)
                                .toArray())
                        .containsExactly(1, 3); // overlay on a child of an indexed struct
                assertThat(OverlayExclusions.excludedOffsets(
                                        v3.manifest().fragment(0).orElseThrow(), schema, new int[] {x}, 2)
                                .toArray())
                        .containsExactly(1);

                StagedWrite fold =
                        OverlayCompactor.fold(store, v3.manifest(), 0, allocator, FileWriterOptions.defaults());
                OverlayCompactor.commit(store, v3.manifest(), 0, fold, Map.of(), CommitOptions.defaults());
                try (Dataset v4 = v1.checkoutVersion(4)) {
                    assertThat(v4.manifest()
                                    .fragment(0)
                                    .orElseThrow()
                                    .files()
                                    .get(1)
                                    .fields())
                            .containsExactly(x, y);
                    List<Object> folded = OverlayTestSupport.column(v4, "st");
                    assertThat(folded.get(1).toString()).isEqualTo("{\"x\":7,\"y\":\"new1\"}");
                    assertThat(folded.get(3)).isNull();
                    assertThat(OverlayTestSupport.column(v4, "k")).containsExactly(0, 1, 2, 3);
                }
            }
        }
    }

    private void commit(ObjectStore store, long readVersion, DataOverlayFile o) throws Exception {
        OverlayCommits.commit(
                store,
                readVersion,
                new StagedWrite(OverlayCommits.operation(Map.of(0L, List.of(o))), List.of()),
                Map.of(),
                CommitOptions.defaults());
    }

    /** A 2.1 overlay file holding struct {@code st} with the single child {@code leafName}. */
    private DataOverlayFile leafOverlay(
            ObjectStore store,
            LanceSchema schema,
            int structId,
            int leafId,
            String leafName,
            RoaringBitmap coverage,
            Object... values)
            throws Exception {
        LanceSchema fileSchema = schema.projectIds(leafId); // the parent struct comes along with only this child
        String name = DataFileNames.newName();
        FileWriteSummary s;
        try (LanceFileWriter w = LanceFileWriter.create(
                        store, "data/" + name, fileSchema, FileVersion.V2_1, allocator, FileWriterOptions.defaults());
                StructVector v =
                        (StructVector) fileSchema.toArrow().getFields().get(0).createVector(allocator)) {
            v.allocateNew();
            for (int i = 0; i < values.length; i++) {
                if (values[i] instanceof String str) {
                    ((VarCharVector) v.getChild(leafName)).setSafe(i, str.getBytes());
                } else {
                    ((IntVector) v.getChild(leafName)).setSafe(i, (Integer) values[i]);
                }
                v.setIndexDefined(i);
            }
            v.getChild(leafName).setValueCount(values.length);
            v.setValueCount(values.length);
            w.writeColumn(structId, v);
            s = w.finish();
        }
        assertThat(s.fieldIds()).containsExactly(leafId);
        return new DataOverlayFile(
                new DataFile(
                        name,
                        s.fieldIds(),
                        s.columnIndices(),
                        s.fileMajorVersion(),
                        s.fileMinorVersion(),
                        s.sizeBytes()),
                OverlayCoverage.Dense.of(coverage),
                0);
    }
}
