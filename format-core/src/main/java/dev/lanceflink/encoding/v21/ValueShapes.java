package dev.lanceflink.encoding.v21;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/** Creates the empty {@link Values} builder that matches a leaf column's Arrow type. */
public final class ValueShapes {
    private ValueShapes() {}

    /**
     * @param leaf the Arrow field of the leaf column (a packed struct is one leaf)
     * @throws EncodingException for types a structural leaf column cannot hold
     */
    public static Values builderFor(Field leaf) {
        ArrowType t = leaf.getType();
        return switch (t.getTypeID()) {
            case Utf8, Binary, LargeUtf8, LargeBinary -> VariableWidthValues.builder(64, 256);
            case FixedSizeList -> {
                int dim = ((ArrowType.FixedSizeList) t).getListSize();
                yield FixedSizeListValues.wrap(
                        dim, builderFor(leaf.getChildren().get(0)), null);
            }
            case Struct -> {
                List<Values> children = new ArrayList<>();
                for (Field c : leaf.getChildren()) {
                    children.add(builderFor(c));
                }
                yield new StructValues(children, 0);
            }
            default -> FixedWidthValues.builder(fixedBits(leaf), 64);
        };
    }

    /** Bits per value of a fixed-width Arrow type (1 for booleans). */
    public static int fixedBits(Field f) {
        ArrowType t = f.getType();
        return switch (t.getTypeID()) {
            case Bool -> 1;
            case Int -> ((ArrowType.Int) t).getBitWidth();
            case FloatingPoint ->
                switch (((ArrowType.FloatingPoint) t).getPrecision()) {
                    case HALF -> 16;
                    case SINGLE -> 32;
                    case DOUBLE -> 64;
                };
            case Date -> ((ArrowType.Date) t).getUnit() == DateUnit.DAY ? 32 : 64;
            case Time -> ((ArrowType.Time) t).getBitWidth();
            case Timestamp, Duration -> 64;
            case Decimal -> ((ArrowType.Decimal) t).getBitWidth();
            case FixedSizeBinary -> ((ArrowType.FixedSizeBinary) t).getByteWidth() * 8;
            case Interval ->
                switch (((ArrowType.Interval) t).getUnit()) {
                    case YEAR_MONTH -> 32;
                    case DAY_TIME -> 64;
                    case MONTH_DAY_NANO -> 128;
                };
            default ->
                throw new EncodingException("field '" + f.getName() + "' of Arrow type " + t
                        + " cannot be read from a structural (2.1+) leaf column");
        };
    }
}
