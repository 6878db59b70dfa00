package dev.lanceflink.table;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.roaringbitmap.RoaringBitmap;

/**
 * Which physical row offsets of a fragment a data overlay file covers (the {@code coverage}
 * oneof of {@code DataOverlayFile}). The serialized portable Roaring bytes are kept exactly as
 * stored so a manifest round-trips byte for byte; {@link #bitmap(int)} decodes on demand.
 */
public sealed interface OverlayCoverage {

    /** The coverage bitmap that applies to position {@code fieldPosition} of the overlay's data file. */
    RoaringBitmap bitmap(int fieldPosition) throws IOException;

    /** Union of the coverage of all fields: every offset the overlay touches. */
    RoaringBitmap union() throws IOException;

    /** One bitmap shared by every field of the file ({@code shared_offset_bitmap}, field 2). */
    record Dense(byte[] sharedOffsetBitmap) implements OverlayCoverage {
        public Dense {
            sharedOffsetBitmap = requireNonNull(sharedOffsetBitmap, "sharedOffsetBitmap is null")
                    .clone();
        }

        public static Dense of(RoaringBitmap offsets) {
            return new Dense(serialize(offsets));
        }

        @Override
        public byte[] sharedOffsetBitmap() {
            return sharedOffsetBitmap.clone();
        }

        @Override
        public RoaringBitmap bitmap(int fieldPosition) throws IOException {
            return deserialize(sharedOffsetBitmap);
        }

        @Override
        public RoaringBitmap union() throws IOException {
            return deserialize(sharedOffsetBitmap);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Dense d && Arrays.equals(sharedOffsetBitmap, d.sharedOffsetBitmap);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(sharedOffsetBitmap);
        }

        @Override
        public String toString() {
            return "Dense[" + sharedOffsetBitmap.length + " bytes]";
        }
    }

    /** One bitmap per entry of the data file's {@code fields}, same order ({@code field_coverage}, field 4). */
    record PerField(List<byte[]> offsetBitmaps) implements OverlayCoverage {
        public PerField {
            List<byte[]> copy = new ArrayList<>(offsetBitmaps.size());
            for (byte[] b : offsetBitmaps) {
                copy.add(requireNonNull(b, "offset bitmap is null").clone());
            }
            offsetBitmaps = List.copyOf(copy);
        }

        public static PerField of(List<RoaringBitmap> bitmaps) {
            List<byte[]> out = new ArrayList<>(bitmaps.size());
            for (RoaringBitmap b : bitmaps) {
                out.add(serialize(b));
            }
            return new PerField(out);
        }

        @Override
        public List<byte[]> offsetBitmaps() {
            List<byte[]> copy = new ArrayList<>(offsetBitmaps.size());
            for (byte[] b : offsetBitmaps) {
                copy.add(b.clone());
            }
            return copy;
        }

        public int size() {
            return offsetBitmaps.size();
        }

        @Override
        public RoaringBitmap bitmap(int fieldPosition) throws IOException {
            if (fieldPosition < 0 || fieldPosition >= offsetBitmaps.size()) {
                throw new CorruptTableException("Overlay field coverage has " + offsetBitmaps.size()
                        + " bitmaps; position " + fieldPosition + " does not exist");
            }
            return deserialize(offsetBitmaps.get(fieldPosition));
        }

        @Override
        public RoaringBitmap union() throws IOException {
            RoaringBitmap all = new RoaringBitmap();
            for (byte[] b : offsetBitmaps) {
                all.or(deserialize(b));
            }
            return all;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof PerField p) || p.offsetBitmaps.size() != offsetBitmaps.size()) {
                return false;
            }
            for (int i = 0; i < offsetBitmaps.size(); i++) {
                if (!Arrays.equals(offsetBitmaps.get(i), p.offsetBitmaps.get(i))) {
                    return false;
                }
            }
            return true;
        }

        @Override
        public int hashCode() {
            return offsetBitmaps.size();
        }

        @Override
        public String toString() {
            return "PerField[" + offsetBitmaps.size() + " bitmaps]";
        }
    }

    /**
     * Portable serialization, with run containers where they are smaller (as pylance 14 writes
     * coverage: 1,000 contiguous offsets take 22 bytes instead of 2,016). Every Lance that reads
     * overlays reads run containers, and the bitmap is stored three times per commit (manifest,
     * the transaction it embeds, the transaction file), so the run form matters for small updates.
     */
    static byte[] serialize(RoaringBitmap offsets) {
        RoaringBitmap copy = offsets.clone();
        copy.runOptimize();
        ByteBuffer buf = ByteBuffer.allocate(copy.serializedSizeInBytes());
        copy.serialize(buf);
        return buf.array();
    }

    static RoaringBitmap deserialize(byte[] bytes) throws IOException {
        RoaringBitmap b = new RoaringBitmap();
        try {
            b.deserialize(ByteBuffer.wrap(bytes));
        } catch (RuntimeException | IOException e) {
            throw new CorruptTableException(
                    "Overlay coverage is not a portable 32-bit Roaring bitmap (" + bytes.length + " bytes): "
                            + e.getMessage(),
                    e);
        }
        return b;
    }
}
