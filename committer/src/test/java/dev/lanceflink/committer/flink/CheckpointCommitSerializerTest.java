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
        // version 1 is version 3 without the trailing cells/overlays/deletions and overwrite flag
        byte[] v3 = new CheckpointCommitSerializer().serialize(commit);
        byte[] v1 = java.util.Arrays.copyOf(v3, v3.length - 17);
        assertThat(new CheckpointCommitSerializer().deserialize(1, v1)).isEqualTo(commit);
    }

    @Test
    void version2CommittablesAreReadAsAddingToTheTable() throws IOException {
        DataOverlayFile overlay = new DataOverlayFile(new DataFile("o.lance", new int[] {2}, new int[] {0}, 2, 1, 77),
                OverlayCoverage.Dense.of(RoaringBitmap.bitmapOf(1)), 0);
        CheckpointCommit commit = new CheckpointCommit("user-a", "job-1", 42, 17, FRAGMENTS,
                List.of(new TargetedOverlay(RowTarget.committed(3), overlay)), List.of(), 107, 1, 1333);
        // version 2 is version 3 without the trailing overwrite flag
        byte[] v3 = new CheckpointCommitSerializer().serialize(commit);
        CheckpointCommit back = new CheckpointCommitSerializer().deserialize(2, java.util.Arrays.copyOf(v3,
                v3.length - 1));
        assertThat(back).isEqualTo(commit);
        assertThat(back.overwrite()).isFalse();
    }

    @Test
    void overwriteRoundTrips() throws IOException {
        CheckpointCommitSerializer serializer = new CheckpointCommitSerializer();
        CheckpointCommit commit = CheckpointCommit.overwriting("user-a", "job-1", 42, 17, FRAGMENTS, 107, 1333);
        CheckpointCommit empty = CheckpointCommit.overwriting("user-a", "job-1", 43, 17, List.of(), 0, 0);

        assertThat(serializer.getVersion()).isEqualTo(3);
        CheckpointCommit back = serializer.deserialize(3, serializer.serialize(commit));
        assertThat(back).isEqualTo(commit);
        assertThat(back.overwrite()).isTrue();
        CheckpointCommit emptyBack = serializer.deserialize(3, serializer.serialize(empty));
        assertThat(emptyBack.overwrite()).isTrue();
        assertThat(emptyBack.isEmpty()).isFalse();
    }

    @Test
    void trailingBytesAreReportedAsCorruptState() throws IOException {
        CheckpointCommit commit = new CheckpointCommit("user-a", "job-1", 42, 17, FRAGMENTS, 107, 1333);
        byte[] v3 = new CheckpointCommitSerializer().serialize(commit);
        byte[] longer = java.util.Arrays.copyOf(v3, v3.length + 2);

        assertThatThrownBy(() -> new CheckpointCommitSerializer().deserialize(3, longer))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("checkpoint 42 (commit user user-a, version 3) has 2 unread bytes");
    }

    @Test
    void unknownVersionIsRejectedWithGuidance() {
        assertThatThrownBy(() -> new CheckpointCommitSerializer().deserialize(4, new byte[0]))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("Unknown version 4 of a serialized Lance committable")
                .hasMessageContaining("reads versions 1 to 3");
    }
}
