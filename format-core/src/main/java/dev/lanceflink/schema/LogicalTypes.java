package dev.lanceflink.schema;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import lance.file.Encoding;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * Conversion between Lance {@code logical_type} strings and Arrow Java types.
 *
 * <p>The grammar is the one Lance writes into {@code lance.file.Field.logical_type}: tokens
 * separated by {@code ':'}, e.g. {@code int64}, {@code timestamp:us:UTC},
 * {@code decimal:128:20:4}, {@code fixed_size_list:float:128}, {@code dict:string:int32:false}.
 * Parsing follows Lance's reader (token counts, which units each time type accepts), so a string
 * this class accepts is one Lance accepts, and a string this class writes is one Lance writes for
 * the same Arrow type. It is slightly stricter where Lance would only fail later, when building
 * arrays: sizes and widths must be positive and decimal precision must fit the bit width.
 *
 * <p>Child fields: {@code struct}, {@code list}/{@code list.struct},
 * {@code large_list}/{@code large_list.struct}, {@code map} and {@code fixed_size_list:struct:N}
 * take their children from the schema tree. Every other type is a single schema node; in
 * particular a fixed-size list of a non-struct element carries its element type inside the
 * string and has no child node (its Arrow element field is synthesised as nullable
 * {@code "item"}, as Lance does).
 *
 * <p>Dictionary types: Arrow Java puts the dictionary on the {@link Field}, not in the type.
 * {@link #toArrowField} returns the message (IPC schema) form: the field's type is the value type
 * and {@link Field#getDictionary()} carries the index type. {@link #logicalTypeOf} expects the
 * same form.
 */
public final class LogicalTypes {

    /** Arrow field metadata key naming an extension type. */
    public static final String ARROW_EXTENSION_NAME_KEY = "ARROW:extension:name";
    /** Arrow field metadata key holding an extension type's serialized parameters. */
    public static final String ARROW_EXTENSION_METADATA_KEY = "ARROW:extension:metadata";
    /** Extension name Lance gives to the bfloat16 element of {@code fixed_size_list:lance.bfloat16:N}. */
    public static final String BFLOAT16_EXTENSION_NAME = "lance.bfloat16";
    /** Extension name of Lance's JSON (JSONB in LargeBinary) columns, logical type {@code json}. */
    public static final String LANCE_JSON_EXTENSION_NAME = "lance.json";
    /** Arrow's canonical JSON extension (UTF-8 storage); Lance stores it as {@code json}. */
    public static final String ARROW_JSON_EXTENSION_NAME = "arrow.json";
    /** Field metadata key marking a legacy blob column (logical type {@code blob}). */
    public static final String BLOB_METADATA_KEY = "lance-encoding:blob";
    /** Extension name of blob v2 columns (logical type {@code struct}). */
    public static final String BLOB_V2_EXTENSION_NAME = "lance.blob.v2";
    /** Arrow field metadata key Lance reads a field id from when converting an Arrow schema. */
    public static final String FIELD_ID_METADATA_KEY = "lance:field_id";

    /** How a logical type relates to child nodes of the flattened schema. */
    public enum Shape {
        /** No child nodes (primitives, strings, fixed-size lists of non-structs, dictionaries, ...). */
        LEAF,
        /** {@code struct}: one child node per member, in order. */
        STRUCT,
        /** {@code list} or {@code list.struct}: exactly one child node, the element. */
        LIST,
        /** {@code large_list} or {@code large_list.struct}: exactly one child node, the element. */
        LARGE_LIST,
        /** {@code map}: exactly one child node, the entries struct (key, value). */
        MAP,
        /** {@code fixed_size_list:struct:N}: exactly one child node, the struct element. */
        FIXED_SIZE_LIST_STRUCT
    }

    private static final String FSL_PREFIX = "fixed_size_list:";
    private static final String FSL_STRUCT_PREFIX = "fixed_size_list:struct:";

    /** The logical types whose Arrow type is fully determined by the string itself. */
    private static final Map<String, ArrowType> SIMPLE_TYPES = new HashMap<>();

    static {
        SIMPLE_TYPES.put("null", ArrowType.Null.INSTANCE);
        SIMPLE_TYPES.put("bool", ArrowType.Bool.INSTANCE);
        SIMPLE_TYPES.put("int8", new ArrowType.Int(8, true));
        SIMPLE_TYPES.put("uint8", new ArrowType.Int(8, false));
        SIMPLE_TYPES.put("int16", new ArrowType.Int(16, true));
        SIMPLE_TYPES.put("uint16", new ArrowType.Int(16, false));
        SIMPLE_TYPES.put("int32", new ArrowType.Int(32, true));
        SIMPLE_TYPES.put("uint32", new ArrowType.Int(32, false));
        SIMPLE_TYPES.put("int64", new ArrowType.Int(64, true));
        SIMPLE_TYPES.put("uint64", new ArrowType.Int(64, false));
        SIMPLE_TYPES.put("halffloat", new ArrowType.FloatingPoint(FloatingPointPrecision.HALF));
        SIMPLE_TYPES.put("float", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE));
        SIMPLE_TYPES.put("double", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE));
        SIMPLE_TYPES.put("string", ArrowType.Utf8.INSTANCE);
        SIMPLE_TYPES.put("binary", ArrowType.Binary.INSTANCE);
        SIMPLE_TYPES.put("large_string", ArrowType.LargeUtf8.INSTANCE);
        SIMPLE_TYPES.put("large_binary", ArrowType.LargeBinary.INSTANCE);
        SIMPLE_TYPES.put("blob", ArrowType.LargeBinary.INSTANCE);
        SIMPLE_TYPES.put("json", ArrowType.LargeBinary.INSTANCE);
        SIMPLE_TYPES.put("date32:day", new ArrowType.Date(DateUnit.DAY));
        SIMPLE_TYPES.put("date64:ms", new ArrowType.Date(DateUnit.MILLISECOND));
        SIMPLE_TYPES.put("time32:s", new ArrowType.Time(TimeUnit.SECOND, 32));
        SIMPLE_TYPES.put("time32:ms", new ArrowType.Time(TimeUnit.MILLISECOND, 32));
        SIMPLE_TYPES.put("time64:us", new ArrowType.Time(TimeUnit.MICROSECOND, 64));
        SIMPLE_TYPES.put("time64:ns", new ArrowType.Time(TimeUnit.NANOSECOND, 64));
        SIMPLE_TYPES.put("duration:s", new ArrowType.Duration(TimeUnit.SECOND));
        SIMPLE_TYPES.put("duration:ms", new ArrowType.Duration(TimeUnit.MILLISECOND));
        SIMPLE_TYPES.put("duration:us", new ArrowType.Duration(TimeUnit.MICROSECOND));
        SIMPLE_TYPES.put("duration:ns", new ArrowType.Duration(TimeUnit.NANOSECOND));
    }

    private LogicalTypes() {}

    /** The child-node shape of a logical type string (never fails; unknown strings are LEAF). */
    public static Shape shapeOf(String logicalType) {
        switch (logicalType) {
            case "struct":
                return Shape.STRUCT;
            case "list":
            case "list.struct":
                return Shape.LIST;
            case "large_list":
            case "large_list.struct":
                return Shape.LARGE_LIST;
            case "map":
                return Shape.MAP;
            default:
                return logicalType.startsWith(FSL_STRUCT_PREFIX) ? Shape.FIXED_SIZE_LIST_STRUCT : Shape.LEAF;
        }
    }

    /**
     * The legacy v1 column encoding Lance records in {@code Field.encoding} for a logical type:
     * PLAIN for fixed-width values, lists and maps; VAR_BINARY for strings and binaries (also
     * {@code json}/{@code blob}); DICTIONARY for dictionaries; NONE for structs and {@code null}.
     * Current readers ignore it, but writing the same value keeps our manifests identical to
     * Lance's.
     */
    public static Encoding legacyEncodingFor(String logicalType) {
        switch (logicalType) {
            case "struct":
            case "null":
                return Encoding.NONE;
            case "string":
            case "binary":
            case "large_string":
            case "large_binary":
            case "json":
            case "blob":
                return Encoding.VAR_BINARY;
            default:
                return logicalType.startsWith("dict:") ? Encoding.DICTIONARY : Encoding.PLAIN;
        }
    }

    // ------------------------------------------------------------------------------------------
    // Lance -> Arrow
    // ------------------------------------------------------------------------------------------

    /**
     * Builds the Arrow field of one schema node.
     *
     * @param fieldPath dotted path of the node, used in error messages only
     * @param name the Arrow field name
     * @param logicalType the node's {@code logical_type}
     * @param nullable the node's nullability
     * @param metadata Arrow field metadata (copied; {@code json} and {@code blob} add their markers
     *     as Lance does)
     * @param children the already converted child nodes, in order (empty for leaf shapes)
     * @param dictionaryId the id to give a dictionary encoding (use the field id: unique per schema)
     * @throws UnsupportedTypeException if the string is outside the grammar
     * @throws LanceSchemaException if the number of children does not fit the type
     */
    public static Field toArrowField(
            String fieldPath,
            String name,
            String logicalType,
            boolean nullable,
            Map<String, String> metadata,
            List<Field> children,
            long dictionaryId) {
        Shape shape = shapeOf(logicalType);
        switch (shape) {
            case STRUCT:
                return new Field(name, new FieldType(nullable, ArrowType.Struct.INSTANCE, null, metadata), children);
            case LIST:
                requireOneChild(fieldPath, logicalType, children);
                return new Field(name, new FieldType(nullable, ArrowType.List.INSTANCE, null, metadata), children);
            case LARGE_LIST:
                requireOneChild(fieldPath, logicalType, children);
                return new Field(name, new FieldType(nullable, ArrowType.LargeList.INSTANCE, null, metadata), children);
            case MAP:
                requireOneChild(fieldPath, logicalType, children);
                return new Field(name, new FieldType(nullable, new ArrowType.Map(false), null, metadata), children);
            case FIXED_SIZE_LIST_STRUCT: {
                requireOneChild(fieldPath, logicalType, children);
                int size = parseListSize(fieldPath, logicalType, logicalType.substring(FSL_STRUCT_PREFIX.length()));
                return new Field(
                        name, new FieldType(nullable, new ArrowType.FixedSizeList(size), null, metadata), children);
            }
            case LEAF:
            default:
                if (!children.isEmpty()) {
                    throw new LanceSchemaException("Field '" + fieldPath + "' of type '" + logicalType + "' has "
                            + children.size() + " child field(s), but that type has none; the schema is corrupt "
                            + "(child fields are only allowed under struct, list, large_list, map and "
                            + "fixed_size_list:struct:N)");
                }
                return leafField(fieldPath, name, logicalType, nullable, metadata, dictionaryId);
        }
    }

    /**
     * The Arrow type of a logical type string. For dictionaries this is the value type (see the
     * class comment); for nested types it is the bare container type.
     *
     * @throws UnsupportedTypeException if the string is outside the grammar
     */
    public static ArrowType toArrowType(String fieldPath, String logicalType) {
        switch (shapeOf(logicalType)) {
            case STRUCT:
                return ArrowType.Struct.INSTANCE;
            case LIST:
                return ArrowType.List.INSTANCE;
            case LARGE_LIST:
                return ArrowType.LargeList.INSTANCE;
            case MAP:
                return new ArrowType.Map(false);
            case FIXED_SIZE_LIST_STRUCT:
                return new ArrowType.FixedSizeList(
                        parseListSize(fieldPath, logicalType, logicalType.substring(FSL_STRUCT_PREFIX.length())));
            case LEAF:
            default:
                return leafField(fieldPath, "item", logicalType, true, Map.of(), 0)
                        .getType();
        }
    }

    private static void requireOneChild(String fieldPath, String logicalType, List<Field> children) {
        if (children.size() != 1) {
            throw new LanceSchemaException("Field '" + fieldPath + "' of type '" + logicalType + "' must have exactly "
                    + "one child field (the element" + ("map".equals(logicalType) ? " entries struct" : "")
                    + "), found " + children.size() + "; the schema is corrupt");
        }
    }

    private static Field leafField(
            String fieldPath,
            String name,
            String logicalType,
            boolean nullable,
            Map<String, String> metadata,
            long dictionaryId) {
        ArrowType simple = SIMPLE_TYPES.get(logicalType);
        if (simple != null) {
            Map<String, String> md = metadata;
            if ("json".equals(logicalType)) {
                md = new HashMap<>(metadata);
                md.put(ARROW_EXTENSION_NAME_KEY, LANCE_JSON_EXTENSION_NAME);
            } else if ("blob".equals(logicalType) && !metadata.containsKey(BLOB_METADATA_KEY)) {
                md = new HashMap<>(metadata);
                md.put(BLOB_METADATA_KEY, "true");
            }
            return new Field(name, new FieldType(nullable, simple, null, md), List.of());
        }
        String[] tokens = logicalType.split(":", -1);
        switch (tokens[0]) {
            case "fixed_size_list":
                return fixedSizeListField(fieldPath, name, logicalType, tokens, nullable, metadata, dictionaryId);
            case "fixed_size_binary": {
                if (tokens.length != 2) {
                    throw unsupported(fieldPath, logicalType, "expected 'fixed_size_binary:<byte width>'");
                }
                int width = parsePositiveInt(fieldPath, logicalType, tokens[1], "byte width");
                return new Field(
                        name, new FieldType(nullable, new ArrowType.FixedSizeBinary(width), null, metadata), List.of());
            }
            case "dict": {
                if (tokens.length != 4) {
                    throw unsupported(
                            fieldPath,
                            logicalType,
                            "expected 'dict:<value type>:<index type>:false' (exactly 4 tokens)");
                }
                ArrowType valueType = SIMPLE_TYPES.get(tokens[1]);
                if (valueType == null || "json".equals(tokens[1]) || "blob".equals(tokens[1])) {
                    throw unsupported(
                            fieldPath,
                            logicalType,
                            "dictionary value type '" + tokens[1] + "' is not a single-token Lance type");
                }
                ArrowType indexType = SIMPLE_TYPES.get(tokens[2]);
                if (!(indexType instanceof ArrowType.Int)) {
                    throw unsupported(
                            fieldPath,
                            logicalType,
                            "dictionary index type '" + tokens[2] + "' must be an integer type (int8..uint64)");
                }
                DictionaryEncoding encoding = new DictionaryEncoding(dictionaryId, false, (ArrowType.Int) indexType);
                return new Field(name, new FieldType(nullable, valueType, encoding, metadata), List.of());
            }
            case "decimal": {
                if (tokens.length != 4) {
                    throw unsupported(
                            fieldPath,
                            logicalType,
                            "expected 'decimal:<128|256>:<precision>:<scale>' (exactly 4 tokens)");
                }
                int bits = parseInt(fieldPath, logicalType, tokens[1], "bit width");
                int precision = parseInt(fieldPath, logicalType, tokens[2], "precision");
                int scale = parseInt(fieldPath, logicalType, tokens[3], "scale");
                if (bits != 128 && bits != 256) {
                    throw unsupported(
                            fieldPath,
                            logicalType,
                            "only 128- and 256-bit decimals exist in Lance, found " + bits + " bits");
                }
                int maxPrecision = bits == 128 ? 38 : 76;
                if (precision < 1 || precision > maxPrecision) {
                    throw unsupported(
                            fieldPath,
                            logicalType,
                            "precision " + precision + " is outside 1.." + maxPrecision + " for a " + bits
                                    + "-bit decimal");
                }
                if (scale < -128 || scale > 127) {
                    throw unsupported(fieldPath, logicalType, "scale " + scale + " is outside -128..127");
                }
                return new Field(
                        name,
                        new FieldType(nullable, new ArrowType.Decimal(precision, scale, bits), null, metadata),
                        List.of());
            }
            case "timestamp": {
                if (tokens.length != 3) {
                    throw unsupported(
                            fieldPath,
                            logicalType,
                            "expected 'timestamp:<s|ms|us|ns>:<zone or ->' "
                                    + "(exactly 3 tokens; a zone containing ':' such as '+05:00' cannot be stored, "
                                    + "use an IANA name or 'UTC')");
                }
                TimeUnit unit = parseTimeUnit(fieldPath, logicalType, tokens[1]);
                String zone = "-".equals(tokens[2]) ? null : tokens[2];
                return new Field(
                        name, new FieldType(nullable, new ArrowType.Timestamp(unit, zone), null, metadata), List.of());
            }
            default:
                throw unsupported(
                        fieldPath,
                        logicalType,
                        "not a Lance logical type this connector can map to Arrow "
                                + "(known: null, bool, int8..uint64, halffloat, float, double, string, large_string, binary, "
                                + "large_binary, json, blob, date32:day, date64:ms, time32:s|ms, time64:us|ns, "
                                + "duration:<unit>, timestamp:<unit>:<zone>, decimal:<bits>:<p>:<s>, fixed_size_binary:<n>, "
                                + "fixed_size_list:<type>:<n>, dict:<value>:<index>:false, struct, list, large_list, map)");
        }
    }

    private static Field fixedSizeListField(
            String fieldPath,
            String name,
            String logicalType,
            String[] tokens,
            boolean nullable,
            Map<String, String> metadata,
            long dictionaryId) {
        if (tokens.length < 3) {
            throw unsupported(fieldPath, logicalType, "expected 'fixed_size_list:<element type>:<size>'");
        }
        int size = parseListSize(fieldPath, logicalType, tokens[tokens.length - 1]);
        String elementType = String.join(":", Arrays.asList(tokens).subList(1, tokens.length - 1));
        Field element;
        if (BFLOAT16_EXTENSION_NAME.equals(elementType)) {
            Map<String, String> md = new HashMap<>();
            md.put(ARROW_EXTENSION_NAME_KEY, BFLOAT16_EXTENSION_NAME);
            md.put(ARROW_EXTENSION_METADATA_KEY, "");
            element = new Field("item", new FieldType(true, new ArrowType.FixedSizeBinary(2), null, md), List.of());
        } else {
            if (shapeOf(elementType) != Shape.LEAF) {
                throw unsupported(
                        fieldPath,
                        logicalType,
                        "a fixed-size list element of type '" + elementType
                                + "' is not allowed (lists, maps and structs nested in a fixed-size list are rejected)");
            }
            element = leafField(fieldPath + ".item", "item", elementType, true, Map.of(), dictionaryId);
        }
        return new Field(
                name, new FieldType(nullable, new ArrowType.FixedSizeList(size), null, metadata), List.of(element));
    }

    private static int parseListSize(String fieldPath, String logicalType, String token) {
        return parsePositiveInt(fieldPath, logicalType, token, "list size");
    }

    private static int parsePositiveInt(String fieldPath, String logicalType, String token, String what) {
        int value = parseInt(fieldPath, logicalType, token, what);
        if (value <= 0) {
            throw unsupported(fieldPath, logicalType, what + " must be positive, found " + value);
        }
        return value;
    }

    private static int parseInt(String fieldPath, String logicalType, String token, String what) {
        try {
            return Integer.parseInt(token);
        } catch (NumberFormatException e) {
            throw unsupported(fieldPath, logicalType, what + " '" + token + "' is not an integer");
        }
    }

    private static TimeUnit parseTimeUnit(String fieldPath, String logicalType, String token) {
        switch (token) {
            case "s":
                return TimeUnit.SECOND;
            case "ms":
                return TimeUnit.MILLISECOND;
            case "us":
                return TimeUnit.MICROSECOND;
            case "ns":
                return TimeUnit.NANOSECOND;
            default:
                throw unsupported(fieldPath, logicalType, "time unit '" + token + "' is not one of s, ms, us, ns");
        }
    }

    // ------------------------------------------------------------------------------------------
    // Arrow -> Lance
    // ------------------------------------------------------------------------------------------

    /**
     * The {@code logical_type} Lance writes for one Arrow field (the node itself; its children
     * become their own nodes). Extension types are stored by their storage type, except Lance's
     * JSON ({@code lance.json} on LargeBinary, {@code arrow.json} on Utf8/LargeUtf8) which becomes
     * {@code json}.
     *
     * @param fieldPath dotted path of the field, used in error messages only
     * @throws UnsupportedTypeException if Lance cannot store the type
     */
    public static String logicalTypeOf(String fieldPath, Field field) {
        ArrowType type = storageType(field.getType());
        String extensionName = extensionName(field);
        if (field.getDictionary() == null) {
            if (type instanceof ArrowType.LargeBinary && LANCE_JSON_EXTENSION_NAME.equals(extensionName)) {
                return "json";
            }
            if ((type instanceof ArrowType.Utf8 || type instanceof ArrowType.LargeUtf8)
                    && ARROW_JSON_EXTENSION_NAME.equals(extensionName)) {
                return "json";
            }
        }
        return typeString(fieldPath, field);
    }

    /** Type string of a field as Lance derives it from the data type alone (no JSON detection). */
    private static String typeString(String fieldPath, Field field) {
        ArrowType type = storageType(field.getType());
        DictionaryEncoding dictionary = field.getDictionary();
        if (dictionary != null) {
            String valueType = primitiveTypeString(fieldPath, type);
            if (valueType == null) {
                throw new UnsupportedTypeException(
                        fieldPath,
                        "dictionary<" + type + ">",
                        "dictionary values must be a primitive or string/binary type");
            }
            String indexType = primitiveTypeString(fieldPath, dictionary.getIndexType());
            return "dict:" + valueType + ":" + indexType + ":false";
        }
        String primitive = primitiveTypeString(fieldPath, type);
        if (primitive != null) {
            return primitive;
        }
        switch (type.getTypeID()) {
            case Struct:
                return "struct";
            case List:
                return isStruct(onlyChild(fieldPath, field)) ? "list.struct" : "list";
            case LargeList:
                return isStruct(onlyChild(fieldPath, field)) ? "large_list.struct" : "large_list";
            case FixedSizeList: {
                int size = ((ArrowType.FixedSizeList) type).getListSize();
                if (size <= 0) {
                    throw new UnsupportedTypeException(
                            fieldPath, type.toString(), "a fixed-size list needs a positive size, found " + size);
                }
                Field element = onlyChild(fieldPath, field);
                if (isBfloat16(element)) {
                    return FSL_PREFIX + BFLOAT16_EXTENSION_NAME + ":" + size;
                }
                checkFixedSizeListElement(fieldPath, field, element, false);
                return FSL_PREFIX + typeString(fieldPath + ".item", element) + ":" + size;
            }
            case Map: {
                ArrowType.Map map = (ArrowType.Map) type;
                if (map.getKeysSorted()) {
                    throw new UnsupportedTypeException(
                            fieldPath,
                            type.toString(),
                            "Lance only stores maps with keys_sorted=false; declare the map unsorted");
                }
                Field entries = field.getChildren().isEmpty()
                        ? null
                        : field.getChildren().get(0);
                if (entries == null
                        || !(storageType(entries.getType()) instanceof ArrowType.Struct)
                        || entries.getChildren().size() < 2) {
                    throw new UnsupportedTypeException(
                            fieldPath, type.toString(), "map entries must be a struct<key, value>");
                }
                if (entries.getChildren().get(0).isNullable()) {
                    throw new UnsupportedTypeException(
                            fieldPath,
                            type.toString(),
                            "map key field '" + entries.getChildren().get(0).getName() + "' must be non-nullable");
                }
                return "map";
            }
            default:
                throw new UnsupportedTypeException(
                        fieldPath, type.toString(), "Lance cannot store Arrow " + type.getTypeID() + " columns");
        }
    }

    /** Type strings of types without children; null for nested types. */
    private static String primitiveTypeString(String fieldPath, ArrowType type) {
        switch (type.getTypeID()) {
            case Null:
                return "null";
            case Bool:
                return "bool";
            case Int: {
                ArrowType.Int i = (ArrowType.Int) type;
                return (i.getIsSigned() ? "int" : "uint") + i.getBitWidth();
            }
            case FloatingPoint:
                switch (((ArrowType.FloatingPoint) type).getPrecision()) {
                    case HALF:
                        return "halffloat";
                    case SINGLE:
                        return "float";
                    default:
                        return "double";
                }
            case Utf8:
            case Utf8View:
                return "string";
            case LargeUtf8:
                return "large_string";
            case Binary:
            case BinaryView:
                return "binary";
            case LargeBinary:
                return "large_binary";
            case FixedSizeBinary:
                return "fixed_size_binary:" + ((ArrowType.FixedSizeBinary) type).getByteWidth();
            case Decimal: {
                ArrowType.Decimal d = (ArrowType.Decimal) type;
                if (d.getBitWidth() != 128 && d.getBitWidth() != 256) {
                    throw new UnsupportedTypeException(
                            fieldPath,
                            type.toString(),
                            "Lance stores only 128- and 256-bit decimals; widen the column");
                }
                return "decimal:" + d.getBitWidth() + ":" + d.getPrecision() + ":" + d.getScale();
            }
            case Date:
                return ((ArrowType.Date) type).getUnit() == DateUnit.DAY ? "date32:day" : "date64:ms";
            case Time: {
                ArrowType.Time t = (ArrowType.Time) type;
                String s = "time" + t.getBitWidth() + ":" + unitToken(t.getUnit());
                if (!SIMPLE_TYPES.containsKey(s)) {
                    throw new UnsupportedTypeException(
                            fieldPath, type.toString(), "only time32 in s/ms and time64 in us/ns exist");
                }
                return s;
            }
            case Timestamp: {
                ArrowType.Timestamp ts = (ArrowType.Timestamp) type;
                String zone = ts.getTimezone();
                if (zone != null && zone.indexOf(':') >= 0) {
                    throw new UnsupportedTypeException(
                            fieldPath,
                            type.toString(),
                            "time zone '" + zone
                                    + "' contains ':' and cannot be stored in a Lance logical type; use an IANA zone "
                                    + "name (e.g. 'Asia/Kolkata' or 'Etc/GMT-5') or 'UTC'");
                }
                return "timestamp:" + unitToken(ts.getUnit()) + ":" + (zone == null ? "-" : zone);
            }
            case Duration:
                return "duration:" + unitToken(((ArrowType.Duration) type).getUnit());
            default:
                return null;
        }
    }

    private static void checkFixedSizeListElement(String fieldPath, Field list, Field element, boolean nested) {
        ArrowType type = storageType(element.getType());
        switch (type.getTypeID()) {
            case Struct:
                if (nested) {
                    throw new UnsupportedTypeException(
                            fieldPath,
                            list.getType().toString(),
                            "a struct inside a nested fixed-size list cannot be stored");
                }
                return;
            case List:
            case LargeList:
            case Map:
                throw new UnsupportedTypeException(
                        fieldPath,
                        list.getType().toString(),
                        "a fixed-size list of " + type.getTypeID() + " cannot be stored; use list<list<...>>");
            case FixedSizeList:
                checkFixedSizeListElement(fieldPath, list, element.getChildren().get(0), true);
                return;
            default:
        }
    }

    private static Field onlyChild(String fieldPath, Field field) {
        if (field.getChildren().size() != 1) {
            throw new LanceSchemaException("Arrow field '" + fieldPath + "' of type " + field.getType()
                    + " must have exactly one child (the element), found "
                    + field.getChildren().size());
        }
        return field.getChildren().get(0);
    }

    private static boolean isStruct(Field field) {
        return storageType(field.getType()) instanceof ArrowType.Struct;
    }

    private static boolean isBfloat16(Field element) {
        return BFLOAT16_EXTENSION_NAME.equals(extensionName(element))
                && storageType(element.getType()) instanceof ArrowType.FixedSizeBinary
                && ((ArrowType.FixedSizeBinary) storageType(element.getType())).getByteWidth() == 2;
    }

    /** Extension name of a field, from an Arrow Java extension type or from its metadata. */
    static String extensionName(Field field) {
        if (field.getType() instanceof ArrowType.ExtensionType) {
            return ((ArrowType.ExtensionType) field.getType()).extensionName();
        }
        return field.getMetadata().get(ARROW_EXTENSION_NAME_KEY);
    }

    /** The storage type of an Arrow Java extension type, or the type itself. */
    static ArrowType storageType(ArrowType type) {
        ArrowType t = type;
        while (t instanceof ArrowType.ExtensionType) {
            t = ((ArrowType.ExtensionType) t).storageType();
        }
        return t;
    }

    private static String unitToken(TimeUnit unit) {
        switch (unit) {
            case SECOND:
                return "s";
            case MILLISECOND:
                return "ms";
            case MICROSECOND:
                return "us";
            default:
                return "ns";
        }
    }

    private static UnsupportedTypeException unsupported(String fieldPath, String logicalType, String reason) {
        return new UnsupportedTypeException(fieldPath, logicalType, reason);
    }
}
