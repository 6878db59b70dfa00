package dev.lanceflink.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;

/**
 * Sort keys of {@code dump --order-by}, ordered as the interop oracle orders its dumps (so both
 * sides of a comparison list rows identically): null first, then booleans (false before true),
 * then numbers by value, then strings by UTF-16 code units. "Strings" are the rendered JSON
 * strings of a cell: text, hex binaries, dates and timestamps (chronological within years
 * 0000–9999) and the float specials {@code "NaN"}, {@code "Infinity"}, {@code "-Infinity"}.
 * Lists and structs have no order.
 */
final class SortKeys {

    /** Compares the keys produced by {@link #key}. */
    static final Comparator<Object> ORDER = SortKeys::compare;

    private SortKeys() {}

    /** The key of cell {@code row}: null, a Boolean, a BigDecimal or a String. */
    static Object key(FieldVector v, int row) {
        if (v instanceof ListVector
                || v instanceof LargeListVector
                || v instanceof FixedSizeListVector
                || v instanceof StructVector) {
            throw new UsageException("dump: --order-by needs a column of scalars, but '" + v.getName() + "' is "
                    + ArrowJson.typeName(v.getField()));
        }
        if (v.isNull(row)) {
            return null;
        }
        if (v instanceof BitVector b) {
            return b.get(row) != 0;
        }
        if (v instanceof UInt8Vector u) {
            return new BigDecimal(Long.toUnsignedString(u.get(row)));
        }
        if (v instanceof BaseIntVector i) {
            return BigDecimal.valueOf(unsigned(v, i.getValueAsLong(row)));
        }
        if (v instanceof Float2Vector f) {
            return floatKey(f.getValueAsFloat(row));
        }
        if (v instanceof Float4Vector f) {
            return floatKey(f.get(row));
        }
        if (v instanceof Float8Vector f) {
            double d = f.get(row);
            return Double.isFinite(d) ? new BigDecimal(d) : ArrowJson.nonFinite(d);
        }
        if (v instanceof DecimalVector d) {
            return d.getObject(row);
        }
        if (v instanceof VarCharVector s) {
            return new String(s.get(row), StandardCharsets.UTF_8);
        }
        if (v instanceof LargeVarCharVector s) {
            return new String(s.get(row), StandardCharsets.UTF_8);
        }
        // Everything else sorts by its rendered text (hex, dates, timestamps).
        StringWriter text = new StringWriter();
        try (JsonGenerator g = Json.FACTORY.createGenerator(text)) {
            ArrowJson.writeValue(g, v, row);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String json = text.toString();
        return json.substring(1, json.length() - 1);
    }

    private static long unsigned(FieldVector v, long value) {
        // getValueAsLong sign-extends uint8/16/32; the dump prints them unsigned.
        if (v instanceof UInt1Vector) {
            return value & 0xFFL;
        }
        if (v instanceof UInt2Vector) {
            return value & 0xFFFFL;
        }
        if (v instanceof UInt4Vector) {
            return value & 0xFFFF_FFFFL;
        }
        return value;
    }

    /** Exact value of a finite float (order-preserving, like its shortest decimal), else its name. */
    private static Object floatKey(float f) {
        return Float.isFinite(f) ? new BigDecimal(f) : ArrowJson.nonFinite(f);
    }

    private static int rank(Object key) {
        if (key == null) {
            return 0;
        }
        if (key instanceof Boolean) {
            return 1;
        }
        return key instanceof BigDecimal ? 2 : 3;
    }

    private static int compare(Object a, Object b) {
        int ra = rank(a);
        int rb = rank(b);
        if (ra != rb) {
            return Integer.compare(ra, rb);
        }
        return switch (ra) {
            case 0 -> 0;
            case 1 -> Boolean.compare((Boolean) a, (Boolean) b);
            case 2 -> ((BigDecimal) a).compareTo((BigDecimal) b);
            default -> ((String) a).compareTo((String) b);
        };
    }
}
