package dev.lanceflink.table;

import static java.util.Objects.requireNonNull;

import com.google.protobuf.ByteString;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.OptionalInt;
import java.util.UUID;
import lance.table.IndexMetadata;
import org.roaringbitmap.RoaringBitmap;

/**
 * One index segment of a table version ({@code IndexMetadata}). This library does not build or
 * read indices; it carries every entry unchanged into each new manifest (Lance drops indices that
 * a manifest does not list) and exposes what conflict checks and overlay staleness need.
 */
public final class IndexEntry {
    private final IndexMetadata proto;

    public IndexEntry(IndexMetadata proto) {
        this.proto = requireNonNull(proto, "proto is null");
    }

    /** The wrapped message, for codecs; ordinary callers use the accessors. */
    public IndexMetadata toProto() {
        return proto;
    }

    /** The segment's UUID (names {@code _indices/<uuid>/}). */
    public UUID uuid() {
        ByteBuffer b = proto.getUuid().getUuid().asReadOnlyByteBuffer();
        if (b.remaining() != 16) {
            throw new IllegalStateException("Index '" + proto.getName() + "' has a " + b.remaining()
                    + "-byte uuid; Lance requires exactly 16 bytes");
        }
        return new UUID(b.getLong(), b.getLong());
    }

    public String name() {
        return proto.getName();
    }

    /** Indexed field ids ({@code fields[0]} is the key). */
    public int[] fields() {
        int[] out = new int[proto.getFieldsCount()];
        for (int i = 0; i < out.length; i++) {
            out[i] = proto.getFields(i);
        }
        return out;
    }

    /** Version the index was built from (drives overlay staleness). */
    public long datasetVersion() {
        return proto.getDatasetVersion();
    }

    /** Serialized Roaring bitmap of covered fragment ids; empty = unknown (covers every fragment). */
    public byte[] fragmentBitmap() {
        return proto.getFragmentBitmap().toByteArray();
    }

    public OptionalInt baseId() {
        return proto.hasBaseId() ? OptionalInt.of(proto.getBaseId()) : OptionalInt.empty();
    }

    /**
     * This entry with {@code fragmentIds} removed from its fragment bitmap, so readers stop
     * trusting the index for those fragments (they scan them instead). An entry without a bitmap
     * (unknown coverage) is returned unchanged.
     */
    public IndexEntry withoutFragments(Collection<Long> fragmentIds) throws CorruptTableException {
        byte[] bytes = fragmentBitmap();
        if (bytes.length == 0 || fragmentIds.isEmpty()) {
            return this;
        }
        RoaringBitmap b = new RoaringBitmap();
        try {
            b.deserialize(ByteBuffer.wrap(bytes));
        } catch (IOException | RuntimeException e) {
            throw new CorruptTableException(
                    "Index '" + name() + "' (" + uuid() + ") has a fragment_bitmap that is not"
                            + " a portable Roaring bitmap: " + e.getMessage(),
                    e);
        }
        boolean changed = false;
        for (long id : fragmentIds) {
            changed |= b.checkedRemove((int) id);
        }
        if (!changed) {
            return this;
        }
        b.removeRunCompression();
        ByteBuffer out = ByteBuffer.allocate(b.serializedSizeInBytes());
        b.serialize(out);
        return new IndexEntry(proto.toBuilder()
                .setFragmentBitmap(ByteString.copyFrom(out.array()))
                .build());
    }

    /** True if the index covers {@code fragmentId} (an index without a bitmap covers every fragment). */
    public boolean coversFragment(long fragmentId) throws CorruptTableException {
        byte[] bytes = fragmentBitmap();
        if (bytes.length == 0) {
            return true;
        }
        RoaringBitmap b = new RoaringBitmap();
        try {
            b.deserialize(ByteBuffer.wrap(bytes));
        } catch (IOException | RuntimeException e) {
            throw new CorruptTableException(
                    "Index '" + name() + "' has a fragment_bitmap that is not a portable" + " Roaring bitmap: "
                            + e.getMessage(),
                    e);
        }
        return b.contains((int) fragmentId);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof IndexEntry e && proto.equals(e.proto);
    }

    @Override
    public int hashCode() {
        return proto.hashCode();
    }

    @Override
    public String toString() {
        return "Index[" + name() + ", fields=" + proto.getFieldsList() + ", dataset_version=" + datasetVersion() + "]";
    }
}
