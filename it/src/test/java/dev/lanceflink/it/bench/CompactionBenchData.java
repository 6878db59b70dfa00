package dev.lanceflink.it.bench;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The table and the overlay history of issue #7's compaction benchmark ({@link CompactionBenchmark}),
 * with the model of what every cell holds after the history, so each scan can be checked.
 *
 * <p>Table: {@code id int64, value int32, text utf8, vector fixed_size_list<float32, 32>}; row
 * {@code i} (in write order) has {@code id = i}, {@code value = i % 1000}, a text of 11 to 20
 * bytes and a vector derived from {@code i}.
 *
 * <p>History: commit {@code c} updates, in every fragment, the rows whose fragment offset is
 * {@code ≡ r(c) (mod 100)} (1% of the rows) with {@code r(c) = 7c mod 20}, so every row set comes
 * back about every 20 commits and later commits shadow earlier ones, as hot rows do. Even commits
 * are dense (both {@code value} and {@code text} of the same rows: one shared coverage bitmap);
 * odd commits are sparse ({@code value} of those rows, {@code text} of the rows at residue
 * {@code r(c) + 50}: one coverage bitmap per field).
 */
final class CompactionBenchData {
    static final int DIM = 32;
    /** One row in {@code STRIDE} of each fragment is touched per commit and column: 1%. */
    static final int STRIDE = 100;
    /** Distinct row sets of the {@code value} column; a commit reuses the set of commit {@code c - 20}. */
    static final int ROW_SETS = 20;
    /** Residue offset of the {@code text} rows of a sparse commit. */
    static final int SPARSE_TEXT_SHIFT = 50;

    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("value", FieldType.notNullable(new ArrowType.Int(32, true)), null),
            new Field("text", FieldType.nullable(new ArrowType.Utf8()), null),
            new Field(
                    "vector",
                    FieldType.nullable(new ArrowType.FixedSizeList(DIM)),
                    List.of(new Field(
                            "item",
                            FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
                            null)))));
    private static final String[] WORDS = {
        "lance", "flink", "overlay", "vector", "stream", "commit", "table", "fragment", "column", "arrow"
    };

    private CompactionBenchData() {}

    /** Rows {@code [from, from + count)} of the base table. */
    static VectorSchemaRoot batch(BufferAllocator allocator, int from, int count) {
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
        BigIntVector id = (BigIntVector) root.getVector("id");
        IntVector value = (IntVector) root.getVector("value");
        VarCharVector text = (VarCharVector) root.getVector("text");
        FixedSizeListVector vector = (FixedSizeListVector) root.getVector("vector");
        id.allocateNew(count);
        value.allocateNew(count);
        text.allocateNew((long) count * 24, count);
        vector.allocateNew();
        Float4Vector items = (Float4Vector) vector.getDataVector();
        items.allocateNew(count * DIM);
        for (int r = 0; r < count; r++) {
            int i = from + r;
            id.set(r, i);
            value.set(r, baseValue(i));
            text.setSafe(r, baseText(i));
            vector.setNotNull(r);
            for (int j = 0; j < DIM; j++) {
                items.set(r * DIM + j, ((i * 31 + j * 7) % 1000) / 1000f);
            }
        }
        items.setValueCount(count * DIM);
        root.setRowCount(count);
        return root;
    }

    static int baseValue(long row) {
        return (int) (row % 1000);
    }

    static byte[] baseText(long row) {
        return (WORDS[(int) (row % 10)] + "-" + row).getBytes(StandardCharsets.UTF_8);
    }

    /** The {@code value} commit {@code c} gives row {@code row}; distinct from every base value. */
    static int updatedValue(int commit, long row) {
        return (commit + 1) * 10_000 + (int) (row % 10_000);
    }

    static byte[] updatedText(int commit, long row) {
        return ("c" + commit + "-" + row).getBytes(StandardCharsets.UTF_8);
    }

    /** Commits with even numbers update both columns of the same rows (a dense overlay). */
    static boolean dense(int commit) {
        return commit % 2 == 0;
    }

    /** Fragment offsets {@code ≡ valueResidue(c) (mod STRIDE)} get a new {@code value} in commit {@code c}. */
    static int valueResidue(int commit) {
        return commit * 7 % ROW_SETS;
    }

    static int textResidue(int commit) {
        return dense(commit) ? valueResidue(commit) : valueResidue(commit) + SPARSE_TEXT_SHIFT;
    }

    /** The ascending offsets {@code < physicalRows} that are {@code ≡ residue (mod STRIDE)}. */
    static long[] offsets(int residue, long physicalRows) {
        if (residue >= physicalRows) {
            return new long[0];
        }
        long[] out = new long[(int) ((physicalRows - 1 - residue) / STRIDE + 1)];
        for (int k = 0; k < out.length; k++) {
            out[k] = residue + (long) k * STRIDE;
        }
        return out;
    }

    /** Polynomial hash of one UTF-8 cell, the same one the scans compute straight from the Arrow buffer. */
    static long hash(byte[] utf8) {
        long h = 0;
        for (byte b : utf8) {
            h = h * 31 + (b & 0xff);
        }
        return h;
    }

    /**
     * Which commit last wrote each cell of {@code value} and {@code text} (-1: the base value),
     * row by row in write order, and from that the value sum and text hash sum every scan must
     * produce.
     */
    static final class Model {
        private final long[] fragmentStarts;
        private final long[] fragmentRows;
        private final short[] valueCommit;
        private final short[] textCommit;

        /** @param fragmentRows physical rows of each fragment, in scan order (= write order) */
        Model(long[] fragmentRows) {
            this.fragmentRows = fragmentRows.clone();
            this.fragmentStarts = new long[fragmentRows.length];
            long total = 0;
            for (int f = 0; f < fragmentRows.length; f++) {
                fragmentStarts[f] = total;
                total += fragmentRows[f];
            }
            valueCommit = new short[Math.toIntExact(total)];
            textCommit = new short[valueCommit.length];
            Arrays.fill(valueCommit, (short) -1);
            Arrays.fill(textCommit, (short) -1);
        }

        /** The row number (write order) of {@code offset} in the fragment at position {@code f}. */
        long row(int f, long offset) {
            return fragmentStarts[f] + offset;
        }

        long rows() {
            return valueCommit.length;
        }

        /** Records commit {@code commit} (which must follow the previous one). */
        void apply(int commit) {
            if (commit > Short.MAX_VALUE) {
                throw new IllegalArgumentException("The model tracks at most " + Short.MAX_VALUE + " commits");
            }
            for (int f = 0; f < fragmentRows.length; f++) {
                for (long o : offsets(valueResidue(commit), fragmentRows[f])) {
                    valueCommit[(int) row(f, o)] = (short) commit;
                }
                for (long o : offsets(textResidue(commit), fragmentRows[f])) {
                    textCommit[(int) row(f, o)] = (short) commit;
                }
            }
        }

        long valueSum() {
            long sum = 0;
            for (int i = 0; i < valueCommit.length; i++) {
                sum += valueCommit[i] < 0 ? baseValue(i) : updatedValue(valueCommit[i], i);
            }
            return sum;
        }

        long textHashSum() {
            long sum = 0;
            for (int i = 0; i < textCommit.length; i++) {
                sum += hash(textCommit[i] < 0 ? baseText(i) : updatedText(textCommit[i], i));
            }
            return sum;
        }
    }
}
