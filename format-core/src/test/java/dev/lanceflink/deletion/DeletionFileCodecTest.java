package dev.lanceflink.deletion;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.table.CorruptTableException;
import dev.lanceflink.table.DeletionFileType;
import io.airlift.compress.zstd.ZstdCompressor;
import java.io.ByteArrayOutputStream;
import java.nio.channels.Channels;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.compression.AbstractCompressionCodec;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;

class DeletionFileCodecTest {

    @Test
    void bitmapBytesAreThePortableFormatWithoutRuns() {
        assertThat(DeletionFileCodec.encodeBitmap(DeletionVector.EMPTY)).containsExactly(0x3A, 0x30, 0, 0, 0, 0, 0, 0);
        assertThat(DeletionFileCodec.encodeBitmap(DeletionVector.of(1, 5)))
                .containsExactly(
                        0x3A, 0x30, 0, 0, // cookie 12346
                        1, 0, 0, 0, // one container
                        0, 0, 1, 0, // key 0, cardinality-1 = 1
                        16, 0, 0, 0, // payload offset
                        1, 0, 5, 0); // array container values
        // a range added in bulk would become a run container; it must be written as an array/bitmap
        RoaringBitmap range = new RoaringBitmap();
        range.add(0L, 100L);
        byte[] bytes = DeletionFileCodec.encodeBitmap(DeletionVector.of(range));
        assertThat(bytes[0] & 0xff | (bytes[1] & 0xff) << 8).isEqualTo(12346);
        assertThat(bytes).hasSize(16 + 200);
    }

    @Test
    void bitmapRoundTripAndCorruption() throws Exception {
        RoaringBitmap b = new RoaringBitmap();
        for (int i = 0; i < 70_000; i += 3) {
            b.add(i);
        }
        DeletionVector dv = DeletionVector.of(b);
        assertThat(DeletionFileCodec.decodeBitmap(DeletionFileCodec.encodeBitmap(dv), "x"))
                .isEqualTo(dv);
        // run-container cookie (12347) is accepted on read
        RoaringBitmap runs = new RoaringBitmap();
        runs.add(10L, 5000L);
        runs.runOptimize();
        java.nio.ByteBuffer buf = java.nio.ByteBuffer.allocate(runs.serializedSizeInBytes());
        runs.serialize(buf);
        assertThat(DeletionFileCodec.decodeBitmap(buf.array(), "r").cardinality())
                .isEqualTo(4990);
        assertThatThrownBy(() -> DeletionFileCodec.decodeBitmap(new byte[] {1, 2, 3, 4, 5}, "_deletions/1-2-3.bin"))
                .isInstanceOf(CorruptTableException.class)
                .hasMessageContaining("Deletion file _deletions/1-2-3.bin is not a portable 32-bit Roaring bitmap");
    }

    @Test
    void arrowRoundTrip() throws Exception {
        DeletionVector dv = DeletionVector.of(0, 7, 99, -1); // -1 = offset 4294967295 as unsigned
        byte[] bytes = DeletionFileCodec.encodeArrow(dv);
        assertThat(new String(bytes, 0, 6, java.nio.charset.StandardCharsets.US_ASCII))
                .isEqualTo("ARROW1");
        assertThat(new String(bytes, bytes.length - 6, 6, java.nio.charset.StandardCharsets.US_ASCII))
                .isEqualTo("ARROW1");
        assertThat(DeletionFileCodec.decodeArrow(bytes, "a")).isEqualTo(dv);
        assertThat(DeletionFileCodec.decodeArrow(DeletionFileCodec.encodeArrow(DeletionVector.EMPTY), "e")
                        .isEmpty())
                .isTrue();
    }

    @Test
    void arrowReadsZstdCompressedBuffersAsLanceWritesThem() throws Exception {
        int[] offsets = new int[3000];
        for (int i = 0; i < offsets.length; i++) {
            offsets[i] = i * 2;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (BufferAllocator alloc = new RootAllocator();
                VectorSchemaRoot root = VectorSchemaRoot.create(DeletionFileCodec.ARROW_SCHEMA, alloc);
                ArrowFileWriter w = new ArrowFileWriter(
                        root,
                        null,
                        Channels.newChannel(out),
                        Map.of(),
                        IpcOption.DEFAULT,
                        new ZstdCompressingFactory(),
                        CompressionUtil.CodecType.ZSTD)) {
            UInt4Vector v = (UInt4Vector) root.getVector(0);
            v.allocateNew(offsets.length);
            for (int i = 0; i < offsets.length; i++) {
                v.set(i, offsets[i]);
            }
            v.setValueCount(offsets.length);
            root.setRowCount(offsets.length);
            w.start();
            w.writeBatch();
            w.end();
        }
        DeletionVector dv = DeletionFileCodec.decodeArrow(out.toByteArray(), "z");
        assertThat(dv.toArray()).containsExactly(offsets);
    }

    @Test
    void arrowRejectsWrongSchema() throws Exception {
        Schema signed =
                new Schema(List.of(new Field("row_id", FieldType.notNullable(new ArrowType.Int(32, true)), null)));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (BufferAllocator alloc = new RootAllocator();
                VectorSchemaRoot root = VectorSchemaRoot.create(signed, alloc);
                ArrowFileWriter w = new ArrowFileWriter(root, null, Channels.newChannel(out))) {
            IntVector v = (IntVector) root.getVector(0);
            v.allocateNew(1);
            v.set(0, 3);
            v.setValueCount(1);
            root.setRowCount(1);
            w.start();
            w.writeBatch();
            w.end();
        }
        assertThatThrownBy(() -> DeletionFileCodec.decodeArrow(out.toByteArray(), "_deletions/0-1-2.arrow"))
                .isInstanceOf(CorruptTableException.class)
                .hasMessageContaining("_deletions/0-1-2.arrow has schema")
                .hasMessageContaining("non-nullable UInt32 column named row_id");
        assertThatThrownBy(() -> DeletionFileCodec.decodeArrow(new byte[] {1, 2, 3}, "t.arrow"))
                .isInstanceOf(CorruptTableException.class)
                .hasMessageContaining("t.arrow is not a readable Arrow IPC file");
    }

    @Test
    void lanceChoosesArrowUpToFiveThousandOffsets() {
        assertThat(DeletionFileCodec.chooseType(1, null)).isEqualTo(DeletionFileType.ARROW_ARRAY);
        assertThat(DeletionFileCodec.chooseType(5000, null)).isEqualTo(DeletionFileType.ARROW_ARRAY);
        assertThat(DeletionFileCodec.chooseType(5001, null)).isEqualTo(DeletionFileType.BITMAP);
        assertThat(DeletionFileCodec.chooseType(5000, DeletionFileType.ARROW_ARRAY))
                .isEqualTo(DeletionFileType.ARROW_ARRAY);
        assertThat(DeletionFileCodec.chooseType(3, DeletionFileType.BITMAP)).isEqualTo(DeletionFileType.BITMAP);
    }

    /** Test-only ZSTD compressor so the read path sees the same framing Lance produces. */
    private static final class ZstdCompressingFactory implements CompressionCodec.Factory {
        @Override
        public CompressionCodec createCodec(CompressionUtil.CodecType t) {
            return new AbstractCompressionCodec() {
                @Override
                protected ArrowBuf doCompress(BufferAllocator allocator, ArrowBuf in) {
                    byte[] raw = new byte[(int) in.writerIndex()];
                    in.getBytes(0, raw);
                    ZstdCompressor c = new ZstdCompressor();
                    byte[] comp = new byte[c.maxCompressedLength(raw.length)];
                    int n = c.compress(raw, 0, raw.length, comp, 0, comp.length);
                    ArrowBuf out = allocator.buffer(8L + n);
                    out.setLong(0, raw.length);
                    out.setBytes(8, comp, 0, n);
                    out.writerIndex(8L + n);
                    return out;
                }

                @Override
                protected ArrowBuf doDecompress(BufferAllocator allocator, ArrowBuf in) {
                    throw new UnsupportedOperationException();
                }

                @Override
                public CompressionUtil.CodecType getCodecType() {
                    return CompressionUtil.CodecType.ZSTD;
                }
            };
        }

        @Override
        public CompressionCodec createCodec(CompressionUtil.CodecType t, int level) {
            return createCodec(t);
        }
    }
}
