package dev.lanceflink.committer.flink;

import dev.lanceflink.committer.core.ChangeCodec;
import dev.lanceflink.committer.core.CheckpointCommit;
import dev.lanceflink.committer.core.FragmentListCodec;
import dev.lanceflink.committer.core.TargetedDeletion;
import dev.lanceflink.committer.core.TargetedOverlay;
import dev.lanceflink.table.Fragment;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.List;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * Serializes the committable, {@link CheckpointCommit}, for the committer's checkpointed state
 * (version 4: with the rewrite-rows flag; version 3, with the overwrite flag, version 2, with
 * overlays and deletions, and version 1, appends only, are still read, as commits that do not
 * rewrite rows). Pending commits survive
 * restores in this form, so the layout only ever changes by adding a new version next to the old
 * one.
 */
public final class CheckpointCommitSerializer implements SimpleVersionedSerializer<CheckpointCommit> {
    private static final int VERSION = 4;

    @Override
    public int getVersion() {
        return VERSION;
    }

    @Override
    public byte[] serialize(CheckpointCommit commit) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeUTF(commit.commitUser());
            out.writeUTF(commit.jobId());
            out.writeLong(commit.checkpointId());
            out.writeLong(commit.baseVersion());
            out.writeLong(commit.rows());
            out.writeLong(commit.bytes());
            FragmentListCodec.write(out, commit.fragments());
            out.writeLong(commit.cells());
            ChangeCodec.writeOverlays(out, commit.overlays());
            ChangeCodec.writeDeletions(out, commit.deletions());
            out.writeBoolean(commit.overwrite());
            out.writeBoolean(commit.rewriteRows());
        }
        return bytes.toByteArray();
    }

    @Override
    public CheckpointCommit deserialize(int version, byte[] serialized) throws IOException {
        if (version < 1 || version > VERSION) {
            throw new IOException("Unknown version " + version + " of a serialized Lance committable (this build reads"
                    + " versions 1 to " + VERSION + "); restore with the connector version that wrote the checkpoint");
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
            String user = in.readUTF();
            String job = in.readUTF();
            long checkpoint = in.readLong();
            long base = in.readLong();
            long rows = in.readLong();
            long size = in.readLong();
            String context = "the committable of checkpoint " + checkpoint + " (commit user " + user + ")";
            List<Fragment> fragments = FragmentListCodec.read(in, context);
            if (version == 1) {
                return new CheckpointCommit(user, job, checkpoint, base, fragments, rows, size);
            }
            long cells = in.readLong();
            List<TargetedOverlay> overlays = ChangeCodec.readOverlays(in, context);
            List<TargetedDeletion> deletions = ChangeCodec.readDeletions(in, context);
            boolean overwrite = version >= 3 && in.readBoolean();
            boolean rewriteRows = version >= 4 && in.readBoolean();
            if (in.available() > 0) {
                throw new IOException("The serialized committable of checkpoint " + checkpoint + " (commit user " + user
                        + ", version " + version + ") has " + in.available() + " unread bytes after its last field;"
                        + " the state is corrupt or was written by another layout");
            }
            return new CheckpointCommit(
                    user,
                    job,
                    checkpoint,
                    base,
                    fragments,
                    overlays,
                    deletions,
                    rows,
                    cells,
                    size,
                    overwrite,
                    rewriteRows);
        }
    }
}
