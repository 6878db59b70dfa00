package dev.lanceflink.table;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;

class DataOverlayFileTest {
    private static DataFile file(int fields) {
        int[] ids = new int[fields];
        for (int i = 0; i < fields; i++) {
            ids[i] = i + 1;
        }
        return new DataFile("o.lance", ids, ids.clone(), 2, 1, 100);
    }

    @Test
    void cellCountIsTheCoveredOffsetsOfEveryField() throws Exception {
        DataOverlayFile dense =
                new DataOverlayFile(file(3), OverlayCoverage.Dense.of(RoaringBitmap.bitmapOf(0, 5, 9, 70_000)), 2);
        assertThat(dense.cellCount()).as("4 rows x 3 fields").isEqualTo(12);

        DataOverlayFile perField = new DataOverlayFile(
                file(3),
                OverlayCoverage.PerField.of(
                        List.of(RoaringBitmap.bitmapOf(1), RoaringBitmap.bitmapOf(1, 2, 3), RoaringBitmap.bitmapOf())),
                2);
        assertThat(perField.cellCount()).as("1 + 3 + 0").isEqualTo(4);
    }
}
