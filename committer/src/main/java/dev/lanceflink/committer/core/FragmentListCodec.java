package dev.lanceflink.committer.core;

import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.TableProtoCodec;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import lance.table.DataFragment;

/**
 * Writes uncommitted fragments into Flink state and messages as Lance's own {@code DataFragment}
 * protobuf (length-prefixed), so the encoding is the one the table format already defines and
 * evolves compatibly. (This is the one place outside format-core that touches a generated
 * protobuf class; a byte-level codec on {@code Fragment} in format-core would remove it.)
 */
public final class FragmentListCodec {
    /** Guards against reading garbage as a gigantic count or length. */
    private static final int MAX_FRAGMENTS = 10_000_000;

    private static final int MAX_FRAGMENT_BYTES = 64 << 20;

    private FragmentListCodec() {}

    public static void write(DataOutputStream out, List<Fragment> fragments) throws IOException {
        out.writeInt(fragments.size());
        for (Fragment f : fragments) {
            byte[] bytes = TableProtoCodec.toProto(f).toByteArray();
            out.writeInt(bytes.length);
            out.write(bytes);
        }
    }

    /** @param context what is being read, for error messages (e.g. "checkpoint 7 of commit user ...") */
    public static List<Fragment> read(DataInputStream in, String context) throws IOException {
        int count = in.readInt();
        if (count < 0 || count > MAX_FRAGMENTS) {
            throw new IOException("Corrupt fragment list in " + context + ": count " + count);
        }
        List<Fragment> fragments = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int length = in.readInt();
            if (length < 0 || length > MAX_FRAGMENT_BYTES) {
                throw new IOException("Corrupt fragment " + i + " in " + context + ": length " + length);
            }
            byte[] bytes = in.readNBytes(length);
            if (bytes.length != length) {
                throw new IOException("Truncated fragment " + i + " in " + context + ": " + bytes.length + " of "
                        + length + " bytes");
            }
            fragments.add(TableProtoCodec.fragment(DataFragment.parseFrom(bytes), context + ", fragment " + i));
        }
        return fragments;
    }
}
