package dev.lanceflink.encoding.v21;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import lance.encodings21.CompressiveEncoding;
import lance.encodings21.ConstantLayout;

/**
 * A constant or all-null page (file-format.md §8.5, compression.md §3.12): every visible value
 * equals one scalar (2.2 {@code inline_value} or a scalar buffer), or every value is null. Rep/def
 * levels, when present, are whole-page buffers (raw u16, or block-compressed in 2.2); they are
 * loaded once, on the first read.
 */
public final class ConstantPage implements StructuralPage {
    private final ConstantLayout layout;
    private final PageBufferSource source;
    private final long numRows;
    private final RepDefLayers layers;
    /** One slot holding the constant, or null for an all-null page. */
    private final Values constant;

    private final int repBuffer;
    private final int defBuffer;

    private short[] rep;
    private short[] def;
    private int numLevels = -1;
    /** Entry index where each row starts (only with repetition), plus the end. */
    private int[] rowStartEntries;

    public ConstantPage(ConstantLayout layout, PageBufferSource source, long numRows, Values valueShape)
            throws IOException {
        this.layout = layout;
        this.source = source;
        this.numRows = numRows;
        this.layers = RepDefLayers.of(layout.getLayersList());
        int n = source.bufferCount();
        boolean inline = layout.hasInlineValue();
        boolean scalarBuffer = !inline && (n == 1 || n == 3);
        if (n > 3) {
            throw new EncodingException("constant page has " + n + " buffers (at most scalar, rep, def)");
        }
        if (inline) {
            constant = inlineConstant(layout.getInlineValue().toByteArray(), valueShape);
        } else if (scalarBuffer) {
            constant = scalarConstant(source.readAll(0), valueShape);
        } else {
            constant = null;
        }
        int levelBase = scalarBuffer ? 1 : 0;
        if (n - levelBase == 2) {
            repBuffer = levelBase;
            defBuffer = levelBase + 1;
        } else if (n - levelBase == 0) {
            repBuffer = -1;
            defBuffer = -1;
        } else {
            throw new EncodingException("constant page has " + n + " buffers; expected rep and def buffers after "
                    + (scalarBuffer ? "the scalar buffer" : "nothing"));
        }
    }

    private static Values inlineConstant(byte[] v, Values shape) {
        if (shape instanceof FixedWidthValues f) {
            if (f.bitsPerValue() == 1) {
                return FixedWidthValues.wrap(1, new byte[] {(byte) (v.length > 0 ? v[0] & 1 : 0)}, 1);
            }
            if (v.length * 8 != f.bitsPerValue()) {
                throw new EncodingException("inline constant of " + v.length + " bytes does not match the column's "
                        + f.bitsPerValue() + "-bit values");
            }
            return FixedWidthValues.wrap(f.bitsPerValue(), v, 1);
        }
        throw new EncodingException("an inline constant value cannot fill a column of "
                + shape.getClass().getSimpleName());
    }

    /** {@code [u32 m][m × u32 lengths][buffers]}: the Arrow buffers of a one-value array. */
    private static Values scalarConstant(ByteBuffer b, Values shape) {
        int m = b.getInt(0);
        if (m < 1 || m > 3 || b.remaining() < 4 + 4L * m) {
            throw new EncodingException(
                    "scalar buffer declares " + m + " Arrow buffers in " + b.remaining() + " bytes");
        }
        int[] lens = new int[m];
        int p = 4 + 4 * m;
        int[] starts = new int[m];
        for (int i = 0; i < m; i++) {
            lens[i] = b.getInt(4 + 4 * i);
            starts[i] = p;
            p += lens[i];
        }
        if (p > b.remaining()) {
            throw new EncodingException("scalar buffer's Arrow buffers need " + p + " bytes, it has " + b.remaining());
        }
        if (shape instanceof VariableWidthValues) {
            if (m != 2 || (lens[0] != 8 && lens[0] != 16)) {
                throw new EncodingException(
                        "a string/binary scalar needs an offsets and a data buffer, got " + m + " buffers");
            }
            long start = lens[0] == 8 ? b.getInt(starts[0]) : b.getLong(starts[0]);
            long end = lens[0] == 8 ? b.getInt(starts[0] + 4) : b.getLong(starts[0] + 8);
            if (start < 0 || end < start || end > lens[1]) {
                throw new EncodingException(
                        "scalar offsets [" + start + ", " + end + ") exceed its " + lens[1] + "-byte data");
            }
            byte[] data = new byte[(int) (end - start)];
            b.get(starts[1] + (int) start, data);
            return VariableWidthValues.wrap(new long[] {0, data.length}, data, 1);
        }
        if (shape instanceof FixedWidthValues f) {
            byte[] v = new byte[lens[m - 1]];
            b.get(starts[m - 1], v);
            return inlineConstant(v, f);
        }
        throw new EncodingException(
                "a scalar constant cannot fill a column of " + shape.getClass().getSimpleName());
    }

    @Override
    public long numRows() {
        return numRows;
    }

    private void loadLevels() throws IOException {
        if (numLevels >= 0) {
            return;
        }
        if (repBuffer < 0) {
            numLevels = Math.toIntExact(numRows);
            return;
        }
        rep = levels(
                repBuffer, layout.hasRepCompression() ? layout.getRepCompression() : null, layout.getNumRepValues());
        def = levels(
                defBuffer, layout.hasDefCompression() ? layout.getDefCompression() : null, layout.getNumDefValues());
        if (rep != null && def != null && rep.length != def.length) {
            throw new EncodingException(
                    "constant page has " + rep.length + " rep levels but " + def.length + " def levels");
        }
        numLevels = rep != null ? rep.length : def != null ? def.length : Math.toIntExact(numRows);
        if (def != null) {
            layers.canonicalize(def, 0, def.length);
        }
        if (layers.maxRep() > 0) {
            if (rep == null) {
                throw new EncodingException("constant page of a list column has no repetition levels");
            }
            rowStartEntries = new int[Math.toIntExact(numRows) + 1];
            int r = 0;
            for (int i = 0; i < numLevels; i++) {
                if (rep[i] == layers.maxRep()) {
                    if (r >= numRows) {
                        throw new EncodingException("constant page levels start more rows than its " + numRows);
                    }
                    rowStartEntries[r++] = i;
                }
            }
            if (r != numRows) {
                throw new EncodingException("constant page levels start " + r + " rows, the page has " + numRows);
            }
            rowStartEntries[r] = numLevels;
        } else if (numLevels != numRows) {
            throw new EncodingException(
                    "constant page without lists has " + numLevels + " levels for " + numRows + " rows");
        }
    }

    private short[] levels(int buffer, CompressiveEncoding enc, long count) throws IOException {
        long size = source.bufferSize(buffer);
        if (size == 0) {
            return null;
        }
        ByteBuffer b = source.readAll(buffer).order(ByteOrder.LITTLE_ENDIAN);
        if (enc == null) {
            if (size % 2 != 0) {
                throw new EncodingException("raw u16 level buffer has an odd size " + size);
            }
            short[] out = new short[(int) (size / 2)];
            for (int i = 0; i < out.length; i++) {
                out[i] = b.getShort(2 * i);
            }
            return out;
        }
        return BlockDecoder.decodeLevels(enc, b, Math.toIntExact(count));
    }

    @Override
    public void readRows(long from, long to, LeafLevels levels, Values values) throws IOException {
        loadLevels();
        int a;
        int b;
        if (rowStartEntries != null) {
            a = rowStartEntries[(int) from];
            b = rowStartEntries[(int) to];
        } else {
            a = (int) from;
            b = (int) to;
        }
        int visible;
        if (def == null) {
            short d = constant == null ? layers.canonical(Math.min(1, layers.maxDef())) : 0;
            if (rep == null) {
                levels.appendRepeated((short) layers.maxRep(), d, b - a);
            } else {
                levels.append(rep, null, a, b);
                if (d != 0) {
                    throw new EncodingException("all-null constant page with repetition but no definition levels");
                }
            }
            visible = layers.visible(d) ? b - a : 0;
        } else {
            levels.append(rep, def, a, b);
            visible = 0;
            for (int i = a; i < b; i++) {
                if (layers.visible(def[i])) {
                    visible++;
                }
            }
        }
        if (constant == null) {
            values.appendPlaceholders(visible);
        } else {
            for (int i = 0; i < visible; i++) {
                values.append(constant, 0, 1);
            }
        }
    }
}
