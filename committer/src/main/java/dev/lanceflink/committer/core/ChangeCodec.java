package dev.lanceflink.committer.core;

import dev.lanceflink.table.CorruptTableException;
import dev.lanceflink.table.TableProtoCodec;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import lance.table.DataOverlayFile;
import org.roaringbitmap.RoaringBitmap;

/**
 * Writes overlays and deletions of uncommitted changes into Flink state and messages: overlays as
 * Lance's own {@code DataOverlayFile} protobuf, deletions as portable Roaring bitmaps.
 */
public final class ChangeCodec {
    private static final int MAX_ITEMS = 10_000_000;
    private static final int MAX_ITEM_BYTES = 256 << 20;

    private ChangeCodec() {}

    public static void writeOverlays(DataOutputStream out, List<TargetedOverlay> overlays) throws IOException {
        out.writeInt(overlays.size());
        for (TargetedOverlay o : overlays) {
            writeTarget(out, o.target());
            writeBytes(out, TableProtoCodec.toProto(o.overlay()).toByteArray());
        }
    }

    public static List<TargetedOverlay> readOverlays(DataInputStream in, String context) throws IOException {
        int n = count(in, context, "overlays");
        List<TargetedOverlay> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            RowTarget target = readTarget(in, context);
            byte[] bytes = readBytes(in, context + ", overlay " + i);
            try {
                out.add(new TargetedOverlay(
                        target, TableProtoCodec.overlay(DataOverlayFile.parseFrom(bytes), context + ", overlay " + i)));
            } catch (CorruptTableException e) {
                throw new IOException("Corrupt overlay " + i + " in " + context + ": " + e.getMessage(), e);
            }
        }
        return out;
    }

    public static void writeDeletions(DataOutputStream out, List<TargetedDeletion> deletions) throws IOException {
        out.writeInt(deletions.size());
        for (TargetedDeletion d : deletions) {
            writeTarget(out, d.target());
            RoaringBitmap bitmap = d.offsets().clone();
            bitmap.runOptimize();
            out.writeInt(bitmap.serializedSizeInBytes());
            bitmap.serialize(out);
        }
    }

    public static List<TargetedDeletion> readDeletions(DataInputStream in, String context) throws IOException {
        int n = count(in, context, "deletions");
        List<TargetedDeletion> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            RowTarget target = readTarget(in, context);
            byte[] bytes = readBytes(in, context + ", deletion " + i);
            RoaringBitmap bitmap = new RoaringBitmap();
            try {
                bitmap.deserialize(ByteBuffer.wrap(bytes));
            } catch (RuntimeException e) {
                throw new IOException("Corrupt deletion bitmap " + i + " in " + context, e);
            }
            out.add(new TargetedDeletion(target, bitmap));
        }
        return out;
    }

    private static void writeTarget(DataOutputStream out, RowTarget t) throws IOException {
        out.writeLong(t.fragmentId());
        out.writeLong(t.pendingFileId());
    }

    private static RowTarget readTarget(DataInputStream in, String context) throws IOException {
        long fragment = in.readLong();
        long pending = in.readLong();
        try {
            return new RowTarget(fragment, pending);
        } catch (IllegalArgumentException e) {
            throw new IOException("Corrupt row target in " + context + ": " + e.getMessage(), e);
        }
    }

    private static void writeBytes(DataOutputStream out, byte[] bytes) throws IOException {
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    private static byte[] readBytes(DataInputStream in, String context) throws IOException {
        int length = in.readInt();
        if (length < 0 || length > MAX_ITEM_BYTES) {
            throw new IOException("Corrupt length " + length + " in " + context);
        }
        byte[] bytes = in.readNBytes(length);
        if (bytes.length != length) {
            throw new IOException("Truncated " + context + ": " + bytes.length + " of " + length + " bytes");
        }
        return bytes;
    }

    private static int count(DataInputStream in, String context, String what) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > MAX_ITEMS) {
            throw new IOException("Corrupt count of " + what + " in " + context + ": " + n);
        }
        return n;
    }
}
