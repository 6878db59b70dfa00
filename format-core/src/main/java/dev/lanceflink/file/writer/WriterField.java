package dev.lanceflink.file.writer;

import java.util.List;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * The writer's view of one Lance field: its id, how its Arrow data is laid out, and its Lance
 * children. Fixed-size lists are leaves here (Lance gives them no child field); their element
 * type is folded into {@link #byteWidth}/{@link #dimension}. A map is a list-like node whose
 * single child is the entries struct.
 */
record WriterField(
        int id,
        String name,
        boolean nullable,
        Kind kind,
        int byteWidth,
        int dimension,
        ArrowType arrowType,
        List<WriterField> children) {

    /** Physical shapes the writer distinguishes. */
    enum Kind {
        /** Bit-packed booleans. */
        BOOL,
        /** Fixed-width values of {@code byteWidth} bytes (ints, floats, dates, decimals, fixed binary). */
        FIXED,
        /** utf8/binary ({@code byteWidth} = 4: i32 offsets) and their large variants (8: i64 offsets). */
        VARIABLE,
        /** fixed_size_list of {@code dimension} fixed-width items of {@code byteWidth} bytes. */
        FSL,
        STRUCT,
        LIST,
        LARGE_LIST,
        /**
         * A map: physically a list (i32 offsets) of its non-null entries struct {@code <key, value>},
         * which is how Lance encodes it (its structural list encoder takes list and map arrays
         * alike). Only file version 2.2 and later may hold maps.
         */
        MAP;

        boolean isList() {
            return this == LIST || this == LARGE_LIST || this == MAP;
        }

        boolean isLeaf() {
            return this != STRUCT && !isList();
        }
    }

    /**
     * Classifies an Arrow field. {@code children} are the already converted Lance children
     * (struct members, or the single list item).
     */
    static WriterField of(int id, Field arrow, List<WriterField> children) {
        ArrowType t = arrow.getType();
        String name = arrow.getName();
        boolean nullable = arrow.isNullable();
        return switch (t.getTypeID()) {
            case Bool -> new WriterField(id, name, nullable, Kind.BOOL, 0, 0, t, List.of());
            case Utf8, Binary -> new WriterField(id, name, nullable, Kind.VARIABLE, 4, 0, t, List.of());
            case LargeUtf8, LargeBinary -> new WriterField(id, name, nullable, Kind.VARIABLE, 8, 0, t, List.of());
            case Struct -> new WriterField(id, name, nullable, Kind.STRUCT, 0, 0, t, List.copyOf(children));
            case List -> new WriterField(id, name, nullable, Kind.LIST, 0, 0, t, List.copyOf(children));
            case LargeList -> new WriterField(id, name, nullable, Kind.LARGE_LIST, 0, 0, t, List.copyOf(children));
            case Map -> {
                if (((ArrowType.Map) t).getKeysSorted()) {
                    throw unsupported(
                            id,
                            name,
                            t + " with keys_sorted=true (Lance stores unsorted maps only;"
                                    + " declare the map with keysSorted=false)");
                }
                yield new WriterField(id, name, nullable, Kind.MAP, 0, 0, t, List.copyOf(children));
            }
            case FixedSizeList -> {
                int dim = ((ArrowType.FixedSizeList) t).getListSize();
                Field item = arrow.getChildren().get(0);
                int width = fixedWidth(item.getType());
                if (width <= 0) {
                    throw unsupported(
                            id,
                            name,
                            "fixed_size_list of " + item.getType()
                                    + " (only fixed-width numeric/decimal/binary items are supported)");
                }
                yield new WriterField(id, name, nullable, Kind.FSL, width, dim, t, List.of());
            }
            default -> {
                int width = fixedWidth(t);
                if (width <= 0) {
                    throw unsupported(id, name, t.toString());
                }
                yield new WriterField(id, name, nullable, Kind.FIXED, width, 0, t, List.of());
            }
        };
    }

    /** Byte width of a fixed-width Arrow type, or -1. */
    static int fixedWidth(ArrowType t) {
        return switch (t.getTypeID()) {
            case Int -> ((ArrowType.Int) t).getBitWidth() / 8;
            case FloatingPoint ->
                switch (((ArrowType.FloatingPoint) t).getPrecision()) {
                    case HALF -> 2;
                    case SINGLE -> 4;
                    case DOUBLE -> 8;
                };
            case Date -> ((ArrowType.Date) t).getUnit() == DateUnit.DAY ? 4 : 8;
            case Time -> ((ArrowType.Time) t).getBitWidth() / 8;
            case Timestamp, Duration -> 8;
            case Decimal -> ((ArrowType.Decimal) t).getBitWidth() / 8;
            case FixedSizeBinary -> ((ArrowType.FixedSizeBinary) t).getByteWidth();
            default -> -1;
        };
    }

    private static IllegalArgumentException unsupported(int id, String name, String what) {
        return new IllegalArgumentException("field '" + name + "' (id " + id + ") has type " + what
                + ", which the Lance file writer does not support; convert it to a supported type"
                + " (bool, ints, floats, dates, timestamps, decimals, strings, binaries, fixed_size_list,"
                + " list, struct, and map in file version 2.2)");
    }

    /** Bit width of the value as Lance encodes it ({@code 1} for booleans). */
    int bitsPerValue() {
        return kind == Kind.BOOL ? 1 : byteWidth * 8;
    }
}
