package dev.lanceflink.committer.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.committer.core.CheckpointCommit;
import dev.lanceflink.committer.core.WrittenFragments;
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
        WrittenFragments written = new WrittenFragments(FRAGMENTS, 107, 1333);
        WrittenFragmentsSerializer serializer = new WrittenFragmentsSerializer();

        assertThat(serializer.deserialize(1, serializer.serialize(written))).isEqualTo(written);
    }

    @Test
    void unknownVersionIsRejectedWithGuidance() {
        assertThatThrownBy(() -> new CheckpointCommitSerializer().deserialize(2, new byte[0]))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("Unknown version 2 of a serialized Lance committable");
    }
}
