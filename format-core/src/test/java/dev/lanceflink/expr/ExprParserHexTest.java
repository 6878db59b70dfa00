package dev.lanceflink.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ExprParserHexTest {

    private static byte[] literal(String filter) {
        Expr.Compare c = (Expr.Compare) ExprParser.parse(filter);
        return (byte[]) ((Expr.Literal) c.right()).value();
    }

    @Test
    void hexLiteralsTakeEitherCase() {
        assertThat(literal("b = X'00aBff'")).containsExactly(0x00, 0xab, 0xff);
        assertThat(literal("b = x''")).isEmpty();
    }

    @Test
    void badHexLiteralsSayWhatIsWrong() {
        assertThatThrownBy(() -> ExprParser.parse("b = X'abc'"))
                .isInstanceOf(FilterException.class)
                .hasMessageContaining("even number of digits");
        assertThatThrownBy(() -> ExprParser.parse("b = X'0g'"))
                .isInstanceOf(FilterException.class)
                .hasMessageContaining("bad hex digit in X'0g'");
    }
}
