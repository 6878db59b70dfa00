package dev.lanceflink.flink.table;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.expr.Expr;
import dev.lanceflink.expr.Expr.CompareOp;
import dev.lanceflink.expr.Expr.Domain;
import dev.lanceflink.expr.ExprPrinter;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.expressions.CallExpression;
import org.apache.flink.table.expressions.FieldReferenceExpression;
import org.apache.flink.table.expressions.ResolvedExpression;
import org.apache.flink.table.expressions.TypeLiteralExpression;
import org.apache.flink.table.expressions.ValueLiteralExpression;
import org.apache.flink.table.functions.BuiltInFunctionDefinition;
import org.apache.flink.table.functions.BuiltInFunctionDefinitions;
import org.apache.flink.table.types.DataType;
import org.junit.jupiter.api.Test;

class LanceFilterTranslatorTest {
    private static final FieldReferenceExpression ID = new FieldReferenceExpression("id", DataTypes.BIGINT(), 0, 0);
    private static final FieldReferenceExpression NAME = new FieldReferenceExpression("name", DataTypes.STRING(), 0, 1);
    private static final FieldReferenceExpression SCORE =
            new FieldReferenceExpression("score", DataTypes.DOUBLE(), 0, 2);
    private static final FieldReferenceExpression PRICE =
            new FieldReferenceExpression("price", DataTypes.DECIMAL(20, 2), 0, 3);
    private static final FieldReferenceExpression DAY = new FieldReferenceExpression("day", DataTypes.DATE(), 0, 4);
    private static final FieldReferenceExpression FLAG =
            new FieldReferenceExpression("flag", DataTypes.BOOLEAN(), 0, 5);

    private static final FieldReferenceExpression F32 = new FieldReferenceExpression("f32", DataTypes.FLOAT(), 0, 7);
    private static final FieldReferenceExpression I8 = new FieldReferenceExpression("i8", DataTypes.TINYINT(), 0, 8);
    private static final FieldReferenceExpression TS =
            new FieldReferenceExpression("ts", DataTypes.TIMESTAMP(3), 0, 10);
    private static final FieldReferenceExpression LTZ =
            new FieldReferenceExpression("ltz", DataTypes.TIMESTAMP_LTZ(9), 0, 11);
    private static final FieldReferenceExpression TIME = new FieldReferenceExpression("t", DataTypes.TIME(6), 0, 12);
    private static final FieldReferenceExpression BIN = new FieldReferenceExpression("bin", DataTypes.BYTES(), 0, 13);

    private static CallExpression cast(ResolvedExpression e, DataType to) {
        return CallExpression.permanent(BuiltInFunctionDefinitions.CAST, List.of(e, new TypeLiteralExpression(to)), to);
    }

    private static CallExpression call(BuiltInFunctionDefinition fn, ResolvedExpression... args) {
        return CallExpression.permanent(fn, List.of(args), DataTypes.BOOLEAN());
    }

    private static final Set<String> COLUMNS =
            Set.of("id", "name", "score", "price", "day", "flag", "we`ird", "f32", "ts", "ltz", "t", "bin", "i8");

    /** The translation as text (the form this test was first written against). */
    private static Optional<String> t(ResolvedExpression e) {
        return tree(e).map(ExprPrinter::sql);
    }

    private static Optional<Expr> tree(ResolvedExpression e) {
        return LanceFilterTranslator.translate(e, COLUMNS);
    }

    @Test
    void translatesExactPredicates() {
        assertThat(t(call(BuiltInFunctionDefinitions.GREATER_THAN, ID, new ValueLiteralExpression(5L))))
                .contains("(`id` > 5)");
        assertThat(t(call(BuiltInFunctionDefinitions.EQUALS, NAME, new ValueLiteralExpression("o'neil"))))
                .contains("(`name` = 'o''neil')");
        assertThat(t(call(
                        BuiltInFunctionDefinitions.AND,
                        call(BuiltInFunctionDefinitions.IS_NOT_NULL, NAME),
                        call(
                                BuiltInFunctionDefinitions.NOT,
                                call(
                                        BuiltInFunctionDefinitions.LESS_THAN_OR_EQUAL,
                                        DAY,
                                        new ValueLiteralExpression(LocalDate.of(2026, 1, 2)))))))
                .contains("((`name` IS NOT NULL) AND (NOT (`day` <= DATE '2026-01-02')))");
        assertThat(t(call(
                        BuiltInFunctionDefinitions.IN,
                        ID,
                        new ValueLiteralExpression(1L),
                        new ValueLiteralExpression(3))))
                .contains("(`id` IN (1, 3))");
        assertThat(t(call(
                        BuiltInFunctionDefinitions.OR,
                        FLAG,
                        call(
                                BuiltInFunctionDefinitions.NOT_EQUALS,
                                PRICE,
                                new ValueLiteralExpression(new BigDecimal("7.25"))))))
                .contains("((`flag` = TRUE) OR (`price` != 7.25))");
    }

    @Test
    void leavesInexactPredicatesToFlink() {
        // Comparing different families would need a coercion.
        assertThat(t(call(BuiltInFunctionDefinitions.EQUALS, ID, new ValueLiteralExpression("5"))))
                .isEmpty();
        // One untranslatable side makes the whole conjunction stay with Flink.
        assertThat(t(call(
                        BuiltInFunctionDefinitions.AND,
                        call(BuiltInFunctionDefinitions.IS_NULL, ID),
                        call(BuiltInFunctionDefinitions.LIKE, NAME, new ValueLiteralExpression("a%")))))
                .isEmpty();
        DataType nullInt = DataTypes.BIGINT();
        assertThat(t(call(BuiltInFunctionDefinitions.EQUALS, ID, new ValueLiteralExpression(null, nullInt))))
                .isEmpty();
        // TIMESTAMP against TIMESTAMP_LTZ: Flink converts one of them in the session time zone.
        assertThat(t(call(
                        BuiltInFunctionDefinitions.GREATER_THAN,
                        LTZ,
                        new ValueLiteralExpression(LocalDateTime.parse("2024-01-01T00:00")))))
                .isEmpty();
        // A date against a string: Flink parses the string its own way.
        assertThat(t(call(BuiltInFunctionDefinitions.EQUALS, DAY, new ValueLiteralExpression("2024-01-01"))))
                .isEmpty();
        // A narrowing cast, and a column the table source does not have (a metadata column).
        assertThat(t(call(
                        BuiltInFunctionDefinitions.EQUALS,
                        cast(SCORE, DataTypes.FLOAT()),
                        new ValueLiteralExpression(1.5f))))
                .isEmpty();
        FieldReferenceExpression metadata = new FieldReferenceExpression("addr", DataTypes.BIGINT(), 0, 9);
        assertThat(t(call(BuiltInFunctionDefinitions.GREATER_THAN, metadata, new ValueLiteralExpression(1L))))
                .isEmpty();
        // A cast to FLOAT compared as a double: Flink widens the rounded float.
        assertThat(t(call(
                        BuiltInFunctionDefinitions.EQUALS,
                        cast(ID, DataTypes.FLOAT()),
                        new ValueLiteralExpression(1.5))))
                .isEmpty();
    }

    /** What the text form could not carry exactly: floating point, long decimals, any column name. */
    @Test
    void pushesWhatTheTextFormCouldNot() {
        assertThat(tree(call(BuiltInFunctionDefinitions.GREATER_THAN, SCORE, new ValueLiteralExpression(1.0))))
                .contains(
                        new Expr.Compare(CompareOp.GT, Expr.Column.of("score"), new Expr.Literal(1.0), Domain.DOUBLE));
        assertThat(tree(call(
                        BuiltInFunctionDefinitions.EQUALS,
                        PRICE,
                        new ValueLiteralExpression(new BigDecimal("123456789012345.67")))))
                .contains(new Expr.Compare(
                        CompareOp.EQ,
                        Expr.Column.of("price"),
                        new Expr.Literal(new BigDecimal("123456789012345.67")),
                        Domain.EXACT));
        FieldReferenceExpression quoted = new FieldReferenceExpression("we`ird", DataTypes.BIGINT(), 0, 6);
        assertThat(tree(call(BuiltInFunctionDefinitions.IS_NULL, quoted)))
                .contains(new Expr.IsNull(Expr.Column.of("we`ird"), false));
    }

    /** The domain is the one in which Flink's generated code compares the two types. */
    @Test
    void comparesInFlinksDomainForEachPairOfTypes() {
        // DOUBLE against a DECIMAL literal: Flink's DecimalDataUtils.compare, i.e. Double.compare.
        assertThat(tree(call(
                        BuiltInFunctionDefinitions.GREATER_THAN,
                        SCORE,
                        new ValueLiteralExpression(new BigDecimal("1.5")))))
                .contains(new Expr.Compare(
                        CompareOp.GT, Expr.Column.of("score"), new Expr.Literal(1.5), Domain.DOUBLE_TOTAL));
        // FLOAT against an INT literal: Java's float comparison.
        assertThat(tree(call(BuiltInFunctionDefinitions.LESS_THAN, F32, new ValueLiteralExpression(2))))
                .contains(new Expr.Compare(CompareOp.LT, Expr.Column.of("f32"), new Expr.Literal(2L), Domain.FLOAT));
        // TINYINT against a DECIMAL literal: exact.
        assertThat(tree(call(
                        BuiltInFunctionDefinitions.GREATER_THAN,
                        I8,
                        new ValueLiteralExpression(new BigDecimal("1.5")))))
                .contains(new Expr.Compare(
                        CompareOp.GT, Expr.Column.of("i8"), new Expr.Literal(new BigDecimal("1.5")), Domain.EXACT));
        // A widening cast of the column is compared as the column itself.
        assertThat(tree(call(BuiltInFunctionDefinitions.EQUALS, cast(I8, DataTypes.BIGINT()), ID)))
                .contains(new Expr.Compare(CompareOp.EQ, Expr.Column.of("i8"), Expr.Column.of("id"), Domain.EXACT));
        // Timestamps and times are read as Flink holds them: rounded down to the declared digits / to ms.
        assertThat(tree(call(
                        BuiltInFunctionDefinitions.GREATER_THAN_OR_EQUAL,
                        TS,
                        new ValueLiteralExpression(LocalDateTime.parse("2024-01-01T00:00:00.0000015")))))
                .contains(new Expr.Compare(
                        CompareOp.GE,
                        new Expr.Floor(Expr.Column.of("ts"), 3),
                        new Expr.Literal(LocalDateTime.parse("2024-01-01T00:00:00.0000015")),
                        Domain.EXACT));
        assertThat(tree(call(
                        BuiltInFunctionDefinitions.EQUALS,
                        TIME,
                        new ValueLiteralExpression(LocalTime.parse("10:00:00.123456")))))
                .contains(new Expr.Compare(
                        CompareOp.EQ,
                        new Expr.Floor(Expr.Column.of("t"), 3),
                        new Expr.Literal(LocalTime.parse("10:00:00.123")),
                        Domain.EXACT));
        assertThat(tree(call(BuiltInFunctionDefinitions.LESS_THAN, LTZ, new ValueLiteralExpression(Instant.EPOCH))))
                .contains(new Expr.Compare(
                        CompareOp.LT, Expr.Column.of("ltz"), new Expr.Literal(Instant.EPOCH), Domain.EXACT));
        assertThat(t(call(BuiltInFunctionDefinitions.EQUALS, BIN, new ValueLiteralExpression(new byte[] {1, 2}))))
                .contains("(`bin` = X'0102')");
    }

    @Test
    void truthTestsBetweenAndListsOfInequalities() {
        assertThat(t(call(BuiltInFunctionDefinitions.IS_NOT_FALSE, FLAG)))
                .contains("((`flag` IS NULL) OR (NOT (`flag` = FALSE)))");
        assertThat(t(call(BuiltInFunctionDefinitions.IS_TRUE, FLAG)))
                .contains("((`flag` IS NOT NULL) AND (`flag` = TRUE))");
        assertThat(t(call(
                        BuiltInFunctionDefinitions.NOT_BETWEEN,
                        ID,
                        new ValueLiteralExpression(1L),
                        new ValueLiteralExpression(3L))))
                .contains("((`id` < 1) OR (`id` > 3))");
        assertThat(t(call(
                        BuiltInFunctionDefinitions.AND,
                        call(BuiltInFunctionDefinitions.NOT_EQUALS, ID, new ValueLiteralExpression(1L)),
                        call(BuiltInFunctionDefinitions.NOT_EQUALS, ID, new ValueLiteralExpression(2L)))))
                .contains("(`id` NOT IN (1, 2))");
        // A list that mixes domains stays a disjunction.
        assertThat(t(call(
                        BuiltInFunctionDefinitions.OR,
                        call(BuiltInFunctionDefinitions.EQUALS, SCORE, new ValueLiteralExpression(1.0)),
                        call(
                                BuiltInFunctionDefinitions.EQUALS,
                                SCORE,
                                new ValueLiteralExpression(new BigDecimal("2.5"))))))
                .contains("((`score` = 1.0) OR (`score` = 2.5))");
    }
}
