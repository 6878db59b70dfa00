package dev.lanceflink.committer.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.committer.core.CheckpointCommit;
import dev.lanceflink.committer.core.RowTarget;
import dev.lanceflink.committer.core.TargetedDeletion;
import dev.lanceflink.committer.core.TargetedOverlay;
import dev.lanceflink.committer.core.WrittenChanges;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.OverlayCoverage;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;

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

        assertThat(serializer.deserialize(serializer.getVersion(), serializer.serialize(written)))
                .isEqualTo(written);
    }

    @Test
    void overlaysAndDeletionsRoundTripWithTheirTargets() throws IOException {
        DataOverlayFile overlay = new DataOverlayFile(
                new DataFile("o.lance", new int[] {2}, new int[] {0}, 2, 1, 77),
                OverlayCoverage.Dense.of(RoaringBitmap.bitmapOf(1, 5, 9)),
                0);
        List<TargetedOverlay> overlays = List.of(
                new TargetedOverlay(RowTarget.committed(3), overlay),
                new TargetedOverlay(RowTarget.pending(0xfeedL), overlay));
        List<TargetedDeletion> deletions = List.of(
                new TargetedDeletion(RowTarget.pending(-5L), RoaringBitmap.bitmapOf(0, 70_000)),
                new TargetedDeletion(RowTarget.committed(0), RoaringBitmap.bitmapOf(4)));
        CheckpointCommit commit =
                new CheckpointCommit("user-a", "job-1", 42, 17, FRAGMENTS, overlays, deletions, 107, 6, 1333);
        CheckpointCommitSerializer serializer = new CheckpointCommitSerializer();
        assertThat(serializer.deserialize(serializer.getVersion(), serializer.serialize(commit)))
                .isEqualTo(commit);

        WrittenChanges written = new WrittenChanges(FRAGMENTS, overlays, deletions, 107, 6, 1333);
        WrittenChangesSerializer writerSerializer = new WrittenChangesSerializer();
        assertThat(writerSerializer.deserialize(writerSerializer.getVersion(), writerSerializer.serialize(written)))
                .isEqualTo(written);
    }

    @Test
    void version1CommittablesOfAppendOnlySinksAreStillRead() throws IOException {
        CheckpointCommit commit = new CheckpointCommit("user-a", "job-1", 42, 17, FRAGMENTS, 107, 1333);
        // version 1 is version 4 without the trailing cells/overlays/deletions and the two flags
        byte[] v4 = new CheckpointCommitSerializer().serialize(commit);
        byte[] v1 = java.util.Arrays.copyOf(v4, v4.length - 18);
        assertThat(new CheckpointCommitSerializer().deserialize(1, v1)).isEqualTo(commit);
    }

    @Test
    void version2CommittablesAreReadAsAddingToTheTable() throws IOException {
        DataOverlayFile overlay = new DataOverlayFile(
                new DataFile("o.lance", new int[] {2}, new int[] {0}, 2, 1, 77),
                OverlayCoverage.Dense.of(RoaringBitmap.bitmapOf(1)),
                0);
        CheckpointCommit commit = new CheckpointCommit(
                "user-a",
                "job-1",
                42,
                17,
                FRAGMENTS,
                List.of(new TargetedOverlay(RowTarget.committed(3), overlay)),
                List.of(),
                107,
                1,
                1333);
        // version 2 is version 4 without the trailing overwrite and rewrite-rows flags
        byte[] v4 = new CheckpointCommitSerializer().serialize(commit);
        CheckpointCommit back =
                new CheckpointCommitSerializer().deserialize(2, java.util.Arrays.copyOf(v4, v4.length - 2));
        assertThat(back).isEqualTo(commit);
        assertThat(back.overwrite()).isFalse();
    }

    @Test
    void overwriteRoundTrips() throws IOException {
        CheckpointCommitSerializer serializer = new CheckpointCommitSerializer();
        CheckpointCommit commit = CheckpointCommit.overwriting("user-a", "job-1", 42, 17, FRAGMENTS, 107, 1333);
        CheckpointCommit empty = CheckpointCommit.overwriting("user-a", "job-1", 43, 17, List.of(), 0, 0);

        assertThat(serializer.getVersion()).isEqualTo(4);
        CheckpointCommit back = serializer.deserialize(4, serializer.serialize(commit));
        assertThat(back).isEqualTo(commit);
        assertThat(back.overwrite()).isTrue();
        CheckpointCommit emptyBack = serializer.deserialize(4, serializer.serialize(empty));
        assertThat(emptyBack.overwrite()).isTrue();
        assertThat(emptyBack.isEmpty()).isFalse();
    }

    @Test
    void trailingBytesAreReportedAsCorruptState() throws IOException {
        CheckpointCommit commit = new CheckpointCommit("user-a", "job-1", 42, 17, FRAGMENTS, 107, 1333);
        byte[] v4 = new CheckpointCommitSerializer().serialize(commit);
        byte[] longer = java.util.Arrays.copyOf(v4, v4.length + 2);

        assertThatThrownBy(() -> new CheckpointCommitSerializer().deserialize(4, longer))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("checkpoint 42 (commit user user-a, version 4) has 2 unread bytes");
    }

    @Test
    void unknownVersionIsRejectedWithGuidance() {
        assertThatThrownBy(() -> new CheckpointCommitSerializer().deserialize(5, new byte[0]))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("Unknown version 5 of a serialized Lance committable")
                .hasMessageContaining("reads versions 1 to 4");
    }

    @Test
    void rewriteRowsRoundTripsAndVersion3IsReadWithoutIt() throws IOException {
        CheckpointCommitSerializer serializer = new CheckpointCommitSerializer();
        CheckpointCommit commit = CheckpointCommit.rewritingRows(
                "user-a",
                "job-1",
                42,
                17,
                FRAGMENTS,
                List.of(new TargetedDeletion(RowTarget.committed(3), RoaringBitmap.bitmapOf(2, 8))),
                107,
                1333);

        byte[] v4 = serializer.serialize(commit);
        CheckpointCommit back = serializer.deserialize(4, v4);
        assertThat(back).isEqualTo(commit);
        assertThat(back.rewriteRows()).isTrue();
        CheckpointCommit v3 = serializer.deserialize(3, java.util.Arrays.copyOf(v4, v4.length - 1));
        assertThat(v3.rewriteRows()).isFalse();
    }
}
