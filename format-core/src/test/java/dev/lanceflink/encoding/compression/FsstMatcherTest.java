package dev.lanceflink.encoding.compression;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The matcher's greedy longest match against the definition: every symbol tried, longest first. */
class FsstMatcherTest {

    /**
     * The longest symbol matching at {@code pos}; among equal long symbols the lowest code, among
     * equal 1- and 2-byte ones the highest (the matcher's rule for tables with duplicates).
     */
    private static int reference(int count, long[] symbols, byte[] lengths, byte[] src, int pos, int end) {
        for (int len = Math.min(8, end - pos); len >= 1; len--) {
            long word = 0;
            for (int k = 0; k < len; k++) {
                word |= (src[pos + k] & 0xFFL) << (8 * k);
            }
            int found = -1;
            for (int c = 0; c < count; c++) {
                if (lengths[c] == len && symbols[c] == word) {
                    found = c;
                    if (len >= 3) {
                        break;
                    }
                }
            }
            if (found >= 0) {
                return found | len << 8;
            }
        }
        return -1;
    }

    private static void assertMatchesReference(int count, long[] symbols, byte[] lengths, byte[] src) {
        FsstMatcher matcher = new FsstMatcher(count, symbols, lengths);
        for (int pos = 0; pos < src.length; pos++) {
            for (int end = pos + 1; end <= Math.min(src.length, pos + 10); end++) {
                assertThat(matcher.match(src, pos, end))
                        .as("at %d, end %d", pos, end)
                        .isEqualTo(reference(count, symbols, lengths, src, pos, end));
            }
        }
    }

    private static long word(byte[] b, int off, int len) {
        long w = 0;
        for (int k = 0; k < len; k++) {
            w |= (b[off + k] & 0xFFL) << (8 * k);
        }
        return w;
    }

    /** Many symbols sharing their first bytes (names like user-123456), of every length 1 … 8. */
    @Test
    void symbolsSharingAPrefixMatchLongestFirst() {
        byte[] text = "user-1user-12user-123user-1234user-12345user-123456 use us u user-9xuser-"
                .getBytes(StandardCharsets.US_ASCII);
        String[] syms = {
            "user-",
            "user-1",
            "user-12",
            "user-123",
            "use",
            "user",
            "us",
            "u",
            "ser-1234",
            "r-12",
            "-123456",
            "1",
            "2",
            "3",
            "45",
            "user-9",
            "user-99",
            "ser",
            "er-"
        };
        long[] symbols = new long[syms.length];
        byte[] lengths = new byte[syms.length];
        for (int c = 0; c < syms.length; c++) {
            byte[] b = syms[c].getBytes(StandardCharsets.US_ASCII);
            symbols[c] = word(b, 0, b.length);
            lengths[c] = (byte) b.length;
        }
        assertMatchesReference(syms.length, symbols, lengths, text);
    }

    /** Random tables over a small alphabet (dense prefixes, duplicate symbols) and random text. */
    @Test
    void randomTablesWithDuplicatesMatchTheDefinition() {
        Random random = new Random(42);
        for (int round = 0; round < 200; round++) {
            int alphabet = 2 + random.nextInt(4);
            byte[] text = new byte[300];
            for (int i = 0; i < text.length; i++) {
                text[i] = (byte) ('a' + random.nextInt(alphabet));
            }
            int count = 1 + random.nextInt(255);
            long[] symbols = new long[count];
            byte[] lengths = new byte[count];
            for (int c = 0; c < count; c++) {
                int len = 1 + random.nextInt(8);
                int at = random.nextInt(text.length - 8);
                symbols[c] = word(text, at, len); // mostly symbols that occur, some twice
                lengths[c] = (byte) len;
            }
            assertMatchesReference(count, symbols, lengths, text);
        }
    }
}
