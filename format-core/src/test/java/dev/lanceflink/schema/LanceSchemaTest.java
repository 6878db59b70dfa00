package dev.lanceflink.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import java.util.List;
import java.util.Map;
import lance.file.Encoding;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

class LanceSchemaTest {

    private static Field leaf(String name, ArrowType type) {
        return new Field(name, FieldType.nullable(type), List.of());
    }

    private static Field notNull(String name, ArrowType type, Map<String, String> metadata) {
        return new Field(name, new FieldType(false, type, null, metadata), List.of());
    }

    private static final ArrowType INT32 = new ArrowType.Int(32, true);

    /** a, b, c{x,y,z}, d from the spec's id example. */
    private static Schema abcd() {
        Field c = new Field(
                "c",
                FieldType.nullable(ArrowType.Struct.INSTANCE),
                List.of(leaf("x", INT32), leaf("y", ArrowType.Utf8.INSTANCE), leaf("z", ArrowType.Bool.INSTANCE)));
        return new Schema(
                List.of(
                        leaf("a", INT32),
                        leaf("b", ArrowType.Utf8.INSTANCE),
                        c,
                        leaf("d", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE))),
                Map.of("origin", "test"));
    }

    @Test
    void idsAreAssignedPreOrderFromZero() {
        LanceSchema schema = LanceSchema.fromArrow(abcd(), 0);

        assertThat(schema.allFieldIds()).containsExactly(0, 1, 2, 3, 4, 5, 6);
        assertThat(schema.allFields()).extracting(LanceField::name).containsExactly("a", "b", "c", "x", "y", "z", "d");
        assertThat(schema.fieldByPath("c.y").orElseThrow().id()).isEqualTo(4);
        assertThat(schema.fieldByPath("c.y").orElseThrow().parentId()).isEqualTo(2);
        assertThat(schema.maxFieldId()).isEqualTo(6);
        assertThat(schema.metadata()).containsExactly(Map.entry("origin", "test"));
        assertThat(schema.leafFields()).extracting(LanceField::id).containsExactly(0, 1, 3, 4, 5, 6);
    }

    @Test
    void idsCanStartAfterExistingMaximum() {
        LanceSchema schema = LanceSchema.fromArrow(abcd(), 10);
        assertThat(schema.allFieldIds()).containsExactly(10, 11, 12, 13, 14, 15, 16);
    }

    @Test
    void explicitFieldIdMetadataIsHonouredAndStripped() {
        Field a = new Field("a", new FieldType(true, INT32, null, Map.of("lance:field_id", "7", "k", "v")), List.of());
        LanceSchema schema = LanceSchema.fromArrow(new Schema(List.of(a, leaf("b", INT32))), 0);
        assertThat(schema.allFieldIds()).containsExactly(7, 8);
        assertThat(schema.fieldByName("a").orElseThrow().metadata()).containsExactly(Map.entry("k", "v"));
    }

    @Test
    void protoEntriesCarryLanceValues() {
        LanceSchema schema = LanceSchema.fromArrow(abcd(), 0);
        List<lance.file.Field> proto = schema.toProto();

        assertThat(proto).hasSize(7);
        lance.file.Field c = proto.get(2);
        assertThat(c.getName()).isEqualTo("c");
        assertThat(c.getId()).isEqualTo(2);
        assertThat(c.getParentId()).isEqualTo(-1);
        assertThat(c.getLogicalType()).isEqualTo("struct");
        assertThat(c.getEncoding()).isEqualTo(Encoding.NONE);
        lance.file.Field y = proto.get(4);
        assertThat(y.getParentId()).isEqualTo(2);
        assertThat(y.getLogicalType()).isEqualTo("string");
        assertThat(y.getEncoding()).isEqualTo(Encoding.VAR_BINARY);
        assertThat(y.getNullable()).isTrue();
        assertThat(proto.get(0).getEncoding()).isEqualTo(Encoding.PLAIN);
        assertThat(LanceSchema.fromProto(proto, schema.rawMetadata())).isEqualTo(schema);
    }

    @Test
    void everyProtoPropertyRoundTripsUnchanged() {
        lance.file.Field weird = lance.file.Field.newBuilder()
                .setTypeValue(2)
                .setName("w")
                .setId(3)
                .setParentId(-1)
                .setLogicalType("int64")
                .setNullable(false)
                .setEncodingValue(4)
                .setDictionary(lance.file.Dictionary.newBuilder().setOffset(10).setLength(20))
                .setExtensionName("my.ext")
                .putMetadata("bin", ByteString.copyFrom(new byte[] {(byte) 0xff, 0}))
                .setUnenforcedPrimaryKey(true)
                .setUnenforcedPrimaryKeyPosition(2)
                .setUnenforcedClusteringKey(true)
                .setUnenforcedClusteringKeyPosition(1)
                .setUnknownFields(UnknownFieldSet.newBuilder()
                        .addField(
                                99,
                                UnknownFieldSet.Field.newBuilder().addVarint(5).build())
                        .build())
                .build();
        LanceSchema schema = LanceSchema.fromProto(List.of(weird), Map.of("m", ByteString.copyFromUtf8("v")));

        assertThat(schema.toProto()).containsExactly(weird);
        assertThat(schema.toProto().get(0).toByteString()).isEqualTo(weird.toByteString());
        LanceField w = schema.requireField(3);
        assertThat(w.isUnenforcedPrimaryKey()).isTrue();
        assertThat(w.legacyEncoding()).isEqualTo(Encoding.RLE);
        assertThat(w.legacyDictionary()).isPresent();
        assertThat(w.toArrow().getMetadata()).containsEntry("ARROW:extension:name", "my.ext");
        assertThat(schema.toProtoSchema().getMetadataMap()).containsEntry("m", ByteString.copyFromUtf8("v"));
    }

    @Test
    void childrenAttachToTheirParentEvenWhenNotAdjacent() {
        List<lance.file.Field> flat = List.of(
                entry("s", 0, -1, "struct"),
                entry("t", 1, -1, "struct"),
                entry("x", 2, 0, "int32"),
                entry("y", 3, 1, "int32"));
        LanceSchema schema = LanceSchema.fromProto(flat, Map.of());
        assertThat(schema.fieldByPath("s.x").orElseThrow().id()).isEqualTo(2);
        assertThat(schema.fieldByPath("t.y").orElseThrow().id()).isEqualTo(3);
        // re-flattened in pre-order
        assertThat(schema.toProto()).extracting(lance.file.Field::getName).containsExactly("s", "x", "t", "y");
    }

    @Test
    void parentMustPrecedeChild() {
        List<lance.file.Field> flat = List.of(entry("x", 1, 0, "int32"), entry("s", 0, -1, "struct"));
        assertThatThrownBy(() -> LanceSchema.fromProto(flat, Map.of()))
                .isInstanceOf(LanceSchemaException.class)
                .hasMessage("Schema entry 0 (field 'x', id 1) references parent id 0, which does not appear before it "
                        + "in the flattened field list; the schema is corrupt (parents must precede their children, "
                        + "top-level fields have parent id -1)");
    }

    @Test
    void duplicateIdsAttachChildrenToFirstOccurrence() {
        List<lance.file.Field> flat =
                List.of(entry("a", 0, -1, "struct"), entry("b", 0, -1, "struct"), entry("x", 1, 0, "int32"));
        LanceSchema schema = LanceSchema.fromProto(flat, Map.of());
        assertThat(schema.fieldByName("a").orElseThrow().children())
                .extracting(LanceField::name)
                .containsExactly("x");
        assertThat(schema.fieldById(0).orElseThrow().name()).isEqualTo("a");
        assertThatThrownBy(schema::validate)
                .isInstanceOf(LanceSchemaException.class)
                .hasMessage("Field id 0 is used twice (second time by 'b'); field ids must be unique");
    }

    @Test
    void projectionKeepsIdsAndSchemaOrder() {
        LanceSchema schema = LanceSchema.fromArrow(abcd(), 0);

        LanceSchema p = schema.project(List.of("d", "c.y", "a"));
        assertThat(p.allFields()).extracting(LanceField::name).containsExactly("a", "c", "y", "d");
        assertThat(p.allFieldIds()).containsExactly(0, 2, 4, 6);
        assertThat(p.metadata()).isEqualTo(schema.metadata());

        LanceSchema whole = schema.projectIds(2);
        assertThat(whole.allFieldIds()).containsExactly(2, 3, 4, 5);
        assertThat(whole.fields().get(0)).isSameAs(schema.fields().get(2));

        assertThat(schema.projectIds(List.of(5, 99)).allFieldIds()).containsExactly(2, 5);

        assertThatThrownBy(() -> schema.project(List.of("c.q")))
                .isInstanceOf(LanceSchemaException.class)
                .hasMessage("Cannot project column 'c.q': no such field; top-level fields are [a, b, c, d]");
    }

    @Test
    void selectKeepsRequestedOrderAndWholeFields() {
        LanceSchema schema = LanceSchema.fromArrow(abcd(), 0);
        LanceSchema s = schema.select(List.of("d", "c"));
        assertThat(s.allFieldIds()).containsExactly(6, 2, 3, 4, 5);
        assertThatThrownBy(() -> schema.select(List.of("a", "a")))
                .isInstanceOf(LanceSchemaException.class)
                .hasMessage("Column 'a' is selected twice");
        assertThatThrownBy(() -> schema.select(List.of("x")))
                .isInstanceOf(LanceSchemaException.class)
                .hasMessage("Cannot select column 'x': no such top-level field; top-level fields are [a, b, c, d]");
    }

    @Test
    void parentOfFollowsThePath() {
        LanceSchema schema = LanceSchema.fromArrow(abcd(), 0);
        assertThat(schema.parentOf(schema.requireField(4)).orElseThrow().id()).isEqualTo(2);
        assertThat(schema.parentOf(schema.requireField(2))).isEmpty();
    }

    @Test
    void pathsWithSpecialCharactersAreQuoted() {
        Field s = new Field("my.col", FieldType.nullable(ArrowType.Struct.INSTANCE), List.of(leaf("a`b", INT32)));
        LanceSchema schema = LanceSchema.fromProto(
                LanceSchema.of(List.of(LanceField.fromArrow(s)))
                        .withAssignedIds(0)
                        .toProto(),
                Map.of());
        LanceField inner = schema.fieldByPath("`my.col`.`a``b`").orElseThrow();
        assertThat(inner.id()).isEqualTo(1);
        assertThat(inner.pathString()).isEqualTo("`my.col`.`a``b`");
        assertThatThrownBy(schema::validate)
                .isInstanceOf(LanceSchemaException.class)
                .hasMessageContaining("Top-level field 'my.col' contains '.'");
    }

    @Test
    void builderDerivesParentPathEncodingAndExtensionName() {
        LanceField list = LanceField.builder("tags", "list")
                .addChild(LanceField.builder("item", "string").putMetadata("ARROW:extension:name", "x.y"))
                .build();
        LanceSchema schema = LanceSchema.of(List.of(
                        LanceField.builder("id", "int64").nullable(false).build(), list))
                .withAssignedIds(5);

        assertThat(schema.allFieldIds()).containsExactly(5, 6, 7);
        LanceField item = schema.fieldByPath("tags.item").orElseThrow();
        assertThat(item.parentId()).isEqualTo(6);
        assertThat(item.extensionName()).isEqualTo("x.y");
        assertThat(item.legacyEncoding()).isEqualTo(Encoding.VAR_BINARY);
        assertThat(schema.fieldByName("tags").orElseThrow().legacyEncoding()).isEqualTo(Encoding.PLAIN);
        schema.validate();
        Schema arrow = schema.toArrow();
        assertThat(arrow.findField("tags").getType()).isEqualTo(ArrowType.List.INSTANCE);
        assertThat(arrow.findField("id").isNullable()).isFalse();
    }

    @Test
    void unassignedIdsFailValidationWithAdvice() {
        LanceSchema schema =
                LanceSchema.of(List.of(LanceField.builder("a", "int32").build()));
        assertThatThrownBy(schema::validate)
                .isInstanceOf(LanceSchemaException.class)
                .hasMessage("Field 'a' has no field id (id -1); assign ids with withAssignedIds(nextFieldId) before "
                        + "writing");
    }

    @Test
    void shapeRulesAreValidated() {
        LanceSchema badList =
                LanceSchema.of(List.of(LanceField.builder("l", "list").id(0).build()));
        assertThatThrownBy(badList::validate)
                .isInstanceOf(LanceSchemaException.class)
                .hasMessage("Field 'l' of type 'list' must have exactly one child field, found 0");
        LanceSchema structElement = LanceSchema.of(List.of(LanceField.builder("l", "list")
                .id(0)
                .addChild(LanceField.builder("item", "struct").id(1))
                .build()));
        assertThatThrownBy(structElement::validate)
                .isInstanceOf(LanceSchemaException.class)
                .hasMessageContaining("must be 'list.struct', not 'list'");
        LanceSchema badType = LanceSchema.of(
                List.of(LanceField.builder("q", "quaternion").id(0).build()));
        assertThatThrownBy(badType::validate)
                .isInstanceOf(UnsupportedTypeException.class)
                .hasMessageStartingWith("Field 'q' has unsupported type 'quaternion'");
    }

    @Test
    void primaryKeyMetadataIsParsedAndValidated() {
        Field pk =
                notNull("id", new ArrowType.Int(64, true), Map.of("lance-schema:unenforced-primary-key:position", "1"));
        LanceSchema schema = LanceSchema.fromArrow(new Schema(List.of(pk)), 0);
        lance.file.Field proto = schema.toProto().get(0);
        assertThat(proto.getUnenforcedPrimaryKey()).isTrue();
        assertThat(proto.getUnenforcedPrimaryKeyPosition()).isEqualTo(1);

        Field legacyFlag = notNull("k", ArrowType.Utf8.INSTANCE, Map.of("lance-schema:unenforced-primary-key", "YES"));
        LanceField k = LanceSchema.fromArrow(new Schema(List.of(legacyFlag)), 0).requireField(0);
        assertThat(k.isUnenforcedPrimaryKey()).isTrue();
        assertThat(k.unenforcedPrimaryKeyPosition()).isZero();

        Field nullablePk = new Field(
                "id",
                new FieldType(true, INT32, null, Map.of("lance-schema:unenforced-primary-key", "true")),
                List.of());
        assertThatThrownBy(() -> LanceSchema.fromArrow(new Schema(List.of(nullablePk)), 0))
                .isInstanceOf(LanceSchemaException.class)
                .hasMessage("Primary key field 'id' and all its ancestors must be non-nullable, but 'id' is nullable");
    }

    @Test
    void arrowExtensionTypesAreStoredByStorageTypeWithExtensionMetadata() {
        org.apache.arrow.vector.extension.OpaqueType opaque =
                new org.apache.arrow.vector.extension.OpaqueType(ArrowType.Binary.INSTANCE, "geo", "acme");
        LanceSchema schema = LanceSchema.fromArrow(new Schema(List.of(leaf("g", opaque))), 0);
        LanceField g = schema.requireField(0);

        assertThat(g.logicalType()).isEqualTo("binary");
        assertThat(g.extensionName()).isEqualTo("arrow.opaque");
        assertThat(g.metadata())
                .containsEntry("ARROW:extension:name", "arrow.opaque")
                .containsEntry("ARROW:extension:metadata", opaque.serialize());
        assertThat(schema.toProto().get(0).getExtensionName()).isEqualTo("arrow.opaque");
    }

    @Test
    void requireFieldNamesTheMissingId() {
        LanceSchema schema = LanceSchema.fromArrow(abcd(), 0);
        assertThatThrownBy(() -> schema.requireField(42))
                .isInstanceOf(LanceSchemaException.class)
                .hasMessageStartingWith("Field id 42 does not exist in schema with field ids [0, 1, 2, 3, 4, 5, 6]");
    }

    @Test
    void equalityIsStructural() {
        assertThat(LanceSchema.fromArrow(abcd(), 0))
                .isEqualTo(LanceSchema.fromArrow(abcd(), 0))
                .hasSameHashCodeAs(LanceSchema.fromArrow(abcd(), 0))
                .isNotEqualTo(LanceSchema.fromArrow(abcd(), 1));
    }

    private static lance.file.Field entry(String name, int id, int parent, String logicalType) {
        return lance.file.Field.newBuilder()
                .setName(name)
                .setId(id)
                .setParentId(parent)
                .setLogicalType(logicalType)
                .setNullable(true)
                .build();
    }
}
