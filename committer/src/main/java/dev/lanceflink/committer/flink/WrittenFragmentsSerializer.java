package dev.lanceflink.committer.flink;

import dev.lanceflink.committer.core.FragmentListCodec;
import dev.lanceflink.committer.core.WrittenFragments;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/** Serializes a writer's {@link WrittenFragments} between the writer and the aggregator (version 1). */
public final class WrittenFragmentsSerializer implements SimpleVersionedSerializer<WrittenFragments> {
    private static final int VERSION = 1;

    @Override
    public int getVersion() {
        return VERSION;
    }

    @Override
    public byte[] serialize(WrittenFragments written) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeLong(written.rows());
            out.writeLong(written.bytes());
            FragmentListCodec.write(out, written.fragments());
        }
        return bytes.toByteArray();
    }

    @Override
    public WrittenFragments deserialize(int version, byte[] serialized) throws IOException {
        if (version != VERSION) {
            throw new IOException("Unknown version " + version + " of serialized Lance writer results (this build reads"
                    + " version " + VERSION + "); was the state written by a newer connector?");
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
            long rows = in.readLong();
            long size = in.readLong();
            return new WrittenFragments(FragmentListCodec.read(in, "a Lance writer result"), rows, size);
        }
    }
}
