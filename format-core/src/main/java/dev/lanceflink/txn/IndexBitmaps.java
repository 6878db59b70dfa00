package dev.lanceflink.txn;

import com.google.protobuf.ByteString;
import dev.lanceflink.table.CorruptTableException;
import dev.lanceflink.table.IndexEntry;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.roaringbitmap.RoaringBitmap;

/** Reads and replaces the {@code fragment_bitmap} of an index entry (a portable 32-bit Roaring bitmap). */
final class IndexBitmaps {
    private IndexBitmaps() {}

    /** The fragments the index covers, or null when it stores no bitmap (it then covers every fragment). */
    static RoaringBitmap read(IndexEntry e) throws CorruptTableException {
        byte[] bytes = e.fragmentBitmap();
        if (bytes.length == 0) {
            return null;
        }
        RoaringBitmap b = new RoaringBitmap();
        try {
            b.deserialize(ByteBuffer.wrap(bytes));
        } catch (IOException | RuntimeException ex) {
            throw new CorruptTableException(
                    "Index '" + e.name() + "' (" + e.uuid() + ") has a fragment_bitmap that"
                            + " is not a portable Roaring bitmap: " + ex.getMessage(),
                    ex);
        }
        return b;
    }

    /**
     * {@code e} with {@code bitmap} as its fragment bitmap. Run containers are expanded first:
     * other Roaring readers of the format are not required to understand them.
     */
    static IndexEntry write(IndexEntry e, RoaringBitmap bitmap) {
        RoaringBitmap b = bitmap.clone();
        b.removeRunCompression();
        ByteBuffer out = ByteBuffer.allocate(b.serializedSizeInBytes());
        b.serialize(out);
        return new IndexEntry(e.toProto().toBuilder()
                .setFragmentBitmap(ByteString.copyFrom(out.array()))
                .build());
    }
}
