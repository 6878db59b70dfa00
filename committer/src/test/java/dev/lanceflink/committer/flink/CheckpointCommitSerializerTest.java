package dev.lanceflink.committer.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.committer.core.CheckpointCommit;
import dev.lanceflink.committer.core.RowTarget;
import dev.lanceflink.committer.core.TargetedDeletion;
import dev.lanceflink.committer.core.TargetedOverlay;
import dev.lanceflink.committer.core.WrittenChanges;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.OverlayCoverage;
import org.roaringbitmap.RoaringBitmap;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.Fragment;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

class CheckpointCommitSerializerTest {
    private static final List<Fragment> FRAGMENTS = List.of(
            Fragment.of(0, List.of(new DataFile("a.lance", new int[] {0, 1}, new int[] {0, 1}, 2, 1, 1234)), 100),
            Fragment.of(0, List.of(new DataFile("b.lance", new int[] {0, 1}, new int[] {0, 1}, 2, 1, 99)), 7));

    @Test
    void committableRoundTrips() throws IOException {
        CheckpointCommit commit = new CheckpointCommit("user-a", "job-1", 42, 17, FRAGMENTS, 107, 1333);
        CheckpointCommitSerializer serializer = new CheckpointCommitSerializer();

        CheckpointCommit back = serializer.deserialize(serializer.getVersion(), serializer.serialize(commit));

        assertThat(back).isEqualTo(commit);
    }

    @Test
    void writerResultRoundTrips() throws IOException {
        WrittenChanges written = WrittenChanges.ofFragments(FRAGMENTS, 107, 1333);
        WrittenChangesSerializer serializer = new WrittenChangesSerializer();

        assertThat(serializer.deserialize(serializer.getVersion(), serializer.serialize(written))).isEqualTo(written);
    }

    @Test
    void overlaysAndDeletionsRoundTripWithTheirTargets() throws IOException {
        DataOverlayFile overlay = new DataOverlayFile(new DataFile("o.lance", new int[] {2}, new int[] {0}, 2, 1, 77),
                OverlayCoverage.Dense.of(RoaringBitmap.bitmapOf(1, 5, 9)), 0);
        List<TargetedOverlay> overlays = List.of(new TargetedOverlay(RowTarget.committed(3), overlay),
                new TargetedOverlay(RowTarget.pending(0xfeedL), overlay));
        List<TargetedDeletion> deletions = List.of(
                new TargetedDeletion(RowTarget.pending(-5L), RoaringBitmap.bitmapOf(0, 70_000)),
                new TargetedDeletion(RowTarget.committed(0), RoaringBitmap.bitmapOf(4)));
        CheckpointCommit commit = new CheckpointCommit("user-a", "job-1", 42, 17, FRAGMENTS, overlays, deletions, 107, 6,
                1333);
        CheckpointCommitSerializer serializer = new CheckpointCommitSerializer();
        assertThat(serializer.deserialize(serializer.getVersion(), serializer.serialize(commit))).isEqualTo(commit);

        WrittenChanges written = new WrittenChanges(FRAGMENTS, overlays, deletions, 107, 6, 1333);
        WrittenChangesSerializer writerSerializer = new WrittenChangesSerializer();
        assertThat(writerSerializer.deserialize(writerSerializer.getVersion(), writerSerializer.serialize(written)))
                .isEqualTo(written);
    }

    @Test
    void version1CommittablesOfAppendOnlySinksAreStillRead() throws IOException {
        CheckpointCommit commit = new CheckpointCommit("user-a", "job-1", 42, 17, FRAGMENTS, 107, 1333);
        // version 1 is version 2 without the trailing cells/overlays/deletions
        byte[] v2 = new CheckpointCommitSerializer().serialize(commit);
        byte[] v1 = java.util.Arrays.copyOf(v2, v2.length - 16);
        assertThat(new CheckpointCommitSerializer().deserialize(1, v1)).isEqualTo(commit);
    }

    @Test
    void unknownVersionIsRejectedWithGuidance() {
        assertThatThrownBy(() -> new CheckpointCommitSerializer().deserialize(3, new byte[0]))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("Unknown version 3 of a serialized Lance committable");
    }
}
