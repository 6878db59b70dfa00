package dev.lanceflink.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.BitSet;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link ColumnSet} against {@link BitSet} as the reference, on sets around the word borders
 * (63, 64, 127, 128) and up to 300 columns, and its allocation-free cases returning an operand.
 */
class ColumnSetTest {

    @Test
    void holdsPositionsOnBothSidesOfEveryWordBorder() {
        ColumnSet s = ColumnSet.of(0, 63, 64, 127, 128, 299);
        assertThat(s.toArray()).containsExactly(0, 63, 64, 127, 128, 299);
        assertThat(s.size()).isEqualTo(6);
        for (int p : new int[] {1, 62, 65, 126, 129, 298, 300, 1_000}) {
            assertThat(s.contains(p)).as("position %s", p).isFalse();
        }
        assertThat(s.contains(-1)).isFalse();
        assertThat(s.indexOf(-1)).isEqualTo(-1);
        assertThat(s.indexOf(63)).isEqualTo(1);
        assertThat(s.indexOf(128)).isEqualTo(4);
        assertThat(s.indexOf(299)).isEqualTo(5);
        assertThat(s.indexOf(1_000)).isEqualTo(-1);
        assertThat(s.wordCount()).isEqualTo(5);
        assertThat(s.word(0)).isEqualTo(1L | 1L << 63);
        assertThat(s.word(1)).isEqualTo(1L | 1L << 63);
        assertThat(s.word(2)).isEqualTo(1L);
        assertThat(s.word(3)).isZero();
        assertThat(s.word(4)).isEqualTo(1L << (299 - 256));
        assertThat(s.word(5)).isZero();
        assertThat(s.fitsInMask()).isFalse();
        assertThat(s).hasToString("{0, 63, 64, 127, 128, 299}");
    }

    @Test
    void firstColumnsIsEveryPositionBelowTheCount() {
        for (int n : new int[] {0, 1, 63, 64, 65, 127, 128, 129, 300}) {
            ColumnSet all = ColumnSet.firstColumns(n);
            assertThat(all.size()).as("count %s", n).isEqualTo(n);
            assertThat(all.next(0)).isEqualTo(n == 0 ? -1 : 0);
            assertThat(all.contains(n - 1)).isEqualTo(n > 0);
            assertThat(all.contains(n)).isFalse();
            BitSet expected = new BitSet();
            expected.set(0, n);
            assertThat(all).isEqualTo(fromBitSet(expected));
        }
        assertThat(ColumnSet.firstColumns(64).asMask()).isEqualTo(-1L);
        assertThat(ColumnSet.firstColumns(3).asMask()).isEqualTo(0b111);
        assertThatThrownBy(() -> ColumnSet.firstColumns(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aMaskRoundTripsAndWideSetsHaveNone() {
        assertThat(ColumnSet.fromMask(0b1011).toArray()).containsExactly(0, 1, 3);
        assertThat(ColumnSet.fromMask(0b1011).asMask()).isEqualTo(0b1011);
        assertThat(ColumnSet.fromMask(Long.MIN_VALUE).toArray()).containsExactly(63);
        assertThat(ColumnSet.fromMask(0)).isSameAs(ColumnSet.EMPTY);
        assertThatThrownBy(() -> ColumnSet.of(64).asMask())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("{64}");
    }

    @Test
    void equalSetsAreEqualWhateverTheyWereBuiltFrom() {
        ColumnSet a = ColumnSet.of(3, 200);
        ColumnSet b = ColumnSet.fromWords(new long[] {1L << 3, 0, 0, 1L << (200 - 192), 0, 0});
        ColumnSet c = ColumnSet.of(3, 200, 250).minus(ColumnSet.of(250));
        assertThat(a).isEqualTo(b).isEqualTo(c).hasSameHashCodeAs(b).hasSameHashCodeAs(c);
        assertThat(c.wordCount()).isEqualTo(4);
        // A wide set emptied above 63 is a plain mask again.
        ColumnSet narrowed = ColumnSet.of(5, 100).minus(ColumnSet.of(100));
        assertThat(narrowed).isEqualTo(ColumnSet.fromMask(1L << 5));
        assertThat(narrowed.fitsInMask()).isTrue();
        assertThat(ColumnSet.of().isEmpty()).isTrue();
        assertThat(ColumnSet.of(70).minus(ColumnSet.of(70))).isEqualTo(ColumnSet.EMPTY);
        assertThat(ColumnSet.fromWords(new long[] {0, 0})).isEqualTo(ColumnSet.EMPTY);
        assertThat(ColumnSet.EMPTY.wordCount()).isZero();
        assertThat(ColumnSet.EMPTY.first()).isEqualTo(-1);
    }

    @Test
    void setOperationsAgreeWithBitSetOnRandomSetsOfUpTo300Columns() {
        Random random = new Random(16);
        for (int round = 0; round < 2_000; round++) {
            BitSet x = randomBits(random);
            BitSet y = randomBits(random);
            ColumnSet a = fromBitSet(x);
            ColumnSet b = fromBitSet(y);
            assertThat(a.toArray()).isEqualTo(x.stream().toArray());
            assertThat(a.size()).isEqualTo(x.cardinality());
            assertThat(a.isEmpty()).isEqualTo(x.isEmpty());
            assertThat(a.fitsInMask()).isEqualTo(x.length() <= 64);
            assertThat(a.wordCount()).isEqualTo((x.length() + 63) / 64);
            for (int w = 0; w < 6; w++) {
                long[] words = x.toLongArray();
                assertThat(a.word(w)).isEqualTo(w < words.length ? words[w] : 0);
            }
            for (int p = 0; p < 320; p++) {
                assertThat(a.contains(p)).isEqualTo(x.get(p));
                assertThat(a.next(p)).isEqualTo(x.nextSetBit(p));
                assertThat(a.indexOf(p)).isEqualTo(x.get(p) ? x.get(0, p).cardinality() : -1);
            }

            BitSet or = (BitSet) x.clone();
            or.or(y);
            BitSet and = (BitSet) x.clone();
            and.and(y);
            BitSet andNot = (BitSet) x.clone();
            andNot.andNot(y);
            BitSet yAndNotX = (BitSet) y.clone();
            yAndNotX.andNot(x);
            assertThat(a.union(b)).isEqualTo(fromBitSet(or));
            assertThat(a.intersection(b)).isEqualTo(fromBitSet(and));
            assertThat(a.minus(b)).isEqualTo(fromBitSet(andNot));
            assertThat(a.intersects(b)).isEqualTo(x.intersects(y));
            assertThat(a.containsAll(b)).isEqualTo(yAndNotX.isEmpty());
            assertThat(a.equals(b)).isEqualTo(x.equals(y));
            assertThat(ColumnSet.fromWords(x.toLongArray())).isEqualTo(a);
            assertThat(ColumnSet.builder().addAll(a).addAll(b).build()).isEqualTo(fromBitSet(or));
        }
    }

    @Test
    void operationsWhoseResultIsAnOperandReturnItWithoutAllocating() {
        ColumnSet wide = ColumnSet.of(1, 2, 90, 299);
        ColumnSet part = ColumnSet.of(2, 299);
        assertThat(wide.union(part)).isSameAs(wide);
        assertThat(part.union(wide)).isSameAs(wide);
        assertThat(wide.intersection(part)).isSameAs(part);
        assertThat(part.intersection(wide)).isSameAs(part);
        assertThat(wide.minus(ColumnSet.of(5, 100))).isSameAs(wide);
        ColumnSet narrow = ColumnSet.fromMask(0b110);
        assertThat(narrow.union(ColumnSet.fromMask(0b010))).isSameAs(narrow);
    }

    @Test
    void theBuilderGrowsAndCanBuildAgain() {
        ColumnSet.Builder b = ColumnSet.builder().add(299).add(0).add(299);
        ColumnSet first = b.build();
        b.add(64);
        assertThat(first.toArray()).containsExactly(0, 299);
        assertThat(b.build().toArray()).containsExactly(0, 64, 299);
        assertThatThrownBy(() -> ColumnSet.builder().add(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-1");
    }

    @Test
    void javaSerializationKeepsTheSet() throws Exception {
        // Operators and functions that hold a set are shipped to the cluster by Java serialization.
        for (ColumnSet s : new ColumnSet[] {ColumnSet.EMPTY, ColumnSet.fromMask(0b101), ColumnSet.of(7, 64, 299)}) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
                out.writeObject(s);
            }
            try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
                ColumnSet back = (ColumnSet) in.readObject();
                assertThat(back).isEqualTo(s).hasSameHashCodeAs(s);
                assertThat(back.toArray()).isEqualTo(s.toArray());
            }
        }
    }

    private static BitSet randomBits(Random random) {
        BitSet b = new BitSet();
        int width = switch (random.nextInt(4)) {
            case 0 -> 64;
            case 1 -> 65;
            case 2 -> 130;
            default -> 300;
        };
        int count = random.nextInt(4) == 0 ? 0 : random.nextInt(width / 2 + 1);
        for (int i = 0; i < count; i++) {
            b.set(random.nextInt(width));
        }
        return b;
    }

    private static ColumnSet fromBitSet(BitSet bits) {
        return ColumnSet.of(bits.stream().toArray());
    }
}
