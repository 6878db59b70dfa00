package dev.lanceflink.flink.types;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BinaryType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.TinyIntType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;

/**
 * The type mapping between Flink SQL and Lance, with Arrow (the type system Lance schemas are
 * written in, see {@code LanceSchema.fromArrow/toArrow}) as the meeting point. Both the source
 * and the sink use it, so a table written from Flink reads back with the types it was declared
 * with.
 *
 * <table>
 * <caption>Flink &harr; Arrow (Lance logical type)</caption>
 * <tr><th>Flink</th><th>written as</th><th>also read from</th></tr>
 * <tr><td>BOOLEAN</td><td>bool</td><td></td></tr>
 * <tr><td>TINYINT / SMALLINT / INT / BIGINT</td><td>int8 / int16 / int32 / int64</td>
 *     <td>uint8 &rarr; SMALLINT, uint16 &rarr; INT, uint32 &rarr; BIGINT (widened, lossless)</td></tr>
 * <tr><td>FLOAT / DOUBLE</td><td>float / double</td><td>halffloat &rarr; FLOAT</td></tr>
 * <tr><td>CHAR / VARCHAR / STRING</td><td>string (utf8)</td><td>large_string &rarr; STRING</td></tr>
 * <tr><td>BINARY / VARBINARY / BYTES</td><td>binary</td>
 *     <td>large_binary, json, blob &rarr; BYTES; fixed_size_binary:n &rarr; BINARY(n)</td></tr>
 * <tr><td>DATE</td><td>date32:day</td><td>date64:ms &rarr; DATE</td></tr>
 * <tr><td>TIMESTAMP(p)</td><td>timestamp:us:- (p &le; 6), timestamp:ns:- (p &gt; 6)</td>
 *     <td>s/ms/us/ns &rarr; TIMESTAMP(0/3/6/9)</td></tr>
 * <tr><td>TIMESTAMP_LTZ(p)</td><td>timestamp:us:UTC (p &le; 6), timestamp:ns:UTC</td>
 *     <td>any zone &rarr; TIMESTAMP_LTZ (Arrow stores instants since the epoch in UTC)</td></tr>
 * <tr><td>TIME(p)</td><td>time32:s (p = 0), time32:ms (p 1..3), time64:us (p 4..6),
 *     time64:ns (p 7..9)</td><td>s/ms/us/ns &rarr; TIME(0/3/6/9); Flink holds a time of day in
 *     milliseconds, so finer values read truncated to the millisecond</td></tr>
 * <tr><td>DECIMAL(p, s)</td><td>decimal:128:p:s</td><td>decimal:256 with p &le; 38</td></tr>
 * <tr><td>ARRAY&lt;T&gt;</td><td>list, or fixed_size_list:T:N for a column named in
 *     {@link VectorDimensions}</td><td>large_list, fixed_size_list</td></tr>
 * <tr><td>ROW&lt;...&gt;</td><td>struct</td><td></td></tr>
 * <tr><td>MAP&lt;K, V&gt;</td><td>map (keys not null, unsorted); Lance stores maps from data
 *     storage version 2.2 on, so a table with a MAP column is created as 2.2, and writing maps
 *     into an older table is refused</td><td></td></tr>
 * </table>
 *
 * <p>{@code NOT NULL} maps to a non-nullable Arrow field and back. Everything else (INTERVAL,
 * MULTISET, RAW, VARIANT, TIME WITH TIME ZONE, uint64, dictionaries, durations, ...) is rejected with a
 * {@link LanceTypeException} naming the column.
 *
 * <p>This class says which type a Flink column is created as and which Flink type a stored column
 * reads as. Which other declared types a column accepts, for reading and writing, and how the
 * writer adapts their values, is decided by {@link TypeCompatibility}.
 */
public final class LanceTypeMapping {
    /** Arrow's conventional name of a list element; Lance uses it too. */
    public static final String LIST_ELEMENT_NAME = "item";

    private static final String MAP_ENTRIES_NAME = "entries";
    private static final String MAP_KEY_NAME = "key";
    private static final String MAP_VALUE_NAME = "value";
    private static final int MAX_DECIMAL_PRECISION = 38;

    private LanceTypeMapping() {}

    // ------------------------------------------------------------------------------------------
    // Flink -> Arrow (creating tables, writing)
    // ------------------------------------------------------------------------------------------

    /**
     * The Arrow schema a Flink row type is stored as.
     *
     * @throws LanceTypeException for a type Lance cannot store, or a {@code vector-dimensions}
     *     entry that does not name an ARRAY column
     */
    public static Schema toArrowSchema(RowType rowType, VectorDimensions dimensions) {
        List<Field> fields = new ArrayList<>();
        Set<String> used = new HashSet<>();
        for (RowType.RowField f : rowType.getFields()) {
            fields.add(toArrowField(f.getName(), f.getName(), f.getType(), dimensions, used));
        }
        Set<String> unused = new HashSet<>(dimensions.asMap().keySet());
        unused.removeAll(used);
        if (!unused.isEmpty()) {
            throw new LanceTypeException("'vector-dimensions' names " + unused + ", which "
                    + (unused.size() == 1 ? "is not an ARRAY column" : "are not ARRAY columns")
                    + " of the table; the columns are " + rowType.getFieldNames());
        }
        return new Schema(fields);
    }

    /** The Arrow field one Flink column is stored as ({@code name} is also its path). */
    public static Field toArrowField(String name, LogicalType type, VectorDimensions dimensions) {
        return toArrowField(name, name, type, dimensions, new HashSet<>());
    }

    private static Field toArrowField(
            String path, String name, LogicalType type, VectorDimensions dims, Set<String> usedDimensions) {
        boolean nullable = type.isNullable();
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return leaf(name, nullable, ArrowType.Bool.INSTANCE);
            case TINYINT:
                return leaf(name, nullable, new ArrowType.Int(8, true));
            case SMALLINT:
                return leaf(name, nullable, new ArrowType.Int(16, true));
            case INTEGER:
                return leaf(name, nullable, new ArrowType.Int(32, true));
            case BIGINT:
                return leaf(name, nullable, new ArrowType.Int(64, true));
            case FLOAT:
                return leaf(name, nullable, new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE));
            case DOUBLE:
                return leaf(name, nullable, new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE));
            case CHAR:
            case VARCHAR:
                return leaf(name, nullable, ArrowType.Utf8.INSTANCE);
            case BINARY:
            case VARBINARY:
                return leaf(name, nullable, ArrowType.Binary.INSTANCE);
            case DATE:
                return leaf(name, nullable, new ArrowType.Date(DateUnit.DAY));
            case TIME_WITHOUT_TIME_ZONE:
                return leaf(name, nullable, timeType(((TimeType) type).getPrecision()));
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return leaf(
                        name,
                        nullable,
                        new ArrowType.Timestamp(timestampUnit(((TimestampType) type).getPrecision()), null));
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return leaf(
                        name,
                        nullable,
                        new ArrowType.Timestamp(timestampUnit(((LocalZonedTimestampType) type).getPrecision()), "UTC"));
            case DECIMAL: {
                DecimalType d = (DecimalType) type;
                return leaf(name, nullable, new ArrowType.Decimal(d.getPrecision(), d.getScale(), 128));
            }
            case ARRAY: {
                LogicalType elementType = ((ArrayType) type).getElementType();
                Field element = toArrowField(
                        path + "." + LIST_ELEMENT_NAME, LIST_ELEMENT_NAME, elementType, dims, usedDimensions);
                int dimension = dims.dimensionOf(path);
                if (dimension > 0) {
                    usedDimensions.add(path);
                    if (!element.getChildren().isEmpty() && !(element.getType() instanceof ArrowType.Struct)) {
                        throw new LanceTypeException("Column '" + path + "' of type " + type.asSummaryString()
                                + " is declared a vector in 'vector-dimensions', but Lance stores fixed-size lists of "
                                + "primitives or structs only; drop it from 'vector-dimensions' to store a list");
                    }
                    // Lance keeps no element nullability for fixed-size lists of primitives: it always
                    // reads the element back as nullable "item", so it is written that way too.
                    Field stored = element.getType() instanceof ArrowType.Struct
                            ? element
                            : new Field(
                                    element.getName(),
                                    new FieldType(true, element.getType(), null),
                                    element.getChildren());
                    return new Field(
                            name,
                            new FieldType(nullable, new ArrowType.FixedSizeList(dimension), null),
                            List.of(stored));
                }
                return new Field(name, new FieldType(nullable, ArrowType.List.INSTANCE, null), List.of(element));
            }
            case ROW: {
                List<Field> children = new ArrayList<>();
                for (RowType.RowField f : ((RowType) type).getFields()) {
                    children.add(
                            toArrowField(path + "." + f.getName(), f.getName(), f.getType(), dims, usedDimensions));
                }
                return new Field(name, new FieldType(nullable, ArrowType.Struct.INSTANCE, null), children);
            }
            case MAP: {
                MapType m = (MapType) type;
                // Lance (like Arrow) requires map keys to be non-null; a Flink MAP key is nullable by
                // default, so the key is stored NOT NULL and a null key fails at write time.
                Field key = toArrowField(
                        path + "." + MAP_KEY_NAME, MAP_KEY_NAME, m.getKeyType().copy(false), dims, usedDimensions);
                Field value = toArrowField(
                        path + "." + MAP_VALUE_NAME, MAP_VALUE_NAME, m.getValueType(), dims, usedDimensions);
                Field entries = new Field(
                        MAP_ENTRIES_NAME, FieldType.notNullable(ArrowType.Struct.INSTANCE), List.of(key, value));
                return new Field(name, new FieldType(nullable, new ArrowType.Map(false), null), List.of(entries));
            }
            default:
                throw new LanceTypeException("Column '" + path + "' has type " + type.asSummaryString()
                        + ", which Lance cannot store. Supported: BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, FLOAT, "
                        + "DOUBLE, CHAR/VARCHAR/STRING, BINARY/VARBINARY/BYTES, DATE, TIME, TIMESTAMP, "
                        + "TIMESTAMP_LTZ, DECIMAL, ARRAY, ROW, MAP");
        }
    }

    private static Field leaf(String name, boolean nullable, ArrowType type) {
        return new Field(name, new FieldType(nullable, type, null), List.of());
    }

    private static TimeUnit timestampUnit(int precision) {
        return precision <= 6 ? TimeUnit.MICROSECOND : TimeUnit.NANOSECOND;
    }

    /**
     * The narrowest Arrow time type holding TIME(p) exactly: Lance (like Arrow) has 32-bit
     * seconds and milliseconds and 64-bit microseconds and nanoseconds of the day.
     */
    private static ArrowType.Time timeType(int precision) {
        if (precision == 0) {
            return new ArrowType.Time(TimeUnit.SECOND, 32);
        } else if (precision <= 3) {
            return new ArrowType.Time(TimeUnit.MILLISECOND, 32);
        } else if (precision <= 6) {
            return new ArrowType.Time(TimeUnit.MICROSECOND, 64);
        }
        return new ArrowType.Time(TimeUnit.NANOSECOND, 64);
    }

    // ------------------------------------------------------------------------------------------
    // Arrow -> Flink (reading)
    // ------------------------------------------------------------------------------------------

    /** The Flink row type a Lance (Arrow) schema reads as. */
    public static RowType toRowType(Schema schema) {
        List<RowType.RowField> fields = new ArrayList<>();
        for (Field f : schema.getFields()) {
            fields.add(new RowType.RowField(f.getName(), toLogicalType(f.getName(), f)));
        }
        return new RowType(false, fields);
    }

    /**
     * The Flink type an Arrow field reads as.
     *
     * @param path dotted column path, for error messages
     * @throws LanceTypeException if Flink has no type for it
     */
    public static LogicalType toLogicalType(String path, Field field) {
        boolean nullable = field.isNullable();
        if (field.getDictionary() != null) {
            throw unreadable(path, field, "dictionary-encoded columns are not supported by the Flink source");
        }
        ArrowType type = field.getType();
        switch (type.getTypeID()) {
            case Bool:
                return new BooleanType(nullable);
            case Int: {
                ArrowType.Int i = (ArrowType.Int) type;
                int bits = i.getBitWidth();
                if (i.getIsSigned()) {
                    return switch (bits) {
                        case 8 -> new TinyIntType(nullable);
                        case 16 -> new SmallIntType(nullable);
                        case 32 -> new IntType(nullable);
                        default -> new BigIntType(nullable);
                    };
                }
                return switch (bits) {
                    case 8 -> new SmallIntType(nullable);
                    case 16 -> new IntType(nullable);
                    case 32 -> new BigIntType(nullable);
                    default ->
                        throw unreadable(
                                path,
                                field,
                                "Flink has no unsigned 64-bit type and BIGINT cannot "
                                        + "hold values above 2^63-1; cast the column to int64 or decimal in Lance");
                };
            }
            case FloatingPoint:
                return ((ArrowType.FloatingPoint) type).getPrecision() == FloatingPointPrecision.DOUBLE
                        ? new DoubleType(nullable)
                        : new FloatType(nullable);
            case Utf8:
            case LargeUtf8:
                return new VarCharType(nullable, VarCharType.MAX_LENGTH);
            case Binary:
            case LargeBinary:
                return new VarBinaryType(nullable, VarBinaryType.MAX_LENGTH);
            case FixedSizeBinary:
                return new BinaryType(nullable, ((ArrowType.FixedSizeBinary) type).getByteWidth());
            case Date:
                return new DateType(nullable);
            case Time:
                return new TimeType(
                        nullable,
                        switch (((ArrowType.Time) type).getUnit()) {
                            case SECOND -> 0;
                            case MILLISECOND -> 3;
                            case MICROSECOND -> 6;
                            case NANOSECOND -> 9;
                        });
            case Timestamp: {
                ArrowType.Timestamp ts = (ArrowType.Timestamp) type;
                int precision = switch (ts.getUnit()) {
                    case SECOND -> 0;
                    case MILLISECOND -> 3;
                    case MICROSECOND -> 6;
                    case NANOSECOND -> 9;
                };
                return ts.getTimezone() == null
                        ? new TimestampType(nullable, precision)
                        : new LocalZonedTimestampType(nullable, precision);
            }
            case Decimal: {
                ArrowType.Decimal d = (ArrowType.Decimal) type;
                if (d.getPrecision() > MAX_DECIMAL_PRECISION) {
                    throw unreadable(path, field, "Flink DECIMAL holds at most 38 digits");
                }
                return new DecimalType(nullable, d.getPrecision(), d.getScale());
            }
            case List:
            case LargeList:
            case FixedSizeList: {
                Field element = field.getChildren().get(0);
                return new ArrayType(nullable, toLogicalType(path + "." + element.getName(), element));
            }
            case Struct: {
                List<RowType.RowField> children = new ArrayList<>();
                for (Field c : field.getChildren()) {
                    children.add(new RowType.RowField(c.getName(), toLogicalType(path + "." + c.getName(), c)));
                }
                return new RowType(nullable, children);
            }
            case Map: {
                Field entries = field.getChildren().get(0);
                Field key = entries.getChildren().get(0);
                Field value = entries.getChildren().get(1);
                return new MapType(
                        nullable,
                        toLogicalType(path + "." + key.getName(), key),
                        toLogicalType(path + "." + value.getName(), value));
            }
            default:
                throw unreadable(path, field, "Flink SQL has no matching type in this connector");
        }
    }

    private static LanceTypeException unreadable(String path, Field field, String why) {
        return new LanceTypeException("Column '" + path + "' has Arrow type " + field.getType()
                + ", which the Flink connector cannot read: " + why + ". Leave the column out of the Flink table "
                + "declaration (columns are matched by name) to read the others");
    }
}
