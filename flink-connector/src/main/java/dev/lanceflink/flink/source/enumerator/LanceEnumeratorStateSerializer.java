package dev.lanceflink.flink.source.enumerator;

import dev.lanceflink.flink.source.split.LanceSplit;
import dev.lanceflink.flink.source.split.LanceSplitSerializer;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/** Version 1: split count (int), then each split as {@link LanceSplitSerializer} version 1. */
public final class LanceEnumeratorStateSerializer implements SimpleVersionedSerializer<LanceEnumeratorState> {
    private static final int VERSION = 1;

    @Override
    public int getVersion() {
        return VERSION;
    }

    @Override
    public byte[] serialize(LanceEnumeratorState state) {
        List<byte[]> splits = new ArrayList<>();
        int size = Integer.BYTES;
        for (LanceSplit s : state.pendingSplits()) {
            byte[] b = LanceSplitSerializer.INSTANCE.serialize(s);
            splits.add(b);
            size += b.length;
        }
        ByteBuffer out = ByteBuffer.allocate(size).putInt(splits.size());
        splits.forEach(out::put);
        return out.array();
    }

    @Override
    public LanceEnumeratorState deserialize(int version, byte[] bytes) throws IOException {
        if (version != VERSION) {
            throw new IOException("Cannot restore Lance enumerator state of version " + version + "; this build reads"
                    + " version " + VERSION);
        }
        ByteBuffer in = ByteBuffer.wrap(bytes);
        int count = in.getInt();
        int splitSize = LanceSplitSerializer.INSTANCE.serialize(LanceSplit.of(0, 0, 0, 0)).length;
        if (count < 0 || in.remaining() != (long) count * splitSize) {
            throw new IOException("Corrupt Lance enumerator state: " + count + " splits announced, " + in.remaining()
                    + " bytes follow");
        }
        List<LanceSplit> splits = new ArrayList<>(count);
        byte[] buf = new byte[splitSize];
        for (int i = 0; i < count; i++) {
            in.get(buf);
            splits.add(LanceSplitSerializer.INSTANCE.deserialize(LanceSplitSerializer.INSTANCE.getVersion(), buf));
        }
        return new LanceEnumeratorState(splits);
    }
}
