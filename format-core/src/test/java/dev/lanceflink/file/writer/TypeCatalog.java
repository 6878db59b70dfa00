package dev.lanceflink.file.writer;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/** A schema with every type the writer supports, nullable and not. */
final class TypeCatalog {
    private TypeCatalog() {}

    static Field f(String name, boolean nullable, ArrowType type, Field... children) {
        return new Field(name, nullable ? FieldType.nullable(type) : FieldType.notNullable(type), List.of(children));
    }

    static Field fsl(String name, int dim, ArrowType item) {
        return f(name, true, new ArrowType.FixedSizeList(dim), f("item", true, item));
    }

    static final ArrowType I8 = new ArrowType.Int(8, true);
    static final ArrowType I16 = new ArrowType.Int(16, true);
    static final ArrowType I32 = new ArrowType.Int(32, true);
    static final ArrowType I64 = new ArrowType.Int(64, true);
    static final ArrowType F16 = new ArrowType.FloatingPoint(FloatingPointPrecision.HALF);
    static final ArrowType F32 = new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
    static final ArrowType F64 = new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);

    /**
     * @param nullableStructs whether struct fields are nullable (2.0 cannot store null structs)
     * @param largeLists whether to include a large_list column
     */
    static Schema schema(boolean nullableStructs, boolean largeLists) {
        return schema(nullableStructs, largeLists, true);
    }

    /**
     * @param nullableFixedItems whether fixed-width values inside lists may be null
     */
    static Schema schema(boolean nullableStructs, boolean largeLists, boolean nullableFixedItems) {
        List<Field> fields = new ArrayList<>();
        fields.add(f("b", true, ArrowType.Bool.INSTANCE));
        fields.add(f("i8", true, I8));
        fields.add(f("i16", true, I16));
        fields.add(f("i32", false, I32));
        fields.add(f("i32n", true, I32));
        fields.add(f("i64", true, I64));
        fields.add(f("f32", true, F32));
        fields.add(f("f64", true, F64));
        fields.add(f("s", true, ArrowType.Utf8.INSTANCE));
        fields.add(f("ls", true, ArrowType.LargeUtf8.INSTANCE));
        fields.add(f("bin", true, ArrowType.Binary.INSTANCE));
        fields.add(f("lbin", true, ArrowType.LargeBinary.INSTANCE));
        fields.add(f("d", true, new ArrowType.Date(DateUnit.DAY)));
        fields.add(f("ts", true, new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)));
        fields.add(f("tstz", true, new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")));
        fields.add(f("dec", true, new ArrowType.Decimal(20, 4, 128)));
        fields.add(fsl("v4", 4, F32));
        fields.add(fsl("h8", 8, F16));
        fields.add(fsl("q16", 16, I8));
        fields.add(fsl("v128", 128, F32));
        fields.add(f("l", true, ArrowType.List.INSTANCE, f("item", nullableFixedItems, I32)));
        fields.add(f("lstr", true, ArrowType.List.INSTANCE, f("item", true, ArrowType.Utf8.INSTANCE)));
        fields.add(f(
                "ll",
                true,
                largeLists ? ArrowType.LargeList.INSTANCE : ArrowType.List.INSTANCE,
                f("item", true, ArrowType.List.INSTANCE, f("item", nullableFixedItems, I64))));
        fields.add(f(
                "lf",
                true,
                ArrowType.List.INSTANCE,
                f("item", nullableFixedItems, new ArrowType.FixedSizeList(4), f("item", true, F32))));
        fields.add(f(
                "st",
                nullableStructs,
                ArrowType.Struct.INSTANCE,
                f("a", true, I32),
                f("b", true, ArrowType.Utf8.INSTANCE)));
        fields.add(f(
                "ls2",
                true,
                ArrowType.List.INSTANCE,
                f(
                        "item",
                        nullableStructs,
                        ArrowType.Struct.INSTANCE,
                        f("x", nullableFixedItems, I32),
                        f("y", nullableFixedItems, F64))));
        fields.add(f(
                "sl",
                nullableStructs,
                ArrowType.Struct.INSTANCE,
                f("x", true, ArrowType.List.INSTANCE, f("item", true, ArrowType.Utf8.INSTANCE)),
                f("y", false, I32)));
        return new Schema(fields);
    }

    /**
     * {@link #schema(boolean, boolean)} plus the remaining fixed-width types (unsigned ints,
     * half floats, date64, times, timestamps at every unit with and without zone, durations,
     * fixed-size binary, decimal256), a wide double vector, deeper nesting and maps, which only
     * file version 2.2 may hold.
     */
    static Schema schemaWithMaps() {
        List<Field> fields = new ArrayList<>(schema(true, true).getFields());
        fields.add(f("u8", true, new ArrowType.Int(8, false)));
        fields.add(f("u16", true, new ArrowType.Int(16, false)));
        fields.add(f("u32", false, new ArrowType.Int(32, false)));
        fields.add(f("u64", true, new ArrowType.Int(64, false)));
        fields.add(f("h", true, F16));
        fields.add(f("d64", true, new ArrowType.Date(DateUnit.MILLISECOND)));
        fields.add(f("t32s", true, new ArrowType.Time(TimeUnit.SECOND, 32)));
        fields.add(f("t32ms", true, new ArrowType.Time(TimeUnit.MILLISECOND, 32)));
        fields.add(f("t64us", true, new ArrowType.Time(TimeUnit.MICROSECOND, 64)));
        fields.add(f("t64ns", false, new ArrowType.Time(TimeUnit.NANOSECOND, 64)));
        fields.add(f("tss", true, new ArrowType.Timestamp(TimeUnit.SECOND, null)));
        fields.add(f("tsms", true, new ArrowType.Timestamp(TimeUnit.MILLISECOND, "Europe/Berlin")));
        fields.add(f("tsns", true, new ArrowType.Timestamp(TimeUnit.NANOSECOND, null)));
        fields.add(f("dur", true, new ArrowType.Duration(TimeUnit.MICROSECOND)));
        fields.add(f("fsb", true, new ArrowType.FixedSizeBinary(16)));
        fields.add(f("dec256", true, new ArrowType.Decimal(76, 10, 256)));
        fields.add(fsl("d64v", 64, F64));
        fields.add(f(
                "lll",
                true,
                ArrowType.List.INSTANCE,
                f(
                        "item",
                        true,
                        ArrowType.List.INSTANCE,
                        f("item", true, ArrowType.LargeList.INSTANCE, f("item", true, I16)))));
        fields.add(f(
                "ss",
                true,
                ArrowType.Struct.INSTANCE,
                f(
                        "inner",
                        true,
                        ArrowType.Struct.INSTANCE,
                        f("x", true, I32),
                        f("deep", true, ArrowType.Struct.INSTANCE, f("z", true, ArrowType.Utf8.INSTANCE))),
                f("bl", true, ArrowType.Bool.INSTANCE)));
        fields.add(f(
                "m",
                true,
                new ArrowType.Map(false),
                f(
                        "entries",
                        false,
                        ArrowType.Struct.INSTANCE,
                        f("key", false, ArrowType.Utf8.INSTANCE),
                        f("value", true, I32))));
        fields.add(f(
                "lm",
                true,
                ArrowType.List.INSTANCE,
                f(
                        "item",
                        true,
                        new ArrowType.Map(false),
                        f(
                                "entries",
                                false,
                                ArrowType.Struct.INSTANCE,
                                f("key", false, I64),
                                f("value", true, ArrowType.List.INSTANCE, f("item", true, ArrowType.Utf8.INSTANCE))))));
        return new Schema(fields);
    }
}
