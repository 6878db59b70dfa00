package dev.lanceflink.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.schema.LanceField;
import dev.lanceflink.schema.LanceSchema;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.List;
import java.util.OptionalInt;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

class TableSnapshotTest {
    private static final LanceSchema USERS = LanceSchema.fromArrow(
            new Schema(List.of(
                    new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
                    new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
                    new Field("age", FieldType.nullable(new ArrowType.Int(32, true)), null))),
            0);

    private static TableSnapshot snapshot(long version, boolean stableRowIds) {
        return TableSnapshot.of(Manifest.builder()
                .version(version)
                .schema(USERS)
                .dataFormat(DataStorageFormat.lance("2.1"))
                .writerFeatureFlags(stableRowIds ? FeatureFlags.STABLE_ROW_IDS : 0)
                .readerFeatureFlags(stableRowIds ? FeatureFlags.STABLE_ROW_IDS : 0)
                .build());
    }

    @Test
    void pinsTheVersionSchemaAndFormatOfTheManifest() {
        TableSnapshot s = snapshot(7, true);

        assertThat(s.version()).isEqualTo(7);
        assertThat(s.schema()).isEqualTo(USERS);
        assertThat(s.dataStorageVersion()).isEqualTo("2.1");
        assertThat(s.stableRowIds()).isTrue();
        assertThat(snapshot(7, false).stableRowIds()).isFalse();
    }

    @Test
    void mapsColumnsToTheirFieldIds() {
        assertThat(snapshot(3, false).fieldIds(List.of("age", "id"))).containsExactly(2, 0);
        assertThatThrownBy(() -> snapshot(3, false).fieldIds(List.of("years")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Column 'years' does not exist in version 3")
                .hasMessageContaining("[id, name, age]");
    }

    @Test
    void aRenameKeepsTheWrittenFieldAndADropLosesIt() {
        TableSnapshot s = snapshot(3, false);
        List<LanceField> fields = USERS.fields();
        LanceSchema renamed = LanceSchema.of(List.of(
                fields.get(0),
                fields.get(1),
                fields.get(2).toBuilder().name("years").build()));
        LanceSchema dropped = LanceSchema.of(List.of(fields.get(0), fields.get(1)));

        assertThat(TableSnapshot.firstDropped(renamed, List.of(2))).isEmpty();
        assertThat(s.droppedIn(renamed, List.of(2))).isEmpty();
        assertThat(TableSnapshot.firstDropped(dropped, List.of(1, 2))).isEqualTo(OptionalInt.of(2));
        assertThat(s.droppedIn(dropped, List.of(1, 2))).contains("column 'age' (field id 2)");
    }

    @Test
    void isSerializable() throws Exception {
        TableSnapshot s = snapshot(5, true);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(s);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            TableSnapshot back = (TableSnapshot) in.readObject();
            assertThat(back).isEqualTo(s);
            assertThat(back.schema().fields().get(2).id()).isEqualTo(2);
        }
    }
}
