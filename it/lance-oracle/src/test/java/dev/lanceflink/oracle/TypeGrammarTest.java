package dev.lanceflink.oracle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TypeGrammarTest {

    @ParameterizedTest
    @ValueSource(
            strings = {
                "bool",
                "int8",
                "int16",
                "int32",
                "int64",
                "uint8",
                "uint16",
                "uint32",
                "uint64",
                "float16",
                "float32",
                "float64",
                "utf8",
                "large_utf8",
                "binary",
                "large_binary",
                "date32",
                "fixed_size_binary[16]",
                "timestamp[s]",
                "timestamp[ms]",
                "timestamp[us]",
                "timestamp[ns]",
                "timestamp[us, tz=UTC]",
                "timestamp[ns, tz=Europe/Berlin]",
                "decimal128(20, 4)",
                "decimal128(38, 0)",
                "list<int32>",
                "large_list<bool>",
                "list<int32 not null>",
                "fixed_size_list<float32, 128>",
                "fixed_size_list<float16 not null, 4>",
                "struct<a: int32, b: utf8>",
                "struct<a: int32 not null, b: list<struct<x: float64>>>",
                "list<fixed_size_list<float32, 4>>",
                "list<list<int64>>",
                "struct<t: timestamp[us, tz=UTC], d: decimal128(10, 2)>"
            })
    void canonicalStringsRoundTrip(String type) {
        Field field = TypeGrammar.parseField("c", type, true);
        assertThat(TypeGrammar.format(field)).isEqualTo(type);
    }

    @Test
    void parsesIntoTheExpectedArrowTypes() {
        Field fsl = TypeGrammar.parseField("emb", "fixed_size_list<float32, 8>", false);
        assertThat(fsl.isNullable()).isFalse();
        assertThat(fsl.getType()).isEqualTo(new ArrowType.FixedSizeList(8));
        assertThat(fsl.getChildren()).singleElement().satisfies(item -> {
            assertThat(item.getName()).isEqualTo("item");
            assertThat(item.isNullable()).isTrue();
            assertThat(item.getType()).isEqualTo(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE));
        });
        assertThat(TypeGrammar.parseField("t", "timestamp[us, tz=UTC]", true).getType())
                .isEqualTo(new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC"));
        assertThat(TypeGrammar.parseField("t", "timestamp[us]", true).getType())
                .isEqualTo(new ArrowType.Timestamp(TimeUnit.MICROSECOND, null));
        Field struct = TypeGrammar.parseField("s", "struct<a: int32 not null, b: utf8>", true);
        assertThat(struct.getChildren()).extracting(Field::getName).containsExactly("a", "b");
        assertThat(struct.getChildren().get(0).isNullable()).isFalse();
        assertThat(struct.getChildren().get(1).isNullable()).isTrue();
    }

    @Test
    void acceptsLooseSpacing() {
        Field field = TypeGrammar.parseField("c", "struct<a:int32,b : list< utf8 >>", true);
        assertThat(TypeGrammar.format(field)).isEqualTo("struct<a: int32, b: list<utf8>>");
        assertThat(TypeGrammar.format(TypeGrammar.parseField("c", "decimal128(20,4)", true)))
                .isEqualTo("decimal128(20, 4)");
    }

    @Test
    void errorsNameTheTypeAndOffset() {
        assertThatThrownBy(() -> TypeGrammar.parseField("c", "list<int33>", true))
                .hasMessage("type \"list<int33>\", offset 10: unknown type 'int33'");
        assertThatThrownBy(() -> TypeGrammar.parseField("c", "fixed_size_list<float32>", true))
                .hasMessage("type \"fixed_size_list<float32>\", offset 23: expected ','");
        assertThatThrownBy(() -> TypeGrammar.parseField("c", "decimal128(5, 7)", true))
                .hasMessageContaining("scale <= precision, got (5, 7)");
        assertThatThrownBy(() -> TypeGrammar.parseField("c", "int32 extra", true))
                .hasMessage("type \"int32 extra\", offset 6: unexpected text after the type");
        assertThatThrownBy(() -> TypeGrammar.parseField("c", "timestamp[h]", true))
                .hasMessageContaining("unknown time unit 'h'");
    }
}
