package dev.lanceflink.file.writer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.api.Test;

class BitBuilderTest {

    /** addRepeated fills whole bytes at once: every start and length around byte boundaries. */
    @Test
    void addRepeatedMatchesBitByBit() {
        Random random = new Random(17);
        for (int lead = 0; lead < 10; lead++) {
            for (int count = 0; count < 40; count++) {
                for (boolean bit : new boolean[] {true, false}) {
                    BitBuilder bulk = new BitBuilder();
                    BitBuilder single = new BitBuilder();
                    boolean[] leading = new boolean[lead];
                    for (int i = 0; i < lead; i++) {
                        leading[i] = random.nextBoolean();
                        bulk.add(leading[i]);
                        single.add(leading[i]);
                    }
                    bulk.addRepeated(bit, count);
                    for (int i = 0; i < count; i++) {
                        single.add(bit);
                    }
                    bulk.add(false);
                    single.add(false);
                    bulk.add(true);
                    single.add(true);
                    assertEquals(single.size(), bulk.size());
                    for (long i = 0; i < single.size(); i++) {
                        assertEquals(single.get(i), bulk.get(i), "bit " + i + " after " + lead + " + " + count);
                    }
                }
            }
        }
    }

    @Test
    void addRepeatedGrowsAcrossTheInitialCapacity() {
        BitBuilder b = new BitBuilder();
        b.add(true);
        b.addRepeated(true, 128 * 8 * 5 + 3); // beyond the initial 128 bytes
        b.add(false);
        assertEquals(128 * 8 * 5 + 5, b.size());
        for (long i = 0; i < b.size() - 1; i++) {
            assertEquals(true, b.get(i), "bit " + i);
        }
        assertEquals(false, b.get(b.size() - 1));
    }
}
