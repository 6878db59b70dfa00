package dev.lanceflink.deletion;

import dev.lanceflink.table.CorruptTableException;
import dev.lanceflink.table.DeletionFileType;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.SeekableReadChannel;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.ByteArrayReadableSeekableByteChannel;
import org.roaringbitmap.RoaringBitmap;

/**
 * Byte codecs of the two deletion file encodings (table-format.md §8.1, §8.2), and Lance's rule for
 * choosing between them.
 */
public final class DeletionFileCodec {
    /**
     * Lance keeps a deletion vector as a hash set (written as {@code .arrow}) up to this many
     * offsets and promotes it to a Roaring bitmap (written as {@code .bin}) beyond it.
     */
    public static final int BITMAP_THRESHOLD = 5_000;

    /** The exact schema Lance requires of an {@code .arrow} deletion file. */
    public static final Schema ARROW_SCHEMA =
            new Schema(List.of(new Field("row_id", FieldType.notNullable(new ArrowType.Int(32, false)), null)));

    /** Created on first use, so bitmap-only callers never initialise Arrow's memory layer. */
    private static final class Allocator {
        static final BufferAllocator ROOT = new RootAllocator();
    }

    private DeletionFileCodec() {}

    /**
     * The encoding Lance would use for a vector of {@code cardinality} offsets: {@code BITMAP} once
     * it holds more than {@value #BITMAP_THRESHOLD} offsets, or when the fragment's previous
     * deletion file already was a bitmap (Lance extends a loaded bitmap in place, it never demotes
     * it to a set); {@code ARROW_ARRAY} otherwise.
     *
     * @param previous the type of the fragment's current deletion file, or null if it has none
     */
    public static DeletionFileType chooseType(long cardinality, DeletionFileType previous) {
        if (previous == DeletionFileType.BITMAP || cardinality > BITMAP_THRESHOLD) {
            return DeletionFileType.BITMAP;
        }
        return DeletionFileType.ARROW_ARRAY;
    }

    public static byte[] encode(DeletionVector dv, DeletionFileType type) {
        return type == DeletionFileType.BITMAP ? encodeBitmap(dv) : encodeArrow(dv);
    }

    /** Decodes a deletion file; {@code path} is only used in error messages. */
    public static DeletionVector decode(byte[] bytes, DeletionFileType type, String path) throws IOException {
        return type == DeletionFileType.BITMAP ? decodeBitmap(bytes, path) : decodeArrow(bytes, path);
    }

    /** Portable 32-bit Roaring serialization without run containers (readable by older Lance). */
    public static byte[] encodeBitmap(DeletionVector dv) {
        RoaringBitmap b = dv.toBitmap();
        b.removeRunCompression();
        ByteBuffer buf = ByteBuffer.allocate(b.serializedSizeInBytes());
        b.serialize(buf);
        return buf.array();
    }

    public static DeletionVector decodeBitmap(byte[] bytes, String path) throws CorruptTableException {
        RoaringBitmap b = new RoaringBitmap();
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        try {
            b.deserialize(buf);
        } catch (IOException | RuntimeException e) {
            throw new CorruptTableException(
                    "Deletion file " + path + " is not a portable 32-bit Roaring bitmap (" + bytes.length + " bytes): "
                            + e.getMessage(),
                    e);
        }
        int used = b.serializedSizeInBytes(); // deserialize(ByteBuffer) does not advance the buffer
        if (used != bytes.length) {
            throw new CorruptTableException("Deletion file " + path + " has " + (bytes.length - used)
                    + " trailing bytes after its Roaring bitmap (" + bytes.length + " bytes in total)");
        }
        return DeletionVector.of(b);
    }

    /**
     * An Arrow IPC file (not stream) with one record batch of the offsets in ascending order, no
     * buffer compression (Lance reads uncompressed IPC as well as its own ZSTD).
     */
    public static byte[] encodeArrow(DeletionVector dv) {
        int[] offsets = dv.toArray();
        ByteArrayOutputStream out = new ByteArrayOutputStream(offsets.length * 4 + 512);
        try (BufferAllocator alloc = Allocator.ROOT.newChildAllocator("deletion-write", 0, Long.MAX_VALUE);
                VectorSchemaRoot root = VectorSchemaRoot.create(ARROW_SCHEMA, alloc);
                ArrowFileWriter writer = new ArrowFileWriter(root, null, Channels.newChannel(out))) {
            UInt4Vector v = (UInt4Vector) root.getVector(0);
            v.allocateNew(offsets.length);
            for (int i = 0; i < offsets.length; i++) {
                v.set(i, offsets[i]);
            }
            v.setValueCount(offsets.length);
            root.setRowCount(offsets.length);
            writer.start();
            writer.writeBatch();
            writer.end();
        } catch (IOException e) {
            throw new IllegalStateException("Writing an Arrow IPC file to memory failed", e);
        }
        return out.toByteArray();
    }

    public static DeletionVector decodeArrow(byte[] bytes, String path) throws CorruptTableException {
        RoaringBitmap b = new RoaringBitmap();
        try (BufferAllocator alloc = Allocator.ROOT.newChildAllocator("deletion-read", 0, Long.MAX_VALUE);
                ArrowFileReader reader = new ArrowFileReader(
                        new SeekableReadChannel(new ByteArrayReadableSeekableByteChannel(bytes)),
                        alloc,
                        ZstdArrowCodecFactory.INSTANCE)) {
            Schema schema = reader.getVectorSchemaRoot().getSchema();
            if (!ARROW_SCHEMA.equals(schema)) {
                throw new CorruptTableException("Deletion file " + path + " has schema " + schema
                        + "; an ARROW_ARRAY deletion file must have exactly one non-nullable UInt32 column"
                        + " named row_id and no metadata");
            }
            while (reader.loadNextBatch()) {
                UInt4Vector v = (UInt4Vector) reader.getVectorSchemaRoot().getVector(0);
                int n = v.getValueCount();
                if (v.getNullCount() != 0) {
                    throw new CorruptTableException("Deletion file " + path + " contains " + v.getNullCount()
                            + " null row ids; nulls are not allowed");
                }
                for (int i = 0; i < n; i++) {
                    b.add(v.get(i));
                }
            }
        } catch (CorruptTableException e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            throw new CorruptTableException(
                    "Deletion file " + path + " is not a readable Arrow IPC file (" + bytes.length + " bytes): "
                            + e.getMessage(),
                    e);
        }
        return DeletionVector.of(b);
    }
}
