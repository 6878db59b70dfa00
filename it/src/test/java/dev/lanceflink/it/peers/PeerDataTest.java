package dev.lanceflink.it.peers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.it.peers.PeerData.Change;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The peer benchmark's generator and expected states, which every system's scans are checked against. */
class PeerDataTest {
    @Test
    void changedKeysArePermutationsSoNoKeyIsChangedTwice() {
        for (long rows : new long[] {200_000, 20_000, 7919L * 3, 12_345, 1}) {
            long stride = PeerData.stride(rows);
            boolean[] seen = new boolean[(int) rows];
            for (long j = 0; j < rows; j++) {
                int k = (int) PeerData.changedKey(j, rows, stride);
                assertThat(seen[k])
                        .as("key %d of %d rows visited twice", k, rows)
                        .isFalse();
                seen[k] = true;
            }
        }
    }

    @Test
    void changelogHasTenPercentInsertsAndFivePercentDeletes() {
        Map<Change, Integer> n = new EnumMap<>(Change.class);
        for (long j = 0; j < 100_000; j++) {
            n.merge(PeerData.change(j), 1, Integer::sum);
        }
        assertThat(n.get(Change.INSERT)).isBetween(9_500, 10_500);
        assertThat(n.get(Change.DELETE)).isBetween(4_600, 5_400);
        assertThat(PeerData.changeId(0, 1000, PeerData.stride(1000))).isLessThan(1000 + 1);
    }

    @Test
    void valuesAreDeterministicAndVectorsInRange() {
        float[] a = new float[768];
        float[] b = new float[768];
        PeerData.vector(42, a);
        PeerData.vector(42, b);
        assertThat(a).containsExactly(b);
        for (float f : a) {
            assertThat(f).isBetween(-1f, 1f);
        }
        PeerData.vector(43, b);
        assertThat(a).isNotEqualTo(b);
        assertThat(PeerData.age(7)).isBetween(0, 99);
        assertThat(PeerData.updatedAge(7)).isBetween(100, 199);
    }

    @Test
    void expectedStatesFollowTheChanges() {
        // No update: the checksums of the initial rows.
        PeerData.Expected initial = PeerData.afterUpdates(1000, 8, 0);
        long narrow = 0;
        for (int k = 0; k < 1000; k++) {
            narrow += PeerData.narrowHash(k, PeerData.age(k));
        }
        assertThat(initial.rows()).isEqualTo(1000);
        assertThat(initial.narrowSum()).isEqualTo(narrow);
        // Updates change the (id, age) sum and the whole-row sum, not the row count.
        PeerData.Expected updated = PeerData.afterUpdates(1000, 8, 1000);
        assertThat(updated.rows()).isEqualTo(1000);
        assertThat(updated.narrowSum()).isNotEqualTo(initial.narrowSum());
        assertThat(updated.fullSum()).isNotEqualTo(initial.fullSum());
        // Changes: rows + inserts - deletes.
        long inserts = 0;
        long deletes = 0;
        for (long j = 0; j < 500; j++) {
            inserts += PeerData.change(j) == Change.INSERT ? 1 : 0;
            deletes += PeerData.change(j) == Change.DELETE ? 1 : 0;
        }
        assertThat(PeerData.afterChanges(1000, 8, 500).rows()).isEqualTo(1000 + inserts - deletes);
    }

    @Test
    void sizesRefuseChangingAKeyTwice() {
        assertThatThrownBy(() -> new PeerRun.Sizes(100, 8, 10, 8, 11, 5))
                .hasMessageContaining("must not exceed the update table's rows (10)");
        assertThatThrownBy(() -> PeerRun.Args.parse(new String[] {"--dir", "x", "--sizes", "1,2"}))
                .hasMessageContaining("--sizes takes");
    }

    @Test
    void jfrThreadGroupsJoinSubtasks() {
        assertThat(PeerRun.threadGroup("Writer: t (1/2)#0"))
                .isEqualTo(PeerRun.threadGroup("Writer: t (2/2)#0"))
                .isEqualTo("Writer: t");
        assertThat(PeerRun.threadGroup("IcebergSink file:///some/dir/update/: Writer (1/2)#0"))
                .isEqualTo("IcebergSink <table>/: Writer");
        assertThat(PeerRun.threadGroup("pool-3-thread-12")).isEqualTo("pool-3-thread");
    }
}
