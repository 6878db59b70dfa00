package dev.lanceflink.committer.flink;

import dev.lanceflink.committer.core.ChangeCodec;
import dev.lanceflink.committer.core.FragmentListCodec;
import dev.lanceflink.committer.core.WrittenChanges;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * Serializes a writer's {@link WrittenChanges} between the writers and the aggregator (version 2;
 * version 1, new fragments only, is still read: such messages can sit in unaligned checkpoints).
 */
public final class WrittenChangesSerializer implements SimpleVersionedSerializer<WrittenChanges> {
    private static final int VERSION = 2;

    @Override
    public int getVersion() {
        return VERSION;
    }

    @Override
    public byte[] serialize(WrittenChanges written) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeLong(written.rows());
            out.writeLong(written.bytes());
            FragmentListCodec.write(out, written.fragments());
            out.writeLong(written.cells());
            ChangeCodec.writeOverlays(out, written.overlays());
            ChangeCodec.writeDeletions(out, written.deletions());
        }
        return bytes.toByteArray();
    }

    @Override
    public WrittenChanges deserialize(int version, byte[] serialized) throws IOException {
        if (version != 1 && version != VERSION) {
            throw new IOException("Unknown version " + version + " of serialized Lance writer results (this build reads"
                    + " versions 1 and " + VERSION + "); was the state written by a newer connector?");
        }
        String context = "a Lance writer result";
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
            long rows = in.readLong();
            long size = in.readLong();
            var fragments = FragmentListCodec.read(in, context);
            if (version == 1) {
                return WrittenChanges.ofFragments(fragments, rows, size);
            }
            long cells = in.readLong();
            return new WrittenChanges(
                    fragments,
                    ChangeCodec.readOverlays(in, context),
                    ChangeCodec.readDeletions(in, context),
                    rows,
                    cells,
                    size);
        }
    }
}
