package dev.lanceflink.table;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.RangeReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import lance.table.IndexMetadata;
import lance.table.IndexSection;

/**
 * Reads and writes the manifest file layout (table-format.md §3):
 *
 * <pre>
 *   [u32 len + IndexSection]      optional, position in Manifest.index_section
 *   [u32 len + Transaction]       optional, position in Manifest.transaction_section
 *   u32 len + Manifest            always the last blob
 *   i64 position of the Manifest blob, i16 0, i16 2, "LANC"   (16-byte trailer, little-endian)
 * </pre>
 */
public final class ManifestIO {
    /** Size of the trailer that ends every manifest file. */
    public static final int TRAILER_SIZE = 16;

    static final byte[] MAGIC = "LANC".getBytes(StandardCharsets.US_ASCII);
    static final short TRAILER_MAJOR = 0;
    static final short TRAILER_MINOR = 2;
    /** First read of a manifest: the tail that usually holds the whole file. */
    static final int TAIL_READ = 64 * 1024;

    private ManifestIO() {}

    /**
     * Reads and decodes the manifest at {@code location}. Its size, when known from the listing or
     * HEAD that found it, saves the store a second HEAD; otherwise the store learns it.
     */
    public static Manifest read(ObjectStore store, ManifestLocation location) throws IOException {
        try (RangeReader reader = store.openReader(location.path(), location.size())) {
            long size = reader.size();
            String path = store.rootUri() + "/" + location.path();
            if (size < TRAILER_SIZE + 4) {
                throw new CorruptTableException("Manifest " + path + " is " + size
                        + " bytes, too short for a length prefix and the 16-byte trailer");
            }
            int tailLen = (int) Math.min(size, TAIL_READ);
            ByteBuffer tail = reader.read(size - tailLen, tailLen).order(ByteOrder.LITTLE_ENDIAN);
            long tailStart = size - tailLen;
            long position = trailerPosition(tail, tailLen - TRAILER_SIZE, size, path);
            byte[] bytes;
            long base;
            if (position >= tailStart) {
                bytes = toArray(tail);
                base = tailStart;
            } else {
                // Large manifest: fetch the missing head of the Manifest blob.
                long len = size - position;
                if (len > Integer.MAX_VALUE - 16) {
                    throw new CorruptTableException("Manifest " + path + " has a " + len + "-byte manifest blob");
                }
                ByteBuffer rest = reader.read(position, (int) (tailStart - position));
                bytes = new byte[(int) len];
                rest.get(bytes, 0, (int) (tailStart - position));
                tail.position(0);
                tail.get(bytes, (int) (tailStart - position), tailLen);
                base = position;
            }
            lance.table.Manifest proto = decodeManifestBlob(bytes, base, position, size, path);
            List<IndexMetadata> indices = null;
            if (proto.hasIndexSection()) {
                byte[] blob = readBlob(reader, bytes, base, proto.getIndexSection(), size, path, "index section");
                try {
                    indices = IndexSection.parseFrom(blob).getIndicesList();
                } catch (InvalidProtocolBufferException e) {
                    throw new CorruptTableException(
                            "Manifest " + path + ": the index section at offset " + proto.getIndexSection()
                                    + " is not a valid IndexSection protobuf: " + e.getMessage(),
                            e);
                }
            }
            byte[] txn = proto.hasTransactionSection()
                    ? readBlob(reader, bytes, base, proto.getTransactionSection(), size, path, "inline transaction")
                    : null;
            Manifest m = TableProtoCodec.manifest(proto, indices, txn, path);
            if (m.version() != location.version()) {
                throw new CorruptTableException("Manifest " + path + " is named for version " + location.version()
                        + " but contains version " + m.version());
            }
            return m;
        }
    }

    /** Decodes a whole manifest file held in memory. */
    public static Manifest parse(byte[] file, String path) throws IOException {
        long size = file.length;
        if (size < TRAILER_SIZE + 4) {
            throw new CorruptTableException("Manifest " + path + " is " + size
                    + " bytes, too short for a length prefix and the 16-byte trailer");
        }
        ByteBuffer all = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
        long position = trailerPosition(all, file.length - TRAILER_SIZE, size, path);
        lance.table.Manifest proto = decodeManifestBlob(file, 0, position, size, path);
        List<IndexMetadata> indices = null;
        if (proto.hasIndexSection()) {
            try {
                indices = IndexSection.parseFrom(blobAt(file, 0, proto.getIndexSection(), size, path, "index section"))
                        .getIndicesList();
            } catch (InvalidProtocolBufferException e) {
                throw new CorruptTableException(
                        "Manifest " + path + ": the index section at offset " + proto.getIndexSection()
                                + " is not a valid IndexSection protobuf: " + e.getMessage(),
                        e);
            }
        }
        byte[] txn = proto.hasTransactionSection()
                ? blobAt(file, 0, proto.getTransactionSection(), size, path, "inline transaction")
                : null;
        return TableProtoCodec.manifest(proto, indices, txn, path);
    }

    /**
     * Serializes a manifest file: index section (if the manifest has one), inline transaction (if
     * any), the Manifest message with both positions filled in, and the trailer.
     */
    public static byte[] serialize(Manifest m) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(4096);
        long indexPos = -1;
        if (m.hasIndexSection()) {
            IndexSection.Builder s = IndexSection.newBuilder();
            for (IndexEntry e : m.indices()) {
                s.addIndices(e.toProto());
            }
            indexPos = out.size();
            writeBlob(out, s.build().toByteArray());
        }
        long txnPos = -1;
        if (m.inlineTransaction().isPresent()) {
            txnPos = out.size();
            writeBlob(out, m.inlineTransaction().get());
        }
        long manifestPos = out.size();
        writeBlob(out, TableProtoCodec.toProto(m, indexPos, txnPos).toByteArray());
        ByteBuffer trailer = ByteBuffer.allocate(TRAILER_SIZE).order(ByteOrder.LITTLE_ENDIAN);
        trailer.putLong(manifestPos)
                .putShort(TRAILER_MAJOR)
                .putShort(TRAILER_MINOR)
                .put(MAGIC);
        out.write(trailer.array(), 0, TRAILER_SIZE);
        return out.toByteArray();
    }

    private static void writeBlob(ByteArrayOutputStream out, byte[] blob) {
        ByteBuffer len = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(blob.length);
        out.write(len.array(), 0, 4);
        out.write(blob, 0, blob.length);
    }

    /** Validates the trailer at {@code trailerOffset} of {@code buf} and returns the Manifest blob position. */
    private static long trailerPosition(ByteBuffer buf, int trailerOffset, long size, String path)
            throws CorruptTableException {
        for (int i = 0; i < 4; i++) {
            if (buf.get(trailerOffset + 12 + i) != MAGIC[i]) {
                byte[] found = new byte[4];
                for (int j = 0; j < 4; j++) {
                    found[j] = buf.get(trailerOffset + 12 + j);
                }
                throw new CorruptTableException("Manifest " + path + " does not end with the magic \"LANC\" (found "
                        + hex(found) + " in the last 4 bytes); the file is truncated or not a Lance manifest");
            }
        }
        long position = buf.getLong(trailerOffset);
        if (position < 0 || position > size - TRAILER_SIZE - 4) {
            throw new CorruptTableException("Manifest " + path + ": the trailer points to offset " + position
                    + " for the manifest blob, outside the " + size + "-byte file");
        }
        return position;
    }

    private static lance.table.Manifest decodeManifestBlob(
            byte[] bytes, long base, long position, long size, String path) throws CorruptTableException {
        int at = (int) (position - base);
        long len = Integer.toUnsignedLong(
                ByteBuffer.wrap(bytes, at, 4).order(ByteOrder.LITTLE_ENDIAN).getInt());
        long expected = size - position - 4 - TRAILER_SIZE;
        if (len != expected) {
            throw new CorruptTableException("Manifest " + path + ": the manifest blob at offset " + position
                    + " declares " + len + " bytes but " + expected + " bytes lie between it and the trailer");
        }
        try {
            return lance.table.Manifest.parseFrom(ByteBuffer.wrap(bytes, at + 4, (int) len));
        } catch (InvalidProtocolBufferException e) {
            throw new CorruptTableException(
                    "Manifest " + path + ": the " + len + "-byte blob at offset " + position
                            + " is not a valid Manifest protobuf: " + e.getMessage(),
                    e);
        }
    }

    /** A length-prefixed blob at an absolute position, from the buffer if it holds it, else from the reader. */
    private static byte[] readBlob(
            RangeReader reader, byte[] bytes, long base, long position, long size, String path, String what)
            throws IOException {
        if (position >= base) {
            return blobAt(bytes, base, position, size, path, what);
        }
        if (position > size - 4) {
            throw outside(path, what, position, size);
        }
        ByteBuffer lenBuf = reader.read(position, 4).order(ByteOrder.LITTLE_ENDIAN);
        long len = Integer.toUnsignedLong(lenBuf.getInt(0));
        if (position + 4 + len > size - TRAILER_SIZE) {
            throw new CorruptTableException("Manifest " + path + ": the " + what + " at offset " + position
                    + " declares " + len + " bytes, past the end of the file (" + size + " bytes)");
        }
        return toArray(reader.read(position + 4, (int) len));
    }

    private static byte[] blobAt(byte[] bytes, long base, long position, long size, String path, String what)
            throws CorruptTableException {
        long at = position - base;
        if (position < base || at > bytes.length - 4) {
            throw outside(path, what, position, size);
        }
        long len = Integer.toUnsignedLong(ByteBuffer.wrap(bytes, (int) at, 4)
                .order(ByteOrder.LITTLE_ENDIAN)
                .getInt());
        if (at + 4 + len > bytes.length - TRAILER_SIZE) {
            throw new CorruptTableException("Manifest " + path + ": the " + what + " at offset " + position
                    + " declares " + len + " bytes, past the end of the file (" + size + " bytes)");
        }
        byte[] out = new byte[(int) len];
        System.arraycopy(bytes, (int) at + 4, out, 0, (int) len);
        return out;
    }

    private static CorruptTableException outside(String path, String what, long position, long size) {
        return new CorruptTableException("Manifest " + path + ": the " + what + " offset " + position
                + " is outside the " + size + "-byte file");
    }

    private static byte[] toArray(ByteBuffer b) {
        ByteBuffer d = b.duplicate();
        d.position(0);
        byte[] out = new byte[d.remaining()];
        d.get(out);
        return out;
    }

    private static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }
}
