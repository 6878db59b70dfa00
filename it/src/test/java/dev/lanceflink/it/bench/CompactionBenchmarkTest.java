package dev.lanceflink.it.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The compaction benchmark at toy size: the history, both compactions and every checked scan run,
 * and the counts it reports are the ones the history implies.
 */
class CompactionBenchmarkTest {

    @Test
    void offsetsAreTheResidueClassBelowThePhysicalRows() {
        assertThat(CompactionBenchData.offsets(7, 315)).containsExactly(7, 107, 207, 307);
        assertThat(CompactionBenchData.offsets(57, 157)).containsExactly(57);
        assertThat(CompactionBenchData.offsets(57, 57)).isEmpty();
    }

    @Test
    void oddCommitsPutTextOnOtherRowsThanValue() {
        assertThat(CompactionBenchData.valueResidue(3)).isEqualTo(1);
        assertThat(CompactionBenchData.textResidue(3)).isEqualTo(51);
        assertThat(CompactionBenchData.textResidue(4))
                .isEqualTo(CompactionBenchData.valueResidue(4))
                .isEqualTo(8);
        // Commit c + 20 updates the rows of commit c again.
        assertThat(CompactionBenchData.valueResidue(21)).isEqualTo(CompactionBenchData.valueResidue(1));
    }

    @Test
    void toySizedRunCountsCellsAndOverlaysExactly(@TempDir Path dir) throws Exception {
        // 4 fragments of 1,000 rows; 25 commits, commits 20..24 repeat the rows of commits 0..4.
        CompactionBenchmark.Result r = CompactionBenchmark.run(dir.resolve("t.lance"), 4_000, 4, 25, 1, 2);

        assertThat(r.stages()).extracting(s -> s.census().overlays()).containsExactly(0, 100, 4, 0);
        // 13 even (dense) commits x 4 fragments; the merged overlays are sparse (value and text rows differ).
        assertThat(r.stages()).extracting(s -> s.census().denseOverlays()).containsExactly(0, 52, 0, 0);
        // Each overlay: 10 value + 10 text cells per 1,000-row fragment.
        assertThat(r.stages().get(1).census().cells()).isEqualTo(25 * 4 * 20);
        // After the merge: 20 distinct residues per column and fragment survive.
        assertThat(r.stages().get(2).census().cells()).isEqualTo(4 * (200 + 200));

        CompactionBenchmark.CompactionStats merge = r.merge();
        assertThat(merge.fragmentsCompacted()).isEqualTo(4);
        assertThat(merge.cellsRead()).isEqualTo(2_000);
        assertThat(merge.cellsWritten()).isEqualTo(1_600);
        assertThat(merge.bytesWritten()).isEqualTo(r.stages().get(2).census().bytes());

        CompactionBenchmark.CompactionStats fold = r.fold();
        assertThat(fold.before().overlays()).isEqualTo(4);
        assertThat(fold.after().overlays()).isZero();
        assertThat(fold.cellsWritten()).isEqualTo(4 * 1_000 * 2);
        assertThat(fold.cellsRead()).isEqualTo(1_600 + 8_000);
        assertThat(fold.bytesWritten()).isPositive();

        assertThat(CompactionBenchmark.markdown(r)).contains("| overlays before -> after | 100 -> 4 | 4 -> 0 |");
    }
}
