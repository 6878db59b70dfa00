package dev.lanceflink.overlay;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Splicing overlay strings into base strings: kept runs, replaced cells, NULLs on either side. */
class VariableWidthSpliceTest {
    private final BufferAllocator allocator = new RootAllocator();

    @AfterEach
    void close() {
        allocator.close();
    }

    private static List<String> strings(VarCharVector v) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < v.getValueCount(); i++) {
            out.add(v.isNull(i) ? null : new String(v.get(i)));
        }
        return out;
    }

    @Test
    void keptRunsAndReplacedCellsKeepTheirOrderAndNulls() {
        try (VarCharVector base = SmallTable.strings(allocator, "s", "a0", null, "bb2", "c3", "", "ddd5", null);
                VarCharVector newer = SmallTable.strings(allocator, "s", "N0", null);
                VarCharVector older = SmallTable.strings(allocator, "s", "x", "older-1", "o2");
                VarCharVector out = new VarCharVector("s", allocator)) {
            // Row 1 (a base NULL) becomes "older-1", row 2 NULL (covered NULL), row 5 "N0", row 6 "o2".
            int[] source = {-1, 1, 0, -1, -1, 0, 1};
            int[] sourceIndex = {0, 1, 1, 0, 0, 0, 2};
            List<FieldVector> values = List.of(newer, older);

            VariableWidthSplice.splice(base, values, source, sourceIndex, 7, out);

            assertThat(strings(out)).containsExactly("a0", "older-1", null, "c3", "", "N0", "o2");
            assertThat(out.getOffsetBuffer().getInt(7 * 4L)).isEqualTo(2 + 7 + 2 + 0 + 2 + 2);
            assertThat(out.getNullCount()).isEqualTo(1);
        }
    }

    @Test
    void allKeptIsACopyAndAllReplacedIgnoresTheBase() {
        try (VarCharVector base = SmallTable.strings(allocator, "s", "one", null, "three");
                VarCharVector values = SmallTable.strings(allocator, "s", "1", "2", null);
                VarCharVector kept = new VarCharVector("s", allocator);
                VarCharVector replaced = new VarCharVector("s", allocator)) {
            VariableWidthSplice.splice(base, List.of(values), new int[] {-1, -1, -1}, new int[3], 3, kept);
            VariableWidthSplice.splice(base, List.of(values), new int[] {0, 0, 0}, new int[] {2, 1, 0}, 3, replaced);

            assertThat(strings(kept)).containsExactly("one", null, "three");
            assertThat(strings(replaced)).containsExactly(null, "2", "1");
        }
    }
}
