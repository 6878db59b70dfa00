package dev.lanceflink.schema;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;
import lance.file.Dictionary;
import lance.file.Encoding;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * One node of a Lance schema tree: an immutable mirror of {@code lance.file.Field} plus its
 * children.
 *
 * <p>Every property of the protobuf message is kept exactly as read (legacy encoding and
 * dictionary, node type, deprecated {@code extension_name}, primary/clustering key markers, raw
 * metadata bytes, even fields unknown to this version of the schema), so that
 * {@code fromProto → toProto} reproduces the message Lance wrote. Metadata values are kept as raw
 * bytes for that reason; {@link #metadata()} decodes them as UTF-8 the way Lance does.
 *
 * <p>{@link #parentId()} and {@link #path()} are not stored independently: they follow from the
 * node's position in the tree, which is what Lance relies on when it rebuilds the tree from the
 * flattened list.
 */
public final class LanceField {

    /** Id of a field that has not been given one yet (Lance uses -1 too). */
    public static final int UNASSIGNED_ID = -1;
    /** {@code parent_id} of top-level fields. */
    public static final int NO_PARENT = -1;

    /** Metadata keys Lance maps to the unenforced primary / clustering key properties. */
    public static final String PRIMARY_KEY_METADATA_KEY = "lance-schema:unenforced-primary-key";

    public static final String PRIMARY_KEY_POSITION_METADATA_KEY = "lance-schema:unenforced-primary-key:position";
    public static final String CLUSTERING_KEY_POSITION_METADATA_KEY = "lance-schema:unenforced-clustering-key:position";

    private final int id;
    private final int parentId;
    private final String name;
    private final List<String> path;
    private final String logicalType;
    private final boolean nullable;
    private final Map<String, ByteString> rawMetadata;
    private final List<LanceField> children;
    private final String extensionName;
    private final int legacyEncodingValue;
    private final Dictionary legacyDictionary;
    private final int nodeTypeValue;
    private final boolean unenforcedPrimaryKey;
    private final int unenforcedPrimaryKeyPosition;
    private final boolean unenforcedClusteringKey;
    private final int unenforcedClusteringKeyPosition;
    private final UnknownFieldSet unknownFields;

    private LanceField(Builder b, List<String> parentPath, int parentId) {
        this.id = b.id;
        this.parentId = parentId;
        this.name = b.name;
        List<String> p = new ArrayList<>(parentPath.size() + 1);
        p.addAll(parentPath);
        p.add(b.name);
        this.path = Collections.unmodifiableList(p);
        this.logicalType = b.logicalType;
        this.nullable = b.nullable;
        this.rawMetadata = Collections.unmodifiableMap(new LinkedHashMap<>(b.metadata));
        this.extensionName = b.extensionName != null
                ? b.extensionName
                : metadataString(b.metadata, LogicalTypes.ARROW_EXTENSION_NAME_KEY, "");
        this.legacyEncodingValue = b.legacyEncodingValue != null
                ? b.legacyEncodingValue
                : LogicalTypes.legacyEncodingFor(b.logicalType).getNumber();
        this.legacyDictionary = b.legacyDictionary;
        this.nodeTypeValue = b.nodeTypeValue;
        this.unenforcedPrimaryKey = b.unenforcedPrimaryKey;
        this.unenforcedPrimaryKeyPosition = b.unenforcedPrimaryKeyPosition;
        this.unenforcedClusteringKey = b.unenforcedClusteringKey;
        this.unenforcedClusteringKeyPosition = b.unenforcedClusteringKeyPosition;
        this.unknownFields = b.unknownFields;
        List<LanceField> kids = new ArrayList<>(b.children.size());
        for (Object child : b.children) {
            kids.add(
                    child instanceof LanceField
                            ? ((LanceField) child).reparent(this.path, this.id)
                            : new LanceField((Builder) child, this.path, this.id));
        }
        this.children = Collections.unmodifiableList(kids);
    }

    /** This field placed under a parent with the given path and id (itself if nothing changes). */
    LanceField reparent(List<String> parentPath, int newParentId) {
        if (newParentId == parentId
                && path.size() == parentPath.size() + 1
                && path.subList(0, parentPath.size()).equals(parentPath)) {
            return this;
        }
        return new LanceField(toBuilder(), parentPath, newParentId);
    }

    /** Starts a field with the given local name and {@code logical_type}; id unassigned, nullable. */
    public static Builder builder(String name, String logicalType) {
        return new Builder(name, logicalType);
    }

    /** A builder holding every property of this field (children included, as they are). */
    public Builder toBuilder() {
        Builder b = new Builder(name, logicalType);
        b.id = id;
        b.nullable = nullable;
        b.metadata.putAll(rawMetadata);
        b.children.addAll(children);
        b.extensionName = extensionName;
        b.legacyEncodingValue = legacyEncodingValue;
        b.legacyDictionary = legacyDictionary;
        b.nodeTypeValue = nodeTypeValue;
        b.unenforcedPrimaryKey = unenforcedPrimaryKey;
        b.unenforcedPrimaryKeyPosition = unenforcedPrimaryKeyPosition;
        b.unenforcedClusteringKey = unenforcedClusteringKey;
        b.unenforcedClusteringKeyPosition = unenforcedClusteringKeyPosition;
        b.unknownFields = unknownFields;
        return b;
    }

    // ------------------------------------------------------------------------------------------
    // protobuf
    // ------------------------------------------------------------------------------------------

    /** A builder with every property of one flattened protobuf entry (no children yet). */
    static Builder builderFromProto(lance.file.Field proto) {
        Builder b = new Builder(proto.getName(), proto.getLogicalType());
        b.id = proto.getId();
        b.nullable = proto.getNullable();
        b.metadata.putAll(proto.getMetadataMap());
        b.extensionName = proto.getExtensionName();
        b.legacyEncodingValue = proto.getEncodingValue();
        b.legacyDictionary = proto.hasDictionary() ? proto.getDictionary() : null;
        b.nodeTypeValue = proto.getTypeValue();
        b.unenforcedPrimaryKey = proto.getUnenforcedPrimaryKey();
        b.unenforcedPrimaryKeyPosition = proto.getUnenforcedPrimaryKeyPosition();
        b.unenforcedClusteringKey = proto.getUnenforcedClusteringKey();
        b.unenforcedClusteringKeyPosition = proto.getUnenforcedClusteringKeyPosition();
        b.unknownFields = proto.getUnknownFields();
        return b;
    }

    /** The protobuf entry of this node alone (children are separate entries, see {@link #flattenInto}). */
    public lance.file.Field toProto() {
        lance.file.Field.Builder b = lance.file.Field.newBuilder()
                .setTypeValue(nodeTypeValue)
                .setName(name)
                .setId(id)
                .setParentId(parentId)
                .setLogicalType(logicalType)
                .setNullable(nullable)
                .setEncodingValue(legacyEncodingValue)
                .setExtensionName(extensionName)
                .putAllMetadata(rawMetadata)
                .setUnenforcedPrimaryKey(unenforcedPrimaryKey)
                .setUnenforcedPrimaryKeyPosition(unenforcedPrimaryKeyPosition)
                .setUnenforcedClusteringKey(unenforcedClusteringKey)
                .setUnenforcedClusteringKeyPosition(unenforcedClusteringKeyPosition)
                .setUnknownFields(unknownFields);
        if (legacyDictionary != null) {
            b.setDictionary(legacyDictionary);
        }
        return b.build();
    }

    /** Appends this node and all its descendants, pre-order, as Lance flattens a schema. */
    public void flattenInto(List<lance.file.Field> out) {
        out.add(toProto());
        for (LanceField child : children) {
            child.flattenInto(out);
        }
    }

    // ------------------------------------------------------------------------------------------
    // Arrow
    // ------------------------------------------------------------------------------------------

    /**
     * Converts one Arrow field (and its children) as Lance does on table creation: the logical
     * type from the Arrow type, metadata copied (an id in {@code lance:field_id} is taken and
     * removed), legacy encoding derived from the type, key markers parsed from metadata. Fields
     * without {@code lance:field_id} get {@link #UNASSIGNED_ID}; see
     * {@link LanceSchema#fromArrow}.
     *
     * @throws UnsupportedTypeException if Lance cannot store the type of this field or a child
     */
    public static LanceField fromArrow(Field arrowField) {
        return new LanceField(builderFromArrow(arrowField, arrowField.getName()), List.of(), NO_PARENT);
    }

    static Builder builderFromArrow(Field arrowField, String fieldPath) {
        Map<String, String> md = new LinkedHashMap<>(arrowField.getMetadata());
        if (arrowField.getType() instanceof ArrowType.ExtensionType) {
            ArrowType.ExtensionType ext = (ArrowType.ExtensionType) arrowField.getType();
            md.put(LogicalTypes.ARROW_EXTENSION_NAME_KEY, ext.extensionName());
            md.put(LogicalTypes.ARROW_EXTENSION_METADATA_KEY, ext.serialize());
        }
        int id = UNASSIGNED_ID;
        String idText = md.remove(LogicalTypes.FIELD_ID_METADATA_KEY);
        if (idText != null) {
            try {
                id = Math.max(Integer.parseInt(idText.trim()), UNASSIGNED_ID);
            } catch (NumberFormatException e) {
                throw new LanceSchemaException(
                        "Field '" + fieldPath + "' has metadata " + LogicalTypes.FIELD_ID_METADATA_KEY + "='" + idText
                                + "', which is not an integer field id; remove it or fix it",
                        e);
            }
        }
        String logicalType = LogicalTypes.logicalTypeOf(fieldPath, arrowField);
        Builder b = new Builder(arrowField.getName(), logicalType);
        b.id = id;
        b.nullable = arrowField.isNullable();
        md.forEach((k, v) -> b.metadata.put(k, ByteString.copyFromUtf8(v)));
        b.extensionName = md.getOrDefault(LogicalTypes.ARROW_EXTENSION_NAME_KEY, "");
        b.legacyEncodingValue = LogicalTypes.legacyEncodingFor(logicalType).getNumber();
        Integer pkPosition = parseUnsigned(md.get(PRIMARY_KEY_POSITION_METADATA_KEY));
        if (pkPosition == null) {
            String flag = md.get(PRIMARY_KEY_METADATA_KEY);
            if (flag != null && List.of("true", "1", "yes").contains(flag.toLowerCase(Locale.ROOT))) {
                pkPosition = 0;
            }
        }
        if (pkPosition != null) {
            b.unenforcedPrimaryKey = true;
            b.unenforcedPrimaryKeyPosition = pkPosition;
        }
        Integer clusteringPosition = parseUnsigned(md.get(CLUSTERING_KEY_POSITION_METADATA_KEY));
        b.unenforcedClusteringKeyPosition = clusteringPosition == null ? 0 : clusteringPosition;
        List<Field> arrowChildren = arrowField.getChildren();
        switch (LogicalTypes.shapeOf(logicalType)) {
            case STRUCT:
                for (Field child : arrowChildren) {
                    b.children.add(builderFromArrow(child, fieldPath + "." + child.getName()));
                }
                break;
            case LIST:
            case LARGE_LIST:
            case MAP:
            case FIXED_SIZE_LIST_STRUCT:
                Field element = arrowChildren.get(0);
                b.children.add(builderFromArrow(element, fieldPath + "." + element.getName()));
                break;
            case LEAF:
            default:
                break;
        }
        return b;
    }

    private static Integer parseUnsigned(String text) {
        if (text == null) {
            return null;
        }
        try {
            long v = Long.parseLong(text.trim());
            return v >= 0 && v <= 0xFFFF_FFFFL ? (int) v : null;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /**
     * The Arrow field Lance presents for this node: type from the logical type, children
     * converted recursively, metadata decoded as UTF-8 (plus {@code ARROW:extension:name} when
     * {@code extension_name} is set, and the markers of {@code json} and {@code blob}).
     * A dictionary field gets a {@link org.apache.arrow.vector.types.pojo.DictionaryEncoding}
     * whose id is the field id.
     *
     * @throws UnsupportedTypeException if the logical type cannot be mapped
     */
    public Field toArrow() {
        List<Field> arrowChildren = new ArrayList<>(children.size());
        for (LanceField child : children) {
            arrowChildren.add(child.toArrow());
        }
        Map<String, String> md = metadata();
        if (!extensionName.isEmpty()) {
            md = new LinkedHashMap<>(md);
            md.put(LogicalTypes.ARROW_EXTENSION_NAME_KEY, extensionName);
        }
        return LogicalTypes.toArrowField(pathString(), name, logicalType, nullable, md, arrowChildren, id);
    }

    /** The Arrow type of this node (the bare container type for nested types). */
    public ArrowType arrowType() {
        return LogicalTypes.toArrowType(pathString(), logicalType);
    }

    // ------------------------------------------------------------------------------------------
    // accessors
    // ------------------------------------------------------------------------------------------

    public int id() {
        return id;
    }

    /** Parent's id, or {@link #NO_PARENT} for a top-level field. */
    public int parentId() {
        return parentId;
    }

    /** Local name (not a path). */
    public String name() {
        return name;
    }

    /** Names from the top-level field down to this one. */
    public List<String> path() {
        return path;
    }

    /** {@link #path()} as a dotted string, quoted as Lance does (see {@link FieldPaths}). */
    public String pathString() {
        return FieldPaths.format(path);
    }

    /** The {@code logical_type} string exactly as stored. */
    public String logicalType() {
        return logicalType;
    }

    public boolean nullable() {
        return nullable;
    }

    /** Field metadata with values decoded as UTF-8 (malformed bytes become U+FFFD, as in Lance). */
    public Map<String, String> metadata() {
        Map<String, String> out = new LinkedHashMap<>();
        rawMetadata.forEach((k, v) -> out.put(k, new String(v.toByteArray(), StandardCharsets.UTF_8)));
        return Collections.unmodifiableMap(out);
    }

    /** Field metadata exactly as stored. */
    public Map<String, ByteString> rawMetadata() {
        return rawMetadata;
    }

    public List<LanceField> children() {
        return children;
    }

    /** The deprecated {@code extension_name} property ("" when unset). */
    public String extensionName() {
        return extensionName;
    }

    /** The legacy v1 {@code encoding}; {@code UNRECOGNIZED} for values newer than this schema. */
    public Encoding legacyEncoding() {
        Encoding e = Encoding.forNumber(legacyEncodingValue);
        return e == null ? Encoding.UNRECOGNIZED : e;
    }

    public int legacyEncodingValue() {
        return legacyEncodingValue;
    }

    /** The legacy v1 dictionary page location, if the field carries one. */
    public Optional<Dictionary> legacyDictionary() {
        return Optional.ofNullable(legacyDictionary);
    }

    /** Raw value of the {@code type} property (Lance writes 0 and ignores it). */
    public int nodeTypeValue() {
        return nodeTypeValue;
    }

    /** The stored {@code unenforced_primary_key} flag. */
    public boolean unenforcedPrimaryKeyFlag() {
        return unenforcedPrimaryKey;
    }

    /** Stored 1-based primary key position; 0 = unset (ordered by field id when in the key). */
    public int unenforcedPrimaryKeyPosition() {
        return unenforcedPrimaryKeyPosition;
    }

    /** Whether Lance treats the field as part of the unenforced primary key (flag or position set). */
    public boolean isUnenforcedPrimaryKey() {
        return unenforcedPrimaryKey || unenforcedPrimaryKeyPosition > 0;
    }

    public boolean unenforcedClusteringKey() {
        return unenforcedClusteringKey;
    }

    /** 1-based clustering key position; 0 = not a clustering key. */
    public int unenforcedClusteringKeyPosition() {
        return unenforcedClusteringKeyPosition;
    }

    /** Protobuf fields of the stored entry that this schema version does not know. */
    public UnknownFieldSet unknownFields() {
        return unknownFields;
    }

    /** The child-node shape of the logical type. */
    public LogicalTypes.Shape shape() {
        return LogicalTypes.shapeOf(logicalType);
    }

    /** Lance's definition: a field without child nodes (so fixed-size lists of primitives are leaves). */
    public boolean isLeaf() {
        return children.isEmpty();
    }

    public boolean isStruct() {
        return "struct".equals(logicalType);
    }

    /** {@code list}, {@code large_list} or their {@code .struct} variants. */
    public boolean isList() {
        LogicalTypes.Shape s = shape();
        return s == LogicalTypes.Shape.LIST || s == LogicalTypes.Shape.LARGE_LIST;
    }

    public boolean isMap() {
        return "map".equals(logicalType);
    }

    /** Whether the struct is stored packed ({@code packed} or {@code lance-encoding:packed} = true). */
    public boolean isPackedStruct() {
        for (String key : List.of("packed", "lance-encoding:packed")) {
            ByteString v = rawMetadata.get(key);
            if (v != null && "true".equalsIgnoreCase(v.toStringUtf8())) {
                return true;
            }
        }
        return false;
    }

    /** The direct child with this name. */
    public Optional<LanceField> child(String childName) {
        for (LanceField c : children) {
            if (c.name.equals(childName)) {
                return Optional.of(c);
            }
        }
        return Optional.empty();
    }

    /** This field followed by all its descendants, pre-order. */
    public Stream<LanceField> preOrder() {
        return Stream.concat(Stream.of(this), children.stream().flatMap(LanceField::preOrder));
    }

    /** The largest id in this subtree. */
    public int maxId() {
        int max = id;
        for (LanceField c : children) {
            max = Math.max(max, c.maxId());
        }
        return max;
    }

    private static String metadataString(Map<String, ByteString> md, String key, String absent) {
        ByteString v = md.get(key);
        return v == null ? absent : v.toStringUtf8();
    }

    // ------------------------------------------------------------------------------------------
    // Object
    // ------------------------------------------------------------------------------------------

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof LanceField)) {
            return false;
        }
        LanceField f = (LanceField) o;
        return id == f.id
                && parentId == f.parentId
                && nullable == f.nullable
                && legacyEncodingValue == f.legacyEncodingValue
                && nodeTypeValue == f.nodeTypeValue
                && unenforcedPrimaryKey == f.unenforcedPrimaryKey
                && unenforcedPrimaryKeyPosition == f.unenforcedPrimaryKeyPosition
                && unenforcedClusteringKey == f.unenforcedClusteringKey
                && unenforcedClusteringKeyPosition == f.unenforcedClusteringKeyPosition
                && name.equals(f.name)
                && logicalType.equals(f.logicalType)
                && rawMetadata.equals(f.rawMetadata)
                && extensionName.equals(f.extensionName)
                && Objects.equals(legacyDictionary, f.legacyDictionary)
                && unknownFields.equals(f.unknownFields)
                && children.equals(f.children);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, name, logicalType, nullable, children);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        sb.append(name).append('#').append(id).append(':').append(logicalType);
        if (!nullable) {
            sb.append(" not null");
        }
        if (!children.isEmpty()) {
            sb.append('{');
            for (int i = 0; i < children.size(); i++) {
                if (i > 0) {
                    sb.append(", ");
                }
                sb.append(children.get(i));
            }
            sb.append('}');
        }
        return sb.toString();
    }

    /**
     * Mutable builder. Children may be builders or finished fields; their parent id and path are
     * set from this field when it is built. Unless set explicitly, {@code extension_name} is taken
     * from metadata {@code ARROW:extension:name} and the legacy encoding from the logical type,
     * as Lance fills them.
     */
    public static final class Builder {
        private String name;
        private String logicalType;
        private int id = UNASSIGNED_ID;
        private boolean nullable = true;
        private final Map<String, ByteString> metadata = new LinkedHashMap<>();
        private final List<Object> children = new ArrayList<>();
        private String extensionName;
        private Integer legacyEncodingValue;
        private Dictionary legacyDictionary;
        private int nodeTypeValue;
        private boolean unenforcedPrimaryKey;
        private int unenforcedPrimaryKeyPosition;
        private boolean unenforcedClusteringKey;
        private int unenforcedClusteringKeyPosition;
        private UnknownFieldSet unknownFields = UnknownFieldSet.getDefaultInstance();

        private Builder(String name, String logicalType) {
            this.name = Objects.requireNonNull(name, "name");
            this.logicalType = Objects.requireNonNull(logicalType, "logicalType");
        }

        public Builder name(String value) {
            this.name = Objects.requireNonNull(value, "name");
            return this;
        }

        public Builder logicalType(String value) {
            this.logicalType = Objects.requireNonNull(value, "logicalType");
            return this;
        }

        public Builder id(int value) {
            this.id = value;
            return this;
        }

        public int id() {
            return id;
        }

        public Builder nullable(boolean value) {
            this.nullable = value;
            return this;
        }

        public Builder putMetadata(String key, String value) {
            metadata.put(key, ByteString.copyFromUtf8(value));
            return this;
        }

        public Builder putRawMetadata(String key, ByteString value) {
            metadata.put(key, value);
            return this;
        }

        public Builder removeMetadata(String key) {
            metadata.remove(key);
            return this;
        }

        public Builder clearMetadata() {
            metadata.clear();
            return this;
        }

        public Builder addChild(LanceField child) {
            children.add(Objects.requireNonNull(child, "child"));
            return this;
        }

        public Builder addChild(Builder child) {
            children.add(Objects.requireNonNull(child, "child"));
            return this;
        }

        public Builder clearChildren() {
            children.clear();
            return this;
        }

        /** Child builders/fields added so far (for id assignment walks). */
        List<Object> childrenView() {
            return children;
        }

        public Builder extensionName(String value) {
            this.extensionName = Objects.requireNonNull(value, "extensionName");
            return this;
        }

        public Builder legacyEncoding(Encoding value) {
            this.legacyEncodingValue = value.getNumber();
            return this;
        }

        public Builder legacyDictionary(Dictionary value) {
            this.legacyDictionary = value;
            return this;
        }

        public Builder unenforcedPrimaryKey(boolean flag, int position) {
            this.unenforcedPrimaryKey = flag;
            this.unenforcedPrimaryKeyPosition = position;
            return this;
        }

        public Builder unenforcedClusteringKey(boolean flag, int position) {
            this.unenforcedClusteringKey = flag;
            this.unenforcedClusteringKeyPosition = position;
            return this;
        }

        /** Builds a top-level field (parent id -1); children get their parent id and path from it. */
        public LanceField build() {
            return new LanceField(this, List.of(), NO_PARENT);
        }
    }
}
