package dev.lanceflink.deletion;

import io.airlift.compress.zstd.ZstdDecompressor;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.compression.AbstractCompressionCodec;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.compression.NoCompressionCodec;

/**
 * Lets Arrow Java read IPC buffers compressed with ZSTD, which is how Lance writes {@code .arrow}
 * deletion files, using the pure-Java aircompressor decoder (no arrow-compression module and no
 * native library). Only decompression is needed: this library writes deletion files uncompressed.
 */
final class ZstdArrowCodecFactory implements CompressionCodec.Factory {
    static final ZstdArrowCodecFactory INSTANCE = new ZstdArrowCodecFactory();

    @Override
    public CompressionCodec createCodec(CompressionUtil.CodecType codecType) {
        return switch (codecType) {
            case NO_COMPRESSION -> NoCompressionCodec.INSTANCE;
            case ZSTD -> new ZstdDecodeOnly();
            default ->
                throw new UnsupportedOperationException("Arrow IPC buffer compression " + codecType
                        + " is not supported for deletion files (Lance writes ZSTD or no compression)");
        };
    }

    @Override
    public CompressionCodec createCodec(CompressionUtil.CodecType codecType, int compressionLevel) {
        return createCodec(codecType);
    }

    private static final class ZstdDecodeOnly extends AbstractCompressionCodec {
        @Override
        protected ArrowBuf doCompress(BufferAllocator allocator, ArrowBuf uncompressedBuffer) {
            throw new UnsupportedOperationException("ZSTD compression is not used for writing deletion files");
        }

        @Override
        protected ArrowBuf doDecompress(BufferAllocator allocator, ArrowBuf compressedBuffer) {
            long outLen = readUncompressedLength(compressedBuffer);
            int inLen = (int) (compressedBuffer.writerIndex() - CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH);
            byte[] in = new byte[inLen];
            compressedBuffer.getBytes(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH, in);
            byte[] out = new byte[(int) outLen];
            int n = new ZstdDecompressor().decompress(in, 0, inLen, out, 0, out.length);
            if (n != outLen) {
                throw new IllegalStateException("ZSTD buffer decompressed to " + n + " bytes, expected " + outLen);
            }
            ArrowBuf result = allocator.buffer(outLen);
            result.setBytes(0, out);
            result.writerIndex(outLen);
            return result;
        }

        @Override
        public CompressionUtil.CodecType getCodecType() {
            return CompressionUtil.CodecType.ZSTD;
        }
    }
}
