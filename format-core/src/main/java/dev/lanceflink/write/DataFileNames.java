package dev.lanceflink.write;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Random;

/**
 * Names of new data files, built the way Lance builds them (table-format.md §2.1): from 16 random
 * bytes, the first 3 rendered as 24 binary digits (they spread keys over S3 partitions) and the
 * other 13 as 26 lowercase hex digits, then {@code .lance}. Readers never parse the name.
 */
public final class DataFileNames {
    private static final Random RANDOM = new SecureRandom();

    private DataFileNames() {}

    /** A fresh file name such as {@code 101100...e1.lance} (no directory). */
    public static String newName() {
        byte[] b = new byte[16];
        RANDOM.nextBytes(b);
        b[6] = (byte) ((b[6] & 0x0F) | 0x40); // a version-4 UUID's bits, as Lance's uuid has
        b[8] = (byte) ((b[8] & 0x3F) | 0x80);
        StringBuilder sb = new StringBuilder(56);
        for (int i = 0; i < 3; i++) {
            for (int bit = 7; bit >= 0; bit--) {
                sb.append((b[i] >> bit & 1) == 1 ? '1' : '0');
            }
        }
        return sb.append(HexFormat.of().formatHex(b, 3, 16)).append(".lance").toString();
    }
}
