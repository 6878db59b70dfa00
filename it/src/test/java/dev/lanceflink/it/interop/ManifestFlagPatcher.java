package dev.lanceflink.it.interop;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * Test tool: rewrites the feature-flag words of a Lance manifest in place, so tests can check
 * how the official SDK treats a dataset whose flags it does not know (e.g. 64 = data overlay
 * files) without needing our writer.
 *
 * <p>Manifest file layout: protobuf blobs, each {@code u32 LE length + bytes}, the
 * {@code Manifest} blob last, then a 16-byte trailer {@code i64 LE position of the Manifest
 * blob, u16 0, u16 2, "LANC"}. The Manifest's {@code reader_feature_flags} is field 9 and
 * {@code writer_feature_flags} field 10, both varint uint64 (omitted when 0). Only the last blob
 * changes length, so no other offset moves.
 */
public final class ManifestFlagPatcher {

    /** Manifest field number of {@code reader_feature_flags}. */
    public static final int READER_FLAGS = 9;
    /** Manifest field number of {@code writer_feature_flags}. */
    public static final int WRITER_FLAGS = 10;

    private ManifestFlagPatcher() {}

    /**
     * Sets {@code field} of the manifest of the only version of {@code dataset} to its current
     * value OR {@code bits}.
     */
    public static void addFlags(Path dataset, int field, long bits) throws IOException {
        Path manifest;
        try (Stream<Path> files = Files.list(dataset.resolve("_versions"))) {
            List<Path> manifests =
                    files.filter(p -> p.toString().endsWith(".manifest")).toList();
            if (manifests.size() != 1) {
                throw new IllegalArgumentException(dataset + "/_versions holds " + manifests.size()
                        + " manifests; this tool patches single-version datasets only");
            }
            manifest = manifests.get(0);
        }
        byte[] file = Files.readAllBytes(manifest);
        ByteBuffer le = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
        if (file.length < 20 || le.getInt(file.length - 4) != 0x434E414C) { // "LANC" little-endian
            throw new IllegalArgumentException(manifest + ": no LANC trailer");
        }
        int position = Math.toIntExact(le.getLong(file.length - 16));
        int length = le.getInt(position);
        if (position + 4 + length != file.length - 16) {
            throw new IllegalArgumentException(manifest + ": manifest blob at " + position + " with length " + length
                    + " does not end at the trailer");
        }
        byte[] patched = patch(file, position + 4, position + 4 + length, field, bits);
        ByteArrayOutputStream out = new ByteArrayOutputStream(file.length + 16);
        out.write(file, 0, position);
        out.write(ByteBuffer.allocate(4)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putInt(patched.length)
                .array());
        out.write(patched);
        out.write(file, file.length - 16, 16);
        Files.write(manifest, out.toByteArray());
    }

    private static byte[] patch(byte[] buf, int start, int end, int field, long bits) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(end - start + 12);
        boolean found = false;
        int[] pos = {start};
        while (pos[0] < end) {
            int fieldStart = pos[0];
            long key = readVarint(buf, pos);
            int wireType = (int) (key & 7);
            if (wireType == 0) {
                long value = readVarint(buf, pos);
                if ((key >>> 3) == field) {
                    writeVarint(out, key);
                    writeVarint(out, value | bits);
                    found = true;
                    continue;
                }
            } else if (wireType == 2) {
                long len = readVarint(buf, pos);
                pos[0] += Math.toIntExact(len);
            } else if (wireType == 1) {
                pos[0] += 8;
            } else if (wireType == 5) {
                pos[0] += 4;
            } else {
                throw new IllegalArgumentException(
                        "unsupported protobuf wire type " + wireType + " at manifest offset " + (fieldStart - start));
            }
            out.write(buf, fieldStart, pos[0] - fieldStart);
        }
        if (!found) {
            writeVarint(out, (long) field << 3);
            writeVarint(out, bits);
        }
        return out.toByteArray();
    }

    private static long readVarint(byte[] buf, int[] pos) {
        long value = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            byte b = buf[pos[0]++];
            value |= (long) (b & 0x7F) << shift;
            if (b >= 0) {
                return value;
            }
        }
        throw new IllegalArgumentException("varint longer than 10 bytes at " + (pos[0] - 10));
    }

    private static void writeVarint(ByteArrayOutputStream out, long value) {
        while ((value & ~0x7FL) != 0) {
            out.write((int) ((value & 0x7F) | 0x80));
            value >>>= 7;
        }
        out.write((int) value);
    }
}
