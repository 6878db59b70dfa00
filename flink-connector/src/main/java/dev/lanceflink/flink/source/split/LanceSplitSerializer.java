package dev.lanceflink.flink.source.split;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/** Version 1: six big-endian longs (table version, fragment id, start, end, next offset, rows emitted). */
public final class LanceSplitSerializer implements SimpleVersionedSerializer<LanceSplit> {
    public static final LanceSplitSerializer INSTANCE = new LanceSplitSerializer();
    private static final int VERSION = 1;
    private static final int SIZE = 6 * Long.BYTES;

    @Override
    public int getVersion() {
        return VERSION;
    }

    @Override
    public byte[] serialize(LanceSplit s) {
        return ByteBuffer.allocate(SIZE)
                .putLong(s.tableVersion())
                .putLong(s.fragmentId())
                .putLong(s.start())
                .putLong(s.end())
                .putLong(s.nextOffset())
                .putLong(s.rowsEmitted())
                .array();
    }

    @Override
    public LanceSplit deserialize(int version, byte[] bytes) throws IOException {
        if (version != VERSION) {
            throw new IOException("Cannot restore a Lance split serialized with version " + version + "; this build"
                    + " reads version " + VERSION + ". Restore with the connector version that took the checkpoint");
        }
        if (bytes.length != SIZE) {
            throw new IOException("Corrupt Lance split state: expected " + SIZE + " bytes, got " + bytes.length);
        }
        ByteBuffer b = ByteBuffer.wrap(bytes);
        return new LanceSplit(b.getLong(), b.getLong(), b.getLong(), b.getLong(), b.getLong(), b.getLong());
    }
}
