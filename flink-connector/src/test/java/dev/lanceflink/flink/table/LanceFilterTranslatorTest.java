package dev.lanceflink.flink.table;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.List;
import java.util.Optional;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.expressions.CallExpression;
import org.apache.flink.table.expressions.FieldReferenceExpression;
import org.apache.flink.table.expressions.ResolvedExpression;
import org.apache.flink.table.expressions.ValueLiteralExpression;
import org.apache.flink.table.functions.BuiltInFunctionDefinition;
import org.apache.flink.table.functions.BuiltInFunctionDefinitions;
import org.apache.flink.table.types.DataType;
import org.junit.jupiter.api.Test;

class LanceFilterTranslatorTest {
    private static final FieldReferenceExpression ID = new FieldReferenceExpression("id", DataTypes.BIGINT(), 0, 0);
    private static final FieldReferenceExpression NAME = new FieldReferenceExpression("name", DataTypes.STRING(), 0, 1);
    private static final FieldReferenceExpression SCORE = new FieldReferenceExpression("score", DataTypes.DOUBLE(), 0, 2);
    private static final FieldReferenceExpression PRICE =
            new FieldReferenceExpression("price", DataTypes.DECIMAL(20, 2), 0, 3);
    private static final FieldReferenceExpression DAY = new FieldReferenceExpression("day", DataTypes.DATE(), 0, 4);
    private static final FieldReferenceExpression FLAG = new FieldReferenceExpression("flag", DataTypes.BOOLEAN(), 0, 5);

    private static CallExpression call(BuiltInFunctionDefinition fn, ResolvedExpression... args) {
        return CallExpression.permanent(fn, List.of(args), DataTypes.BOOLEAN());
    }

    private static Optional<String> t(ResolvedExpression e) {
        return LanceFilterTranslator.translate(e);
    }

    @Test
    void translatesExactPredicates() {
        assertThat(t(call(BuiltInFunctionDefinitions.GREATER_THAN, ID, new ValueLiteralExpression(5L))))
                .contains("(`id` > 5)");
        assertThat(t(call(BuiltInFunctionDefinitions.EQUALS, NAME, new ValueLiteralExpression("o'neil"))))
                .contains("(`name` = 'o''neil')");
        assertThat(t(call(BuiltInFunctionDefinitions.AND,
                call(BuiltInFunctionDefinitions.IS_NOT_NULL, NAME),
                call(BuiltInFunctionDefinitions.NOT, call(BuiltInFunctionDefinitions.LESS_THAN_OR_EQUAL, DAY,
                        new ValueLiteralExpression(LocalDate.of(2026, 1, 2)))))))
                .contains("((`name` IS NOT NULL) AND (NOT (`day` <= DATE '2026-01-02')))");
        assertThat(t(call(BuiltInFunctionDefinitions.IN, ID, new ValueLiteralExpression(1L),
                new ValueLiteralExpression(3))))
                .contains("(`id` IN (1, 3))");
        assertThat(t(call(BuiltInFunctionDefinitions.OR, FLAG,
                call(BuiltInFunctionDefinitions.NOT_EQUALS, PRICE, new ValueLiteralExpression(new BigDecimal("7.25"))))))
                .contains("((`flag` = TRUE) OR (`price` != 7.25))");
    }

    @Test
    void leavesInexactPredicatesToFlink() {
        // NaN and -0.0 order differently in the scanner.
        assertThat(t(call(BuiltInFunctionDefinitions.GREATER_THAN, SCORE, new ValueLiteralExpression(1.0)))).isEmpty();
        // A 17-digit literal would be parsed as a double by the scanner.
        assertThat(t(call(BuiltInFunctionDefinitions.EQUALS, PRICE,
                new ValueLiteralExpression(new BigDecimal("123456789012345.67"))))).isEmpty();
        // Comparing different families would need a coercion.
        assertThat(t(call(BuiltInFunctionDefinitions.EQUALS, ID, new ValueLiteralExpression("5")))).isEmpty();
        // One untranslatable side makes the whole conjunction stay with Flink.
        assertThat(t(call(BuiltInFunctionDefinitions.AND, call(BuiltInFunctionDefinitions.IS_NULL, ID),
                call(BuiltInFunctionDefinitions.LIKE, NAME, new ValueLiteralExpression("a%"))))).isEmpty();
        DataType nullInt = DataTypes.BIGINT();
        assertThat(t(call(BuiltInFunctionDefinitions.EQUALS, ID, new ValueLiteralExpression(null, nullInt)))).isEmpty();
        FieldReferenceExpression quoted = new FieldReferenceExpression("we`ird", DataTypes.BIGINT(), 0, 6);
        assertThat(t(call(BuiltInFunctionDefinitions.IS_NULL, quoted))).isEmpty();
    }
}
