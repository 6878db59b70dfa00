package dev.lanceflink.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import lance.file.Encoding;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.IntervalUnit;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.UnionMode;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LogicalTypesTest {

    private static Field leaf(String name, ArrowType type) {
        return new Field(name, FieldType.nullable(type), List.of());
    }

    private static Field toArrow(String logicalType) {
        return LogicalTypes.toArrowField("c", "c", logicalType, true, Map.of(), List.of(), 7);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "null",
                "bool",
                "int8",
                "uint8",
                "int16",
                "uint16",
                "int32",
                "uint32",
                "int64",
                "uint64",
                "halffloat",
                "float",
                "double",
                "string",
                "large_string",
                "binary",
                "large_binary",
                "date32:day",
                "date64:ms",
                "time32:s",
                "time32:ms",
                "time64:us",
                "time64:ns",
                "duration:s",
                "duration:ms",
                "duration:us",
                "duration:ns",
                "timestamp:s:-",
                "timestamp:ms:UTC",
                "timestamp:us:America/New_York",
                "timestamp:ns:-",
                "decimal:128:20:4",
                "decimal:256:76:-3",
                "decimal:128:38:0",
                "fixed_size_binary:16",
                "fixed_size_list:float:128",
                "fixed_size_list:int8:16",
                "fixed_size_list:halffloat:4",
                "fixed_size_list:double:2",
                "fixed_size_list:fixed_size_list:int32:3:2",
                "fixed_size_list:lance.bfloat16:8",
                "fixed_size_list:timestamp:us:UTC:4",
                "dict:string:int32:false",
                "dict:binary:uint8:false",
                "dict:int64:int16:false"
            })
    void leafTypesRoundTripThroughArrow(String logicalType) {
        Field arrow = toArrow(logicalType);
        assertThat(LogicalTypes.logicalTypeOf("c", arrow)).isEqualTo(logicalType);
        assertThat(LogicalTypes.shapeOf(logicalType)).isEqualTo(LogicalTypes.Shape.LEAF);
    }

    @Test
    void arrowTypesOfLeafStrings() {
        assertThat(toArrow("uint32").getType()).isEqualTo(new ArrowType.Int(32, false));
        assertThat(toArrow("halffloat").getType()).isEqualTo(new ArrowType.FloatingPoint(FloatingPointPrecision.HALF));
        assertThat(toArrow("date32:day").getType()).isEqualTo(new ArrowType.Date(DateUnit.DAY));
        assertThat(toArrow("time32:ms").getType()).isEqualTo(new ArrowType.Time(TimeUnit.MILLISECOND, 32));
        assertThat(toArrow("time64:ns").getType()).isEqualTo(new ArrowType.Time(TimeUnit.NANOSECOND, 64));
        assertThat(toArrow("timestamp:us:-").getType()).isEqualTo(new ArrowType.Timestamp(TimeUnit.MICROSECOND, null));
        assertThat(toArrow("timestamp:ns:Europe/Berlin").getType())
                .isEqualTo(new ArrowType.Timestamp(TimeUnit.NANOSECOND, "Europe/Berlin"));
        assertThat(toArrow("decimal:128:20:4").getType()).isEqualTo(new ArrowType.Decimal(20, 4, 128));
        assertThat(toArrow("decimal:256:50:10").getType()).isEqualTo(new ArrowType.Decimal(50, 10, 256));
        assertThat(toArrow("fixed_size_binary:5").getType()).isEqualTo(new ArrowType.FixedSizeBinary(5));
        assertThat(toArrow("json").getType()).isEqualTo(ArrowType.LargeBinary.INSTANCE);
        assertThat(toArrow("json").getMetadata()).containsEntry("ARROW:extension:name", "lance.json");
        assertThat(toArrow("blob").getMetadata()).containsEntry("lance-encoding:blob", "true");
    }

    @Test
    void fixedSizeListElementIsNullableItem() {
        Field fsl = toArrow("fixed_size_list:float:128");
        assertThat(fsl.getType()).isEqualTo(new ArrowType.FixedSizeList(128));
        assertThat(fsl.getChildren()).singleElement().satisfies(item -> {
            assertThat(item.getName()).isEqualTo("item");
            assertThat(item.isNullable()).isTrue();
            assertThat(item.getType()).isEqualTo(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE));
        });
        Field nested = toArrow("fixed_size_list:fixed_size_list:int32:3:2");
        assertThat(nested.getType()).isEqualTo(new ArrowType.FixedSizeList(2));
        assertThat(nested.getChildren().get(0).getType()).isEqualTo(new ArrowType.FixedSizeList(3));
        assertThat(nested.getChildren().get(0).getChildren().get(0).getType()).isEqualTo(new ArrowType.Int(32, true));
    }

    @Test
    void bfloat16VectorsUseTwoByteFixedSizeBinaryWithExtension() {
        Field fsl = toArrow("fixed_size_list:lance.bfloat16:8");
        Field item = fsl.getChildren().get(0);
        assertThat(item.getType()).isEqualTo(new ArrowType.FixedSizeBinary(2));
        assertThat(item.getMetadata())
                .containsEntry("ARROW:extension:name", "lance.bfloat16")
                .containsEntry("ARROW:extension:metadata", "");
    }

    @Test
    void dictionaryUsesMessageFormWithValueTypeAndIndexEncoding() {
        Field dict = toArrow("dict:string:int32:false");
        assertThat(dict.getType()).isEqualTo(ArrowType.Utf8.INSTANCE);
        assertThat(dict.getDictionary()).isEqualTo(new DictionaryEncoding(7, false, new ArrowType.Int(32, true)));
        Field fromArrow = new Field(
                "d",
                new FieldType(
                        true,
                        ArrowType.LargeUtf8.INSTANCE,
                        new DictionaryEncoding(0, false, new ArrowType.Int(8, false))),
                List.of());
        assertThat(LogicalTypes.logicalTypeOf("d", fromArrow)).isEqualTo("dict:large_string:uint8:false");
    }

    @Test
    void nestedTypesFromArrow() {
        Field struct = new Field(
                "s", FieldType.nullable(ArrowType.Struct.INSTANCE), List.of(leaf("x", new ArrowType.Int(32, true))));
        assertThat(LogicalTypes.logicalTypeOf("s", struct)).isEqualTo("struct");
        assertThat(LogicalTypes.logicalTypeOf(
                        "l",
                        new Field(
                                "l",
                                FieldType.nullable(ArrowType.List.INSTANCE),
                                List.of(leaf("item", ArrowType.Utf8.INSTANCE)))))
                .isEqualTo("list");
        assertThat(LogicalTypes.logicalTypeOf(
                        "l", new Field("l", FieldType.nullable(ArrowType.List.INSTANCE), List.of(struct))))
                .isEqualTo("list.struct");
        assertThat(LogicalTypes.logicalTypeOf(
                        "l", new Field("l", FieldType.nullable(ArrowType.LargeList.INSTANCE), List.of(struct))))
                .isEqualTo("large_list.struct");
        assertThat(LogicalTypes.logicalTypeOf(
                        "f", new Field("f", FieldType.nullable(new ArrowType.FixedSizeList(3)), List.of(struct))))
                .isEqualTo("fixed_size_list:struct:3");
        assertThat(LogicalTypes.shapeOf("fixed_size_list:struct:3"))
                .isEqualTo(LogicalTypes.Shape.FIXED_SIZE_LIST_STRUCT);
        assertThat(LogicalTypes.logicalTypeOf("u", leaf("u", ArrowType.Utf8View.INSTANCE)))
                .isEqualTo("string");
        assertThat(LogicalTypes.logicalTypeOf("b", leaf("b", ArrowType.BinaryView.INSTANCE)))
                .isEqualTo("binary");
    }

    @Test
    void mapNeedsUnsortedKeysAndNonNullableKey() {
        Field entries = new Field(
                "entries",
                FieldType.notNullable(ArrowType.Struct.INSTANCE),
                List.of(
                        new Field("key", FieldType.notNullable(ArrowType.Utf8.INSTANCE), List.of()),
                        leaf("value", new ArrowType.Int(64, true))));
        Field map = new Field("m", FieldType.nullable(new ArrowType.Map(false)), List.of(entries));
        assertThat(LogicalTypes.logicalTypeOf("m", map)).isEqualTo("map");

        Field sorted = new Field("m", FieldType.nullable(new ArrowType.Map(true)), List.of(entries));
        assertThatThrownBy(() -> LogicalTypes.logicalTypeOf("m", sorted))
                .isInstanceOf(UnsupportedTypeException.class)
                .hasMessageContaining("Field 'm'")
                .hasMessageContaining("keys_sorted=false");

        Field nullableKeyEntries = new Field(
                "entries",
                FieldType.notNullable(ArrowType.Struct.INSTANCE),
                List.of(leaf("key", ArrowType.Utf8.INSTANCE), leaf("value", ArrowType.Utf8.INSTANCE)));
        Field badMap = new Field("m", FieldType.nullable(new ArrowType.Map(false)), List.of(nullableKeyEntries));
        assertThatThrownBy(() -> LogicalTypes.logicalTypeOf("m", badMap))
                .isInstanceOf(UnsupportedTypeException.class)
                .hasMessageContaining("map key field 'key'");
    }

    @Test
    void jsonExtensionsBecomeJson() {
        Field arrowJson = new Field(
                "j",
                new FieldType(true, ArrowType.Utf8.INSTANCE, null, Map.of("ARROW:extension:name", "arrow.json")),
                List.of());
        Field lanceJson = new Field(
                "j",
                new FieldType(true, ArrowType.LargeBinary.INSTANCE, null, Map.of("ARROW:extension:name", "lance.json")),
                List.of());
        assertThat(LogicalTypes.logicalTypeOf("j", arrowJson)).isEqualTo("json");
        assertThat(LogicalTypes.logicalTypeOf("j", lanceJson)).isEqualTo("json");
    }

    @Test
    void timeZoneWithColonIsRejectedWithAdvice() {
        Field ts = leaf("t", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "+05:00"));
        assertThatThrownBy(() -> LogicalTypes.logicalTypeOf("t", ts))
                .isInstanceOf(UnsupportedTypeException.class)
                .hasMessage("Field 't' has unsupported type 'Timestamp(MICROSECOND, +05:00)': time zone '+05:00' "
                        + "contains ':' and cannot be stored in a Lance logical type; use an IANA zone name "
                        + "(e.g. 'Asia/Kolkata' or 'Etc/GMT-5') or 'UTC'");
        assertThatThrownBy(() -> toArrow("timestamp:us:+05:00"))
                .isInstanceOf(UnsupportedTypeException.class)
                .hasMessageContaining("exactly 3 tokens");
    }

    @Test
    void arrowTypesLanceCannotStoreAreRejected() {
        assertThatThrownBy(() -> LogicalTypes.logicalTypeOf(
                        "u",
                        new Field(
                                "u",
                                FieldType.nullable(new ArrowType.Union(UnionMode.Sparse, new int[] {0})),
                                List.of(leaf("a", ArrowType.Bool.INSTANCE)))))
                .isInstanceOf(UnsupportedTypeException.class)
                .hasMessageContaining("Lance cannot store Arrow Union");
        assertThatThrownBy(
                        () -> LogicalTypes.logicalTypeOf("i", leaf("i", new ArrowType.Interval(IntervalUnit.DAY_TIME))))
                .isInstanceOf(UnsupportedTypeException.class)
                .hasMessageContaining("Field 'i'");
        assertThatThrownBy(() -> LogicalTypes.logicalTypeOf("d", leaf("d", new ArrowType.Decimal(9, 2, 64))))
                .isInstanceOf(UnsupportedTypeException.class)
                .hasMessageContaining("128- and 256-bit");
        Field fslOfList = new Field(
                "f",
                FieldType.nullable(new ArrowType.FixedSizeList(2)),
                List.of(new Field(
                        "item",
                        FieldType.nullable(ArrowType.List.INSTANCE),
                        List.of(leaf("item", ArrowType.Bool.INSTANCE)))));
        assertThatThrownBy(() -> LogicalTypes.logicalTypeOf("f", fslOfList))
                .isInstanceOf(UnsupportedTypeException.class)
                .hasMessageContaining("fixed-size list of List");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "int128",
                "time32:us",
                "time64:s",
                "decimal:64:9:2",
                "decimal:128:20",
                "timestamp:xs:-",
                "fixed_size_binary",
                "fixed_size_binary:x",
                "fixed_size_list:float",
                "fixed_size_list:float:0",
                "fixed_size_list:list:4",
                "dict:string:int32",
                "dict:string:float:false",
                "utf8",
                ""
            })
    void malformedLogicalTypesAreRejected(String logicalType) {
        assertThatThrownBy(() -> toArrow(logicalType))
                .isInstanceOf(UnsupportedTypeException.class)
                .hasMessageStartingWith("Field 'c' has unsupported type '" + logicalType + "'");
    }

    @Test
    void childCountMustFitTheType() {
        assertThatThrownBy(() -> LogicalTypes.toArrowField("l", "l", "list", true, Map.of(), List.of(), 0))
                .isInstanceOf(LanceSchemaException.class)
                .hasMessage("Field 'l' of type 'list' must have exactly one child field (the element), found 0; "
                        + "the schema is corrupt");
        assertThatThrownBy(() -> LogicalTypes.toArrowField(
                        "x", "x", "int32", true, Map.of(), List.of(leaf("y", ArrowType.Bool.INSTANCE)), 0))
                .isInstanceOf(LanceSchemaException.class)
                .hasMessageContaining("has 1 child field(s)");
    }

    @Test
    void arrowListWithoutElementIsRejected() {
        Field list = new Field("l", FieldType.nullable(ArrowType.List.INSTANCE), List.of());
        assertThatThrownBy(() -> LogicalTypes.logicalTypeOf("l", list))
                .isInstanceOf(LanceSchemaException.class)
                .hasMessage("Arrow field 'l' of type List must have exactly one child (the element), found 0");
    }

    @Test
    void legacyEncodingsFollowLance() {
        assertThat(LogicalTypes.legacyEncodingFor("int32")).isEqualTo(Encoding.PLAIN);
        assertThat(LogicalTypes.legacyEncodingFor("bool")).isEqualTo(Encoding.PLAIN);
        assertThat(LogicalTypes.legacyEncodingFor("fixed_size_list:float:4")).isEqualTo(Encoding.PLAIN);
        assertThat(LogicalTypes.legacyEncodingFor("list")).isEqualTo(Encoding.PLAIN);
        assertThat(LogicalTypes.legacyEncodingFor("map")).isEqualTo(Encoding.PLAIN);
        assertThat(LogicalTypes.legacyEncodingFor("string")).isEqualTo(Encoding.VAR_BINARY);
        assertThat(LogicalTypes.legacyEncodingFor("large_binary")).isEqualTo(Encoding.VAR_BINARY);
        assertThat(LogicalTypes.legacyEncodingFor("dict:string:int32:false")).isEqualTo(Encoding.DICTIONARY);
        assertThat(LogicalTypes.legacyEncodingFor("struct")).isEqualTo(Encoding.NONE);
        assertThat(LogicalTypes.legacyEncodingFor("null")).isEqualTo(Encoding.NONE);
    }
}
