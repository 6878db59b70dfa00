package dev.lanceflink.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class FieldPathsTest {

    @Test
    void parsesPlainAndQuotedComponents() {
        assertThat(FieldPaths.parse("a")).containsExactly("a");
        assertThat(FieldPaths.parse("a.b_2.c")).containsExactly("a", "b_2", "c");
        assertThat(FieldPaths.parse("`a.b`.c")).containsExactly("a.b", "c");
        assertThat(FieldPaths.parse("x.`we``ird`")).containsExactly("x", "we`ird");
        assertThat(FieldPaths.parse("``")).containsExactly("");
    }

    @Test
    void formatsQuotingOnlyWhenNeeded() {
        assertThat(FieldPaths.format(List.of("a", "b_2"))).isEqualTo("a.b_2");
        assertThat(FieldPaths.format(List.of("a.b", "c d", "we`ird"))).isEqualTo("`a.b`.`c d`.`we``ird`");
        List<String> tricky = List.of("a.b", "", "`", "x");
        assertThat(FieldPaths.parse(FieldPaths.format(tricky))).isEqualTo(tricky);
    }

    @Test
    void rejectsMalformedPaths() {
        assertThatThrownBy(() -> FieldPaths.parse(""))
                .isInstanceOf(LanceSchemaException.class)
                .hasMessageContaining("empty");
        assertThatThrownBy(() -> FieldPaths.parse("a..b"))
                .isInstanceOf(LanceSchemaException.class)
                .hasMessage("Invalid field path 'a..b': empty component at position 2");
        assertThatThrownBy(() -> FieldPaths.parse("a."))
                .isInstanceOf(LanceSchemaException.class)
                .hasMessageContaining("ends with an empty component");
        assertThatThrownBy(() -> FieldPaths.parse("`a`b"))
                .isInstanceOf(LanceSchemaException.class)
                .hasMessageContaining("after the closing backtick");
        assertThatThrownBy(() -> FieldPaths.parse("a`b`"))
                .isInstanceOf(LanceSchemaException.class)
                .hasMessageContaining("backtick in the middle");
        assertThatThrownBy(() -> FieldPaths.parse("`ab"))
                .isInstanceOf(LanceSchemaException.class)
                .hasMessageContaining("unclosed backtick");
    }
}
