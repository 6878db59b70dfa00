package dev.lanceflink.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class PredicateEvaluatorTest {
    private BufferAllocator allocator;
    private VectorSchemaRoot batch;

    @BeforeEach
    void setUp() {
        allocator = new RootAllocator();
        IntVector id = new IntVector("id", allocator);
        VarCharVector name = new VarCharVector("name", allocator);
        Float8Vector score = new Float8Vector("score", allocator);
        DateDayVector day = new DateDayVector("day", allocator);
        Integer[] ids = {1, 2, 3, 4, null};
        String[] names = {"alice", "bob", null, "carol", "élan"};
        Double[] scores = {1.5, Double.NaN, 3.0, null, -2.0};
        for (int i = 0; i < 5; i++) {
            if (ids[i] != null) {
                id.setSafe(i, ids[i]);
            } else {
                id.setNull(i);
            }
            if (names[i] != null) {
                name.setSafe(i, names[i].getBytes(StandardCharsets.UTF_8));
            } else {
                name.setNull(i);
            }
            if (scores[i] != null) {
                score.setSafe(i, scores[i]);
            } else {
                score.setNull(i);
            }
            day.setSafe(i, (int) LocalDate.of(2024, 1, 1 + i).toEpochDay());
        }
        batch = VectorSchemaRoot.of(id, name, score, day);
        batch.setRowCount(5);
    }

    @AfterEach
    void tearDown() {
        batch.close();
        allocator.close();
    }

    private int[] rows(String filter) {
        return PredicateEvaluator.selectedRows(ExprParser.parse(filter), batch);
    }

    @Test
    void comparesIntegersWithThreeValuedLogic() {
        assertThat(rows("id > 2")).containsExactly(2, 3);
        assertThat(rows("2 < id")).containsExactly(2, 3);
        assertThat(rows("id != 2")).containsExactly(0, 2, 3);
        assertThat(rows("NOT (id > 2)")).containsExactly(0, 1);
        assertThat(rows("id > 2 OR id IS NULL")).containsExactly(2, 3, 4);
        assertThat(rows("id BETWEEN 2 AND 3")).containsExactly(1, 2);
        assertThat(rows("id >= 1.5")).containsExactly(1, 2, 3);
    }

    @Test
    void inListsFollowSqlNullRules() {
        assertThat(rows("id IN (1, 4)")).containsExactly(0, 3);
        assertThat(rows("id NOT IN (1, 4)")).containsExactly(1, 2);
        assertThat(rows("id NOT IN (1, NULL)")).isEmpty();
    }

    @Test
    void comparesStringsByUtf8Bytes() {
        assertThat(rows("name = 'bob'")).containsExactly(1);
        assertThat(rows("name > 'bob'")).containsExactly(3, 4);
        assertThat(rows("name LIKE 'a%'")).containsExactly(0);
        assertThat(rows("name NOT LIKE '_o_'")).containsExactly(0, 3, 4);
        assertThat(rows("name IS NULL")).containsExactly(2);
    }

    @Test
    void floatsAndDates() {
        // NaN orders above every number, as in Arrow's and DataFusion's comparison kernels.
        assertThat(rows("score > 1")).containsExactly(0, 1, 2);
        assertThat(rows("id % 2 = 0")).containsExactly(1, 3);
        assertThat(rows("id * 2 + 1 > 6 - 1")).containsExactly(2, 3);
        assertThat(rows("score / 2 >= 1.5")).containsExactly(1, 2);
        assertThat(rows("day >= DATE '2024-01-03'")).containsExactly(2, 3, 4);
        assertThat(rows("day = '2024-01-02'")).containsExactly(1);
        assertThat(PredicateEvaluator.referencedColumns(ExprParser.parse("id > 1 AND (name = 'x' OR id < 0)")))
                .isEqualTo(List.of("id", "name"));
    }

    @Test
    void clearErrors() {
        assertThatThrownBy(() -> rows("nope = 1"))
                .isInstanceOf(FilterException.class)
                .hasMessageContaining("column 'nope'")
                .hasMessageContaining("id, name, score, day");
        assertThatThrownBy(() -> rows("id = 'x'"))
                .isInstanceOf(FilterException.class)
                .hasMessageContaining("column 'id'")
                .hasMessageContaining("expected a number");
        assertThatThrownBy(() -> ExprParser.parse("id = "))
                .isInstanceOf(FilterException.class)
                .hasMessageContaining("position");
        assertThatThrownBy(() -> ExprParser.parse("id = 1 garbage"))
                .isInstanceOf(FilterException.class)
                .hasMessageContaining("garbage");
    }
}
